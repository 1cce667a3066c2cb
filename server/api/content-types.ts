// The document's Step types, Content types and each media Content's MIME types as lists the edge can
// check a request against (server/api/interaction-input.ts), so that what the emulator records from an
// input is what server/wire/openapi-types.ts declares even when EMULATOR_LOOSE let the body past the
// document check. Each list is held to the generated types both ways at compile time: no value the
// document lacks, none of its values left out.

import type { Assignable } from "../wire/assignable.js";
import type * as Wire from "../wire/openapi-types.js";

/** The document's Step types: one of them in a list makes the list a history. */
export const STEP_TYPES = [
  "user_input",
  "model_output",
  "thought",
  "function_call",
  "function_result",
  "code_execution_call",
  "code_execution_result",
  "mcp_server_tool_call",
  "mcp_server_tool_result",
  "google_search_call",
  "google_search_result",
  "google_maps_call",
  "google_maps_result",
  "url_context_call",
  "url_context_result",
  "file_search_call",
  "file_search_result",
  "retrieval_call",
  "retrieval_result",
  "processing_call",
  "processing_result",
] as const satisfies readonly Wire.Step["type"][];

type MediaContent = Exclude<Wire.Content, Wire.TextContent>;
export type MediaType = MediaContent["type"];
type MimeTypeOf<T extends MediaType> = NonNullable<Extract<MediaContent, { type: T }>["mime_type"]>;

/** The MIME types the document lists for each media Content type. */
export const MIME_TYPES = {
  image: ["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif", "image/gif", "image/bmp", "image/tiff"],
  audio: [
    "audio/wav",
    "audio/mp3",
    "audio/aiff",
    "audio/aac",
    "audio/ogg",
    "audio/flac",
    "audio/mpeg",
    "audio/m4a",
    "audio/l16",
    "audio/opus",
    "audio/alaw",
    "audio/mulaw",
    "audio/webm",
  ],
  document: ["application/pdf", "text/csv"],
  video: ["video/mp4", "video/mpeg", "video/mpg", "video/mov", "video/avi", "video/x-flv", "video/webm", "video/wmv", "video/3gpp"],
} as const satisfies { [T in MediaType]: readonly MimeTypeOf<T>[] };

/** The Content types: text and the media types. */
export const CONTENT_TYPES = ["text", ...(Object.keys(MIME_TYPES) as MediaType[])] as const;

/** Nothing of the document's left out of the lists above: tsc fails here when the document adds a value. */
export type ListsComplete = [
  Assignable<Exclude<Wire.Step["type"], (typeof STEP_TYPES)[number]>, never>,
  Assignable<Exclude<MediaType, keyof typeof MIME_TYPES>, never>,
  Assignable<{ [T in MediaType]: Exclude<MimeTypeOf<T>, (typeof MIME_TYPES)[T][number]> }[MediaType], never>,
];

export function isMediaType(type: string): type is MediaType {
  return Object.hasOwn(MIME_TYPES, type);
}
