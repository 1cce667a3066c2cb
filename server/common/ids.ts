import { createHash, randomBytes } from "node:crypto";

// 120 random bits, base32-ish lower case: unguessable (the spec asks for at least 96) and safe in
// URLs, container labels and file names.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

function randomToken(length = 24): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

export const newInteractionId = (): string => `int_${randomToken()}`;
export const newEnvironmentId = (): string => `env_${randomToken()}`;
export const newCallId = (): string => `call_${randomToken(16)}`;

/** API keys are never stored; resources are owned by a hash of the key. */
export function ownerOf(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 32);
}
