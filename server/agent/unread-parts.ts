// The parts of the input the emulated agent cannot read (docs/api.md#whole-inputs). It reads only text;
// images, audio, documents and videos are kept verbatim in the user_input step, and the answer names
// them in one deterministic sentence, so a test (or a person) sees that they arrived and were not
// looked at, instead of an answer that says the message was empty.

/** One part of the input that is not text, as the answer names it. */
export interface UnreadPart {
  /** The Content type: image, audio, document, video, or a type this emulator does not know. */
  type: string;
  mime_type?: string;
}

/** The Content types the SDK knows besides text, in the order the sentence names them. */
const KNOWN_ORDER = ["image", "audio", "document", "video"];
const NOUNS: Record<string, [string, string]> = {
  image: ["image", "images"],
  audio: ["audio clip", "audio clips"],
  document: ["document", "documents"],
  video: ["video", "videos"],
};
const NO_MIME_TYPE = "no MIME type";

/**
 * "I could not read 2 images (image/png, image/jpeg) and 1 document (application/pdf): the emulated
 * agent reads only the text of the input." Kinds in a fixed order (image, audio, document, video, then
 * other types as they first appear), each with its count and its distinct MIME types as they first
 * appear. Empty when every part was text.
 */
export function unreadSentence(parts: readonly UnreadPart[]): string {
  if (parts.length === 0) return "";
  const groups = new Map<string, { count: number; mimeTypes: string[] }>();
  for (const type of KNOWN_ORDER) groups.set(type, { count: 0, mimeTypes: [] });
  for (const part of parts) {
    const group = groups.get(part.type) ?? { count: 0, mimeTypes: [] };
    groups.set(part.type, group);
    group.count++;
    const mimeType = part.mime_type ?? NO_MIME_TYPE;
    if (!group.mimeTypes.includes(mimeType)) group.mimeTypes.push(mimeType);
  }
  const phrases = [...groups]
    .filter(([, group]) => group.count > 0)
    .map(([type, group]) => `${group.count} ${noun(type, group.count)} (${group.mimeTypes.join(", ")})`);
  return `I could not read ${joinAsList(phrases)}: the emulated agent reads only the text of the input.`;
}

/** What the agent says of an input that had no text at all, only parts it cannot read. */
export function unreadOnlySentence(parts: readonly UnreadPart[]): string {
  return `Your message had no text for the emulated agent to read. ${unreadSentence(parts)}`;
}

/** `answer` followed by the sentence about the unread parts, as its last paragraph (when there are any). */
export function withUnreadParts(answer: string, parts: readonly UnreadPart[] | undefined): string {
  if (!parts || parts.length === 0) return answer;
  return `${answer}\n\n${unreadSentence(parts)}`;
}

function noun(type: string, count: number): string {
  const known = NOUNS[type];
  if (known) return count === 1 ? known[0] : known[1];
  return `${count === 1 ? "part" : "parts"} of type ${JSON.stringify(type)}`;
}

function joinAsList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
