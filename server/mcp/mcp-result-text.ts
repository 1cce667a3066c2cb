// The text a result step records for an MCP tool's answer (CallToolResult). [choice] The result is
// always a string, like every other result step of this emulator, so a test compares it directly:
// text content verbatim, one block per line; other content (images, audio, resources) named in
// brackets with its type and size; `structuredContent` as JSON when the tool sent no content at all.
// The text is capped like a sandbox tool's output.

/** A content block as MCP servers send it; only the fields this file reads. */
interface ContentBlock {
  type: string;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
}

export interface CallToolAnswer {
  content?: unknown;
  structuredContent?: unknown;
  /** The answer of a server of the protocol's first version (2024-10-07), which the SDK still accepts. */
  toolResult?: unknown;
  isError?: unknown;
}

export function resultText(answer: CallToolAnswer): string {
  const blocks = Array.isArray(answer.content) ? (answer.content as ContentBlock[]) : [];
  if (blocks.length === 0) {
    const data = answer.structuredContent ?? answer.toolResult;
    return data === undefined ? "" : JSON.stringify(data);
  }
  return blocks.map(describeBlock).join("\n");
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio":
      return `[${block.type}: ${String(block.mimeType ?? "unknown type")}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${String(block.name ?? "")} ${String(block.uri ?? "")}]`;
    case "resource": {
      const resource = block.resource ?? {};
      if (typeof resource.text === "string") return resource.text;
      return `[resource: ${String(resource.uri ?? "")}, ${String(resource.mimeType ?? "unknown type")}, ${base64Bytes(resource.blob)} bytes]`;
    }
    default:
      return `[${String(block.type)} content]`;
  }
}

/** The decoded size of base64 text, without decoding it. */
function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.replace(/\s/g, "").length * 3) / 4) - padding);
}

/** At most `maxBytes` of the text (UTF-8), with a note saying how much there was. */
export function capResultText(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= maxBytes) return text;
  const whole = Buffer.from(text, "utf8");
  // Step back over continuation bytes so a character is never cut in half.
  let end = maxBytes;
  while (end > 0 && ((whole[end] ?? 0) & 0xc0) === 0x80) end--;
  const kept = whole.subarray(0, end);
  return `${kept.toString("utf8")}\n[truncated: kept ${kept.length} of ${bytes} bytes]`;
}
