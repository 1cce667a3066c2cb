// Signing secrets in the Standard Webhooks form the `standardwebhooks` library reads: "whsec_" and the
// base64 of random key bytes. The whole secret is shown once (at creation, at rotation); after that
// only a truncated form, enough to tell secrets apart.

import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** 32 random bytes: the HMAC-SHA256 key, as long as its output. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** "whsec_AbCd…wXyZ": the prefix, four characters of each end. */
export function truncateSecret(secret: string): string {
  const key = secret.slice("whsec_".length);
  return `whsec_${key.slice(0, 4)}…${key.slice(-4)}`;
}

/**
 * The webhook-signature header's value: one "v1,<base64 HMAC>" per secret, space-separated, so a
 * receiver that knows any of them (old or new, during a rotation's overlap) verifies the delivery.
 */
export function signatureHeader(secrets: readonly string[], messageId: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(" ");
}
