// A trigger's schedule: standard five-field cron read by croner (a maintained library, not a parser
// of our own) in an IANA time zone. Each next run is computed from the previous *scheduled* time,
// never from now, so a test that moves the clock ten minutes sees a */5 trigger fire exactly twice.

import { Cron } from "croner";

/** Why `timeZone` is not an IANA name the runtime knows, or null when it is. */
export function whyNotTimeZone(timeZone: string): string | null {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return null;
  } catch {
    return `"${timeZone}" is not an IANA time zone name; use one such as "UTC", "Europe/Berlin" or "America/New_York"`;
  }
}

/**
 * Why `schedule` is not a standard cron expression, or null when it is. [choice] Standard cron has
 * five fields (minute hour day-of-month month day-of-week) or a nickname (@hourly, @daily, …); croner
 * would also take a seconds and a year field, which the service's "standard cron format" does not.
 */
export function whyNotSchedule(schedule: string): string | null {
  const trimmed = schedule.trim();
  if (!trimmed.startsWith("@") && trimmed.split(/\s+/).length !== 5) {
    return `"${schedule}" is not standard cron: give five fields (minute hour day-of-month month day-of-week), e.g. "*/5 * * * *", or a nickname such as "@hourly"`;
  }
  let cron: Cron;
  try {
    cron = cronOf(trimmed, "UTC");
  } catch (error) {
    return `"${schedule}" is not a valid cron schedule: ${(error as Error).message}`;
  }
  // A date that never comes (February 30, April 31) parses, but a trigger on it would be active and
  // never run. [choice] Standard cron has no year field, so no run after now means no run ever.
  if (cron.nextRun(new Date()) === null) {
    return `"${schedule}" names no date that ever comes (such as February 30 or April 31), so the trigger would never run; give a day that exists in the month, e.g. "0 0 28 2 *" or "0 0 L 2 *" for the last day of February`;
  }
  return null;
}

/** The first time after `afterMs` (ms since the epoch) the schedule names in the time zone; null if none. */
export function nextRunAfter(schedule: string, timeZone: string, afterMs: number): number | null {
  const next = cronOf(schedule.trim(), timeZone).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

function cronOf(schedule: string, timeZone: string): Cron {
  // paused: only asked for times, never left running a timer of its own (the emulator's clock decides).
  return new Cron(schedule, { timezone: timeZone, paused: true });
}
