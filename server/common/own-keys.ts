// A user's JSON keeps every key as sent, "__proto__" included. JSON.parse makes such a key an own
// property like any other, and a spread ({...value}), Object.fromEntries, JSON.stringify and
// structuredClone keep it; but assigning it (`out[key] = value`, Object.assign) calls the prototype
// setter instead: the key is lost, and the object's prototype becomes the user's value. zod's record
// and object parsing drop it on purpose for that reason. Every place that copies a user's keys one by
// one goes through here.

import { z } from "zod";

/** Sets `key` on `target` as an own, enumerable property, whatever its name. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `source`'s own enumerable string keys into `target` (Object.assign, minus the setter). */
export function assignOwn<T>(target: Record<string, T>, source: Record<string, T>): Record<string, T> {
  for (const [key, value] of Object.entries(source)) setOwn(target, key, value);
  return target;
}

/**
 * z.record(z.string(), value) that keeps a "__proto__" key, checked like every other: zod's record
 * skips it (it would assign it); this parses the record without it, then checks and adds it as an
 * own property of the result.
 */
export function recordKeepingKeys<T extends z.ZodType>(value: T) {
  const record = z.record(z.string(), value);
  return z.unknown().transform((input, context): Record<string, z.output<T>> => {
    const parsed = record.safeParse(input);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) context.addIssue({ ...issue } as never);
      return z.NEVER;
    }
    const out = parsed.data as Record<string, z.output<T>>;
    const raw = input as Record<string, unknown>;
    if (!Object.hasOwn(raw, "__proto__")) return out;
    const special = value.safeParse(Object.getOwnPropertyDescriptor(raw, "__proto__")?.value);
    if (!special.success) {
      for (const issue of special.error.issues) context.addIssue({ ...issue, path: ["__proto__", ...issue.path] } as never);
      return z.NEVER;
    }
    // In the input's order, so an echo lists the keys as they were sent.
    const ordered: Record<string, z.output<T>> = {};
    for (const key of Object.keys(raw)) setOwn(ordered, key, key === "__proto__" ? (special.data as z.output<T>) : out[key]!);
    return ordered;
  });
}
