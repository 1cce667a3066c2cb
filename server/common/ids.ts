import { createHash, randomFillSync } from "node:crypto";

// 120 random bits, base32-ish lower case: unguessable (the spec asks for at least 96) and safe in
// URLs, container labels and file names.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/**
 * Random bytes are drawn from the system's generator 4 KiB at a time and each used once: a draw per ID
 * cost more than the rest of making it (every tool call makes one, its call's ID).
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomToken(length = 24): string {
  if (used + length > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let out = "";
  for (let index = used; index < used + length; index++) out += ALPHABET[(pool[index] as number) & 31];
  used += length;
  return out;
}

export const newInteractionId = (): string => `int_${randomToken()}`;
export const newEnvironmentId = (): string => `env_${randomToken()}`;
export const newCallId = (): string => `call_${randomToken(16)}`;

/** API keys are never stored; resources are owned by a hash of the key. */
export function ownerOf(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 32);
}
