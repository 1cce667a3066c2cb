// Resource names as the service's references write them. Each resource may be named by its ID or by
// its resource name, "{collection}/{id}": the SDK's own samples name agents "agents/antigravity-…", the
// environments API documents "environments/{environment_id}" or "{environment_id}", and a path
// parameter the SDK percent-encodes ("interactions%2Fint_…") arrives decoded as "interactions/int_…".
// The `environment` of a request has a third form, "remote": a fresh sandbox.

/** The collections whose members a request may name with their prefix. */
export type Collection = "agents" | "environments" | "interactions" | "models";

/** "agents/x" and "x" both name x in the agents collection; another collection's prefix is kept (and then not found). */
export function idOf(collection: Collection, name: string): string {
  const prefix = `${collection}/`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The string an interaction's (or an agent's base) `environment` gives for a fresh sandbox. */
export const FRESH_ENVIRONMENT = "remote";

/**
 * What a string `environment` names: a fresh sandbox ("remote", the documentation's first form), or an
 * existing environment by its ID, with or without "environments/".
 */
export function environmentRef(value: string): { fresh: true } | { fresh: false; id: string } {
  return value === FRESH_ENVIRONMENT ? { fresh: true } : { fresh: false, id: idOf("environments", value) };
}
