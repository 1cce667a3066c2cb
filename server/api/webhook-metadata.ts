// The size bound of an interaction's webhook_config.user_metadata (EMULATOR_WEBHOOK_METADATA_BYTES):
// it goes out whole in the payload of every delivery of the interaction's end (up to 20 URIs, or every
// subscribed webhook of the key) and of each retry, so it is refused at creation past the bound rather
// than copied and sent without one.

import { InvalidArgumentError } from "../common/errors.js";

/**
 * Refuses (400 naming the field, its size and the setting) a user_metadata larger than `maxBytes` as JSON:
 * an interaction's, or (with `at` "interaction.") the interaction a trigger will create on every run.
 */
export function checkWebhookMetadata(request: { webhook_config?: { user_metadata?: unknown } }, maxBytes: number, at = ""): void {
  const metadata = request.webhook_config?.user_metadata;
  if (metadata === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (bytes > maxBytes) {
    throw new InvalidArgumentError(
      `${at}webhook_config.user_metadata is ${bytes} bytes of JSON, more than the ${maxBytes} this emulator sends with each webhook event (EMULATOR_WEBHOOK_METADATA_BYTES); keep identifiers there and fetch the rest when the event arrives.`,
    );
  }
}
