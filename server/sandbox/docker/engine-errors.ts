// How a failed call to the Docker engine is read. Only a 404 from an engine that answered means a
// container (or image, or volume) is gone; anything else (a refused or cut connection, a missing socket,
// a timeout, a 5xx, a conflict while the engine is busy) says nothing about the sandbox, which may well
// be fine: it is a RuntimeUnreachableError, and an environment is never given up for one.

import { RuntimeUnreachableError } from "../runtime.js";

/** dockerode's errors: an HTTP answer carries statusCode, a socket failure an errno code. */
interface EngineFailure {
  statusCode?: number;
  code?: string;
  message?: string;
}

/** The engine answered, and said the object does not exist. */
export function isGone(error: unknown): boolean {
  return (error as EngineFailure | null)?.statusCode === 404;
}

/** The failure as a RuntimeUnreachableError saying what was being done (already one: kept as it is). */
export function engineUnreachable(error: unknown, doing: string): RuntimeUnreachableError {
  if (error instanceof RuntimeUnreachableError) return error;
  const failure = (error ?? {}) as EngineFailure;
  const detail = failure.statusCode
    ? `it answered ${failure.statusCode}: ${String(failure.message ?? "").trim()}`
    : `${failure.code ? `${failure.code}: ` : ""}${failure.message ?? String(error)}`;
  return new RuntimeUnreachableError(`the Docker engine did not answer while ${doing} (${detail})`, { cause: error });
}

/** `call`, failing with a timeout (as an unanswered engine) after `ms`. */
export function withEngineTimeout<T>(call: Promise<T>, ms: number, doing: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RuntimeUnreachableError(`the Docker engine did not answer within ${Math.round(ms / 1000)} s while ${doing}`)),
      ms,
    );
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
