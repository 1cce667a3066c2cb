import type { z } from "zod";
import { InvalidArgumentError } from "../errors.js";

/** `environment.sources[1].target`, the way a user would point at the field in their request. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "request body";
}

export function toInvalidArgument(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): InvalidArgumentError {
  const messages = error.issues.slice(0, 5).map((issue) => `${fieldPath([...prefix, ...issue.path])}: ${issue.message}`);
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : "";
  return new InvalidArgumentError(`Invalid request: ${messages.join("; ")}${more}`);
}

export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, prefix: ReadonlyArray<PropertyKey> = []): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw toInvalidArgument(parsed.error, prefix);
  return parsed.data;
}
