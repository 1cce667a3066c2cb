// What form the final answer must take, read from the request (docs/api.md#structured-answers). The SDK
// types `response_format` as one ResponseFormat or a list of them: `{type: "text", mime_type, schema}`,
// `{type: "audio" | "image" | "video", …}`, or (the older form, with the deprecated `response_mime_type:
// "application/json"` beside it) a JSON Schema itself. The emulated agent answers in text only, so it
// can give plain text or JSON; any other output is refused before anything runs.

export type ResponseFormatChoice =
  | { kind: "text" }
  /**
   * JSON, valid against `schema` when there is one. `where` names the schema's field in the request
   * ("response_format.schema", "response_format[1].schema", "response_format"), for messages.
   */
  | { kind: "json"; schema?: Record<string, unknown> | boolean; where: string }
  | { kind: "invalid"; message: string };

const JSON_MIME = "application/json";
const TEXT_MIME = "text/plain";
const MEDIA_FORMATS: ReadonlySet<string> = new Set(["audio", "image", "video"]);

const MEDIA_REFUSAL =
  "the emulated agent answers in text only, so it cannot produce audio, image or video output; drop that entry, or ask for text: " +
  '{"type": "text", "mime_type": "application/json", "schema": {…}} for JSON, or leave response_format out for plain text';

/** `request`: the request body, with `response_format`, `response_mime_type` and `response_modalities` if any. */
export function readResponseFormat(request: Readonly<Record<string, unknown>>): ResponseFormatChoice {
  const modalities = checkModalities(request.response_modalities);
  if (modalities) return modalities;
  const mime = request.response_mime_type;
  if (mime !== undefined && mime !== JSON_MIME && mime !== TEXT_MIME) {
    return invalid(`response_mime_type ${JSON.stringify(mime)} is not supported; use "${JSON_MIME}" or "${TEXT_MIME}"`);
  }
  const entries = formatEntries(request.response_format);
  if (typeof entries === "string") return invalid(entries);
  const choices: Array<{ choice: ResponseFormatChoice; mime: string | undefined; where: string }> = [];
  for (const entry of entries) {
    const read = readEntry(entry.value, entry.where, mime as string | undefined);
    if (read.choice.kind === "invalid") return read.choice;
    choices.push({ ...read, where: entry.where });
  }
  if (choices.length > 1) {
    return invalid(
      `response_format has ${choices.length} text entries (${choices.map((choice) => choice.where).join(", ")}); the final answer is one text, so give one`,
    );
  }
  const [only] = choices;
  if (!only) return mime === JSON_MIME ? { kind: "json", where: "response_mime_type" } : { kind: "text" };
  if (mime !== undefined && only.mime !== undefined && only.mime !== mime) {
    return invalid(`${only.where}.mime_type is "${only.mime}" but response_mime_type is "${mime}"; give one of them, or the same in both`);
  }
  // {type: "text"} alone leaves the mime type to response_mime_type.
  if (only.choice.kind === "text" && only.mime === undefined && mime === JSON_MIME) return { kind: "json", where: "response_mime_type" };
  return only.choice;
}

function formatEntries(format: unknown): Array<{ value: unknown; where: string }> | string {
  if (format === undefined || format === null) return [];
  if (Array.isArray(format)) return format.map((value, index) => ({ value, where: `response_format[${index}]` }));
  if (typeof format === "object") return [{ value: format, where: "response_format" }];
  return "response_format must be an object (a ResponseFormat or a JSON Schema) or a list of ResponseFormat objects";
}

function readEntry(
  value: unknown,
  where: string,
  requestMime: string | undefined,
): { choice: ResponseFormatChoice; mime: string | undefined } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      choice: invalid(`${where} must be an object like {"type": "text", "mime_type": "${JSON_MIME}", "schema": {…}}`),
      mime: undefined,
    };
  }
  const entry = value as Record<string, unknown>;
  const type = entry.type;
  if (typeof type === "string" && MEDIA_FORMATS.has(type)) {
    return { choice: invalid(`${where} asks for ${type} output: ${MEDIA_REFUSAL}`), mime: undefined };
  }
  if (type === "text") return readTextEntry(entry, where);
  // The older form: the entry is the JSON Schema itself (its `type` is a JSON type, if any).
  if (requestMime === TEXT_MIME) {
    return {
      choice: invalid(`${where} is a JSON Schema but response_mime_type is "${TEXT_MIME}"; set response_mime_type to "${JSON_MIME}"`),
      mime: undefined,
    };
  }
  return { choice: { kind: "json", schema: entry, where }, mime: undefined };
}

function readTextEntry(entry: Record<string, unknown>, where: string): { choice: ResponseFormatChoice; mime: string | undefined } {
  const { mime_type: mime, schema } = entry;
  if (mime !== undefined && mime !== JSON_MIME && mime !== TEXT_MIME) {
    return {
      choice: invalid(`${where}.mime_type ${JSON.stringify(mime)} is not supported; use "${JSON_MIME}" or "${TEXT_MIME}"`),
      mime: undefined,
    };
  }
  if (schema !== undefined && typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    return { choice: invalid(`${where}.schema must be a JSON Schema (an object)`), mime: undefined };
  }
  if (schema !== undefined && mime === TEXT_MIME) {
    return {
      choice: invalid(`${where} has a schema but mime_type "${TEXT_MIME}"; a schema needs mime_type "${JSON_MIME}"`),
      mime: undefined,
    };
  }
  // [choice] A schema without a mime_type means JSON: it can mean nothing else.
  if (mime === JSON_MIME || schema !== undefined) {
    const json: ResponseFormatChoice = { kind: "json", where: `${where}.schema` };
    if (schema !== undefined) json.schema = schema as Record<string, unknown> | boolean;
    return { choice: json, mime: mime as string | undefined };
  }
  return { choice: { kind: "text" }, mime: mime as string | undefined };
}

/** The deprecated `response_modalities`: only text can be emulated. */
function checkModalities(modalities: unknown): ResponseFormatChoice | undefined {
  if (modalities === undefined || modalities === null) return undefined;
  if (!Array.isArray(modalities)) return invalid('response_modalities must be a list like ["text"]');
  const other = modalities.find((modality) => typeof modality !== "string" || modality.toLowerCase() !== "text");
  if (other === undefined) return undefined;
  return invalid(`response_modalities asks for ${JSON.stringify(other)}: ${MEDIA_REFUSAL}`);
}

function invalid(message: string): { kind: "invalid"; message: string } {
  return { kind: "invalid", message };
}
