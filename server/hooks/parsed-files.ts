// Parsing a hooks.json once per content: before every tool call the file is read afresh, but when the
// read is the same as before (the host's token says so: same path, same bytes, same everything) its
// parse is too, and a file of many rules is not parsed and its matchers compiled again.
//
// A parse is shared by the traces of every call that read the same file; nothing changes it after
// parsing (its diagnostics are frozen, so a change would fail loudly rather than rewrite old traces).

import { parseHooksFile, type ParsedHooksFile } from "./hooks-file.js";

/** Parses kept, most recently used last; a few per live environment is all that is ever reused. */
const MAX_KEPT = 256;

const kept = new Map<string, ParsedHooksFile>();

/** parseHooksFile(text, path), reused while the token is the same; without a token, parsed every time. */
export function parseHooksFileOnce(text: string, path: string, token: string | undefined): ParsedHooksFile {
  if (token === undefined) return parseHooksFile(text, path);
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
  kept.set(key, parsed);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
  return parsed;
}
