// The secrets of a state snapshot, sealed with the caller's passphrase: scrypt derives a key from it
// and a random salt, AES-256-GCM encrypts and authenticates. A wrong passphrase (or a changed byte)
// fails the authentication tag, so it is told apart from a readable file and nothing is guessed.
// Layout: MAGIC | salt (16) | iv (12) | tag (16) | ciphertext.
//
// scrypt is slow on purpose (about 0.1 s and 32 MiB each), so it runs on libuv's thread pool, never
// on the event loop, and only `KeyDerivations.concurrent` at once (docs/security.md#limits): sixteen
// exports at once held /health for a second when each derived its key on the event loop (issue 29).

import { createCipheriv, createDecipheriv, randomBytes, scrypt } from "node:crypto";
import { ResourceExhaustedError } from "../common/errors.js";

const MAGIC = Buffer.from("IESB1");
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** [choice] scrypt's N = 2^15 (32 MiB, about 0.1 s): slows guessing; maxmem leaves room for it. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
/** Derivations that may wait for a turn, per one that may run: past it a request is refused at once. */
const WAITING_PER_RUNNING = 16;

export class WrongPassphraseError extends Error {}
export class SealedDataError extends Error {}

/** Bounds the key derivations running at once (EMULATOR_STATE_KEY_DERIVATIONS) and those waiting. */
export class KeyDerivations {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly concurrent: number) {}

  async derive(passphrase: string, salt: Buffer): Promise<Buffer> {
    if (this.running >= this.concurrent) {
      if (this.waiting.length >= this.concurrent * WAITING_PER_RUNNING) {
        throw new ResourceExhaustedError(
          `${this.concurrent} passphrase key derivations are running and ${this.waiting.length} wait (EMULATOR_STATE_KEY_DERIVATIONS = ${this.concurrent}); try the export or import again shortly.`,
        );
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running += 1;
    try {
      return await new Promise<Buffer>((resolve, reject) =>
        scrypt(passphrase.normalize("NFC"), salt, 32, SCRYPT, (error, key) => (error ? reject(error) : resolve(key))),
      );
    } finally {
      // The turn passes straight to the next waiting derivation (running stays counted), or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

export async function seal(plaintext: Buffer, passphrase: string, derivations: KeyDerivations): Promise<Buffer> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", await derivations.derive(passphrase, salt), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([MAGIC, salt, iv, cipher.getAuthTag(), ciphertext]);
}

export async function unseal(sealed: Buffer, passphrase: string, derivations: KeyDerivations): Promise<Buffer> {
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
  const decipher = createDecipheriv("aes-256-gcm", await derivations.derive(passphrase, salt), iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(offset)), decipher.final()]);
  } catch {
    throw new WrongPassphraseError("the passphrase does not open the file's secrets (or they were changed)");
  }
}
