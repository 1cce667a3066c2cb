// Checks that a string is base64, for the request fields that carry bytes as base64 text (inline
// sources, the `data` of an input's image, audio, document and video parts).

/** 1 for the characters of standard base64 (A–Z, a–z, 0–9, +, /), by char code. */
const BASE64_ALPHABET = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") BASE64_ALPHABET[char.charCodeAt(0)] = 1;
const BASE64_URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Standard base64 (groups of four, the last one may be "xx==", "xxx=" or, unpadded, "xx" or "xxx"), or
 * URL-safe base64, which JSON encodings of bytes also accept. `compact` has no whitespace.
 * Checked by counting rather than by one regular expression with a repeated group, which V8 runs
 * recursively: that overflowed the stack on content of a few MiB and made a valid source a 500.
 */
export function isBase64(compact: string): boolean {
  return isStandardBase64(compact) || BASE64_URL.test(compact);
}

function isStandardBase64(compact: string): boolean {
  const padding = compact.endsWith("==") ? 2 : compact.endsWith("=") ? 1 : 0;
  const body = compact.slice(0, compact.length - padding);
  // A plain loop: several times faster than a regular expression over tens of MiB.
  for (let index = 0; index < body.length; index++) if (BASE64_ALPHABET[body.charCodeAt(index)] !== 1) return false;
  const rest = body.length % 4;
  return padding === 0 ? rest !== 1 : rest === 4 - padding;
}
