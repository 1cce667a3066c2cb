// [choice] When a failed delivery is tried again: exponential backoff from one minute, doubling, at
// most four hours apart, for 24 hours of the emulator's clock after the first attempt; the last retry
// falls on the 24-hour mark, and a failure then is final. (So 14 attempts in all: at 0, 1, 3, 7, 15,
// 31, 63, 127 and 255 minutes, then every four hours, and at 24 h.)

export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const FIRST_DELAY_MS = 60 * 1000;
const MAX_DELAY_MS = 4 * 60 * 60 * 1000;

/**
 * When the attempt after `attemptsMade` failed ones is due, given when the last one was due; null
 * when the window is over.
 */
export function nextAttemptAt(firstAttemptMs: number, attemptsMade: number, lastDueMs: number, windowMs = RETRY_WINDOW_MS): number | null {
  const deadline = firstAttemptMs + windowMs;
  if (lastDueMs >= deadline) return null;
  const delay = Math.min(FIRST_DELAY_MS * 2 ** Math.max(0, attemptsMade - 1), MAX_DELAY_MS);
  return Math.min(lastDueMs + delay, deadline);
}
