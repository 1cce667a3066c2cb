// Parsing a hooks.json once per content: before every tool call the file is read afresh, but when the
// read is the same as before (the host's token says so: same path, same bytes, same everything) its
// parse is too, and a file of many rules is not parsed and its matchers compiled again.
//
// A parse is shared by the traces of every call that read the same file; nothing changes it after
// parsing (its diagnostics are frozen, so a change would fail loudly rather than rewrite old traces).

import { createHash } from "node:crypto";
import { parseHooksFile, type ParsedHooksFile } from "./hooks-file.js";

/** Parses kept, most recently used last; a few per live environment is all that is ever reused. */
const MAX_KEPT = 256;

/** A file's parse and the SHA-256 of its text (what hook coverage names a content by). */
export interface ParsedContent {
  parsed: ParsedHooksFile;
  sha256: string;
}

const kept = new Map<string, ParsedContent>();

export function sha256Of(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** parseHooksFile(text, path) and the text's hash, reused while the token is the same; without a token, done every time. */
export function parseHooksFileOnce(text: string, path: string, token: string | undefined): ParsedContent {
  if (token === undefined) return { parsed: parseHooksFile(text, path), sha256: sha256Of(text) };
  const key = `${path}\0${token}`;
  const known = kept.get(key);
  if (known !== undefined) {
    kept.delete(key);
    kept.set(key, known);
    return known;
  }
  const parsed = parseHooksFile(text, path);
  for (const diagnostic of parsed.diagnostics) Object.freeze(Object.freeze(diagnostic).location);
  Object.freeze(parsed.diagnostics);
  const content = { parsed, sha256: sha256Of(text) };
  kept.set(key, content);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
  return content;
}
