// Placeholders of `environment_variable` credentials replaced on the wire. The sandbox holds only the
// placeholder (random text the server made); for a request to a host the credential trusts, the proxy
// puts the secret in its place in the locations the credential names: header values, the query string,
// the body. What it writes is encoded for where it goes (percent-encoded in a query or a form body,
// JSON-escaped in a JSON body, as is elsewhere), so the secret arrives as the program meant it. Nothing
// else is touched; a request to any other host keeps the placeholder.

import type { IncomingHttpHeaders } from "node:http";
import { isInjectableHeaderValue, type InjectionLocation, type Substitution } from "./policy.js";

/** Bodies up to 1 MiB get their placeholders replaced unless the operator says otherwise. */
export const DEFAULT_MAX_SUBSTITUTION_BODY_BYTES = 1024 * 1024;

/** One replacement made, for the egress log: the variable's name and where, never the value. */
export type SubstitutionMade = { name: string; location: InjectionLocation };

function at(substitutions: Substitution[], location: InjectionLocation): Substitution[] {
  return substitutions.filter((substitution) => substitution.locations.includes(location));
}

/** Header values with placeholders replaced; a value that would not be a valid header keeps its placeholder. */
export function substituteHeaders(headers: IncomingHttpHeaders, substitutions: Substitution[], made: SubstitutionMade[]): void {
  const applicable = at(substitutions, "header");
  if (applicable.length === 0) return;
  const replaceIn = (value: string): string => {
    let result = value;
    for (const substitution of applicable) {
      if (!result.includes(substitution.placeholder)) continue;
      const replaced = result.split(substitution.placeholder).join(substitution.value);
      // A secret with a line break would split the request: fail closed, keep the placeholder.
      if (!isInjectableHeaderValue(replaced)) continue;
      result = replaced;
      record(made, substitution.name, "header");
    }
    return result;
  };
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") headers[name] = replaceIn(value);
    else if (Array.isArray(value)) headers[name] = value.map(replaceIn);
  }
}

/** The origin-form path with placeholders in its query string replaced by the percent-encoded value. */
export function substituteQuery(path: string, substitutions: Substitution[], made: SubstitutionMade[]): string {
  const applicable = at(substitutions, "query");
  const question = path.indexOf("?");
  if (applicable.length === 0 || question < 0) return path;
  let query = path.slice(question + 1);
  for (const substitution of applicable) {
    if (!query.includes(substitution.placeholder)) continue;
    query = query.split(substitution.placeholder).join(encodeURIComponent(substitution.value));
    record(made, substitution.name, "query");
  }
  return `${path.slice(0, question + 1)}${query}`;
}

export function wantsBody(substitutions: Substitution[]): boolean {
  return at(substitutions, "body").length > 0;
}

/** How a value is written into a body of this content type. */
function bodyEncoder(contentType: string | undefined): (value: string) => string {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return encodeURIComponent;
  if (type === "application/json" || type.endsWith("+json")) return (value) => JSON.stringify(value).slice(1, -1);
  return (value) => value;
}

/** The body with placeholders replaced (the same Buffer when none occurs). */
export function substituteBody(
  body: Buffer,
  contentType: string | undefined,
  substitutions: Substitution[],
  made: SubstitutionMade[],
): Buffer {
  const encode = bodyEncoder(contentType);
  let result = body;
  for (const substitution of at(substitutions, "body")) {
    const needle = Buffer.from(substitution.placeholder, "utf8");
    if (result.indexOf(needle) < 0) continue;
    const replacement = Buffer.from(encode(substitution.value), "utf8");
    const parts: Buffer[] = [];
    let from = 0;
    for (let found = result.indexOf(needle, from); found >= 0; found = result.indexOf(needle, from)) {
      parts.push(result.subarray(from, found), replacement);
      from = found + needle.length;
    }
    parts.push(result.subarray(from));
    result = Buffer.concat(parts);
    record(made, substitution.name, "body");
  }
  return result;
}

function record(made: SubstitutionMade[], name: string, location: InjectionLocation): void {
  if (!made.some((entry) => entry.name === name && entry.location === location)) made.push({ name, location });
}
