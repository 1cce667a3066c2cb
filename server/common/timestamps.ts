/** The API's timestamp form: ISO-8601 UTC to the second, e.g. 2026-01-01T00:00:00Z. */
export function nowTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
