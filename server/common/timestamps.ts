/** The API's timestamp form: ISO-8601 UTC to the second, e.g. 2026-01-01T00:00:00Z. */
export function nowTimestamp(date: Date = new Date()): string {
  return isoOf(date.getTime()).replace(/\.\d{3}Z$/, "Z");
}

/** The API's timestamp form of a time in ms since the epoch (a clock's now, a scheduled time). */
export function timestampOf(ms: number): string {
  return nowTimestamp(new Date(ms));
}

/** The largest time a Date holds (year 275760), in ms since the epoch. */
const MAX_DATE_MS = 8.64e15;

/**
 * ISO-8601 with milliseconds, for any number: a time past what a Date holds is written as the nearest
 * one it does, and a non-number as the epoch, instead of throwing `RangeError: Invalid time value` in
 * the middle of storing a record (issue 29). The test clock's bound (EMULATOR_CLOCK_MAX_OFFSET_DAYS)
 * keeps every time the emulator makes far inside the range; this is the floor under it.
 */
export function isoOf(ms: number): string {
  const safe = Number.isNaN(ms) ? 0 : Math.min(Math.max(ms, -MAX_DATE_MS), MAX_DATE_MS);
  return new Date(safe).toISOString();
}
