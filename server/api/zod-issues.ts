// A zod failure as the 400 a user can act on: every problem named by its field path
// (`environment.sources[1].target`), a failed union by the branch that got furthest. Used at the HTTP
// edge (parseOrThrow) and for fields checked later, once the request's kind is known (generation_config).

import type { z } from "zod";
import { InvalidArgumentError } from "../common/errors.js";

/** `environment.sources[1].target`, the way a user would point at the field in their request. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "request body";
}

interface Problem {
  path: PropertyKey[];
  message: string;
}

type Issue = z.core.$ZodIssue;

const depth = (issues: Issue[]): number => Math.max(0, ...issues.map((issue) => issue.path.length));

/**
 * zod reports a failed union ("an ID string or an environment object") as one opaque "Invalid input".
 * The branch that got furthest into the value is the one the user meant, so its issues are shown; when
 * every branch failed at the top, the alternatives are listed.
 */
function problemsOf(issue: Issue, prefix: PropertyKey[]): Problem[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
    if (depth(best) > 0) return best.flatMap((inner) => problemsOf(inner, path));
    const alternatives = [...new Set(issue.errors.flatMap((branch) => branch.map((inner) => inner.message)))];
    return [{ path, message: `must be one of: ${alternatives.join("; or ")}` }];
  }
  return [{ path, message: issue.message }];
}

export function toInvalidArgument(error: z.ZodError, prefix: PropertyKey[] = []): InvalidArgumentError {
  const problems = error.issues.flatMap((issue) => problemsOf(issue, prefix));
  const messages = problems.slice(0, 5).map((problem) => `${fieldPath(problem.path)}: ${problem.message}`);
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : "";
  return new InvalidArgumentError(`Invalid request: ${messages.join("; ")}${more}`);
}

export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, prefix: PropertyKey[] = []): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw toInvalidArgument(parsed.error, prefix);
  return parsed.data;
}
