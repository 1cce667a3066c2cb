// What the JSON Schemas of one request may cost (docs/security.md#bounded-work): the size of each
// schema Ajv compiles, the size of the minimal answer built from a response_format schema, and the
// deadline of that work, which runs off the event loop (schema-work.ts).

import { MAX_SCHEMA_CHARS } from "../../agent/answer-schema.js";
import { DEFAULT_INSTANCE_BOUNDS, type InstanceBounds } from "./schema-instance.js";

export interface SchemaBounds {
  /** The largest schema compiled, as compact JSON (EMULATOR_MAX_SCHEMA_BYTES). */
  maxSchemaChars: number;
  /** The minimal answer's size (EMULATOR_MAX_ANSWER_VALUES, EMULATOR_MAX_ANSWER_BYTES). */
  instance: InstanceBounds;
  /** The deadline of one request's schema work (EMULATOR_SCHEMA_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

export const DEFAULT_SCHEMA_BOUNDS: SchemaBounds = {
  maxSchemaChars: MAX_SCHEMA_CHARS,
  instance: DEFAULT_INSTANCE_BOUNDS,
  timeoutMs: 10_000,
};
