// The secrets of a state snapshot, sealed with the caller's passphrase: scrypt derives a key from it
// and a random salt, AES-256-GCM encrypts and authenticates. A wrong passphrase (or a changed byte)
// fails the authentication tag, so it is told apart from a readable file and nothing is guessed.
// Layout: MAGIC | salt (16) | iv (12) | tag (16) | ciphertext.

import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";

const MAGIC = Buffer.from("IESB1");
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** [choice] scrypt's N = 2^15 (32 MiB, about 0.1 s): slows guessing; maxmem leaves room for it. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export class WrongPassphraseError extends Error {}
export class SealedDataError extends Error {}

function keyFrom(passphrase: string, salt: Buffer): Buffer {
  return scryptSync(passphrase.normalize("NFC"), salt, 32, SCRYPT);
}

export function seal(plaintext: Buffer, passphrase: string): Buffer {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFrom(passphrase, salt), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([MAGIC, salt, iv, cipher.getAuthTag(), ciphertext]);
}

export function unseal(sealed: Buffer, passphrase: string): Buffer {
  const header = MAGIC.length + SALT_BYTES + IV_BYTES + TAG_BYTES;
  if (sealed.length < header || !sealed.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SealedDataError("the sealed secrets are not in the format this emulator writes");
  }
  const saltAt = MAGIC.length;
  const ivAt = saltAt + SALT_BYTES;
  const tagAt = ivAt + IV_BYTES;
  const offset = tagAt + TAG_BYTES;
  const salt = sealed.subarray(saltAt, ivAt);
  const iv = sealed.subarray(ivAt, tagAt);
  const tag = sealed.subarray(tagAt, offset);
  const decipher = createDecipheriv("aes-256-gcm", keyFrom(passphrase, salt), iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(offset)), decipher.final()]);
  } catch {
    throw new WrongPassphraseError("the passphrase does not open the file's secrets (or they were changed)");
  }
}
