// Environment variables backed by a credential (`env: {"SLACK_BOT_TOKEN": {"credential": "slack-bot-token"}}`),
// as the agent environments page describes them: the variable in the sandbox holds a placeholder, and
// the egress proxy puts the credential's secret in its place on the wire, so the secret never enters
// the sandbox. Each (environment, variable) gets its own random placeholder: it cannot be guessed, is
// not derived from the secret, and means nothing to another environment. The credential is read for
// every connection, so a rotated value applies at once and a deleted (or not active) one is not
// substituted at all (fail closed: the placeholder goes out as it is).

import { randomBytes } from "node:crypto";
import type { Substitution } from "../../proxy/index.js";
import { InvalidArgumentError } from "../common/errors.js";
import { setOwn } from "../common/own-keys.js";
import type { CredentialStore } from "../credentials/credential-store.js";

/** Stored with the environment: which variables hold a placeholder, of which credential. */
export type EnvCredentials = Record<string, { credential: string; placeholder: string }>;

const PLACEHOLDER_PREFIX = "emulator-credential-placeholder-";

/** 192 random bits, in characters that read the same in a header, a query string and a JSON or form body. */
export function newPlaceholder(): string {
  return `${PLACEHOLDER_PREFIX}${randomBytes(24).toString("hex")}`;
}

/** Refuses, with a 400 naming the variable, a reference to a credential that is missing or of another type. */
export function checkEnvCredentials(references: Record<string, string>, owner: string, credentials: CredentialStore): void {
  for (const [name, id] of Object.entries(references)) {
    const where = `environment.env.${name}`;
    const credential = credentials.get(owner, id);
    if (!credential) {
      throw new InvalidArgumentError(
        `${where}: credential "${id}" not found. Create it first with POST /{version}/credentials ({"id": "${id}", "type": "environment_variable", "value": …, "injection_location": "header"}), or give the variable a plain value`,
      );
    }
    if (credential.type !== "environment_variable") {
      throw new InvalidArgumentError(
        `${where}: credential "${id}" is a ${credential.type} credential; a variable can only name an environment_variable credential (name ${credential.type} credentials in a network.allowlist entry's "credential" instead)`,
      );
    }
  }
}

/**
 * The placeholders after a request sets `values` (plain) and `references` (credential-backed): a
 * variable keeps its placeholder while it names the same credential, gets a new one otherwise, and
 * loses it when it is given a plain value.
 */
export function nextEnvCredentials(
  previous: EnvCredentials | undefined,
  values: Record<string, string>,
  references: Record<string, string>,
): EnvCredentials {
  const next: EnvCredentials = {};
  for (const [name, entry] of Object.entries(previous ?? {})) if (!Object.hasOwn(values, name)) setOwn(next, name, entry);
  for (const [name, credential] of Object.entries(references)) {
    const kept = next[name]?.credential === credential ? next[name]!.placeholder : newPlaceholder();
    setOwn(next, name, { credential, placeholder: kept });
  }
  return next;
}

/** The same variables with new placeholders: a fork is another environment. */
export function renewPlaceholders(entries: EnvCredentials): EnvCredentials {
  const renewed: EnvCredentials = {};
  for (const [name, { credential }] of Object.entries(entries)) setOwn(renewed, name, { credential, placeholder: newPlaceholder() });
  return renewed;
}

/** What the sandbox sees for these variables: their placeholders. */
export function placeholderValues(entries: EnvCredentials): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, { placeholder }] of Object.entries(entries)) setOwn(values, name, placeholder);
  return values;
}

/** The proxy's substitutions, with the credentials as they are now; a missing or inactive one is left out. */
export function envSubstitutions(entries: EnvCredentials | undefined, owner: string, credentials: CredentialStore): Substitution[] {
  const substitutions: Substitution[] = [];
  for (const [name, { credential: id, placeholder }] of Object.entries(entries ?? {})) {
    const credential = credentials.get(owner, id);
    if (credential?.status !== "active" || credential.config.type !== "environment_variable") continue;
    const { value, injection_location: where, trusted_domains: domains } = credential.config;
    substitutions.push({
      name,
      placeholder,
      value,
      locations: [...new Set(Array.isArray(where) ? where : [where])],
      ...(domains !== undefined ? { domains } : {}),
    });
  }
  return substitutions;
}
