// JSON Schemas for tests of bounded work (docs/security.md#bounded-work): the exact schemas of issue 17
// and a schema the bounds allow whose compilation is still long (thousands of $refs), so a test can
// show that the work leaves the event loop and that its deadline holds.

/** Issue 17, case 1: a minimal answer of 10^8 properties (a 500 after 33-53 s and 1.5 GB before the fix). */
export const HUGE_MIN_PROPERTIES = { type: "object", minProperties: 100_000_000 };
/** Issue 17, case 1: 10^7 properties (a 400, after 23 s of a stalled server, before the fix). */
export const LARGE_MIN_PROPERTIES = { type: "object", minProperties: 10_000_000 };

/**
 * Within EMULATOR_MAX_SCHEMA_BYTES (about 110 KB), but Ajv takes seconds to compile it on this
 * machine class: `refs` properties, each a $ref to one object of `width` properties. Its minimal
 * instance is {} (nothing is required).
 */
export function manyRefsSchema(refs = 3000, width = 30): Record<string, unknown> {
  const wide = Object.fromEntries(Array.from({ length: width }, (_, index) => [`p${index}`, { type: "string" }]));
  const properties = Object.fromEntries(Array.from({ length: refs }, (_, index) => [`r${index}`, { $ref: "#/$defs/wide" }]));
  return { type: "object", $defs: { wide: { type: "object", properties: wide } }, properties };
}

/** A response_format asking for JSON of `schema`. */
export function jsonFormat(schema: unknown): Record<string, unknown> {
  return { type: "text", mime_type: "application/json", schema };
}
