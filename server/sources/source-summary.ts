// What an environment keeps of each source after it was placed: where it went and how big it was,
// never the inline content itself (that lives only in the sandbox).

import type { Source } from "../wire/openapi-types.js";

export interface SourceSummary {
  /** The document's kinds of source (server/wire/openapi-types.ts). */
  type: NonNullable<Source["type"]>;
  target: string;
  encoding?: string;
  source?: string;
  size_bytes: number;
}
