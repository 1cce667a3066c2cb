// What travels in each direction, as checked values: requests (server → executor) are parsed against
// the operations table; responses (executor → server) against the message table below. Requests may
// be answered out of order; every request ends with exactly one terminal message (`result`, `exit` or
// `error`) carrying its id, after any `started`, `stdout` or `stderr` message of an exec, or the
// `reads` message of a file operation that asked to read files after it.

import { checkField, isPlainObject, type Checked } from "./protocol-check.js";
import * as field from "./protocol-fields.js";
import type { TypeOf } from "./protocol-fields.js";
import { MAX_READ_FILES } from "./protocol-constants.js";
import { readFilesEntry, requestHeader, requestId, resultCarriesBody, resultPayload, type Request } from "./protocol-operations.js";

export const responseMessage = field.taggedUnion(
  "type",
  {
    /** Streamed output of an exec; the frame body holds the bytes. */
    stdout: field.object({}),
    stderr: field.object({}),
    /** An exec with readBefore found its files unchanged and starts its command: before any output. */
    started: field.object({}),
    exit: field.object(
      {
        /** null when the process was killed by a signal. */
        exitCode: field.nullable(field.integer(0, 255)),
        signal: field.nullable(field.string({ nonEmpty: true })),
        timedOut: field.boolean,
        cancelled: field.boolean,
        /** Killed because the sandbox's files passed its disk limit in total (the executor's disk guard). */
        overDiskLimit: field.boolean,
        /** Total bytes the process wrote, including what was dropped past maxOutputBytes. */
        stdoutBytes: field.nonNegativeInteger,
        stderrBytes: field.nonNegativeInteger,
        durationMs: field.nonNegativeInteger,
        /** The exec's readAfter files as read once the command had ended; the frame body holds their contents. */
        reads: field.optional(field.array(readFilesEntry, { maxItems: MAX_READ_FILES })),
      },
      // A process either exits with a code or is killed by a signal, never both or neither.
      (exit) => ((exit.exitCode === null) === (exit.signal === null) ? "exactly one of exitCode and signal must be null" : null),
    ),
    /**
     * A file operation's readAfter files as read once it had ended (done or failed), before its result
     * or error; the frame body holds their contents. Absent when they could not be read.
     */
    reads: field.object({ reads: field.array(readFilesEntry, { maxItems: MAX_READ_FILES }) }),
    result: field.object({ result: resultPayload }),
    /** A request that failed. `code` is an errno-style code (ENOENT, EISDIR, EACCES, …) or EBADREQ. */
    error: field.object({ code: field.text, message: field.text }),
  },
  { common: { id: requestId } },
);

export type Response = TypeOf<typeof responseMessage>;
export type OutputMessage = Extract<Response, { type: "stdout" | "stderr" }>;
export type StartedMessage = Extract<Response, { type: "started" }>;
export type ExitMessage = Extract<Response, { type: "exit" }>;
export type ReadsMessage = Extract<Response, { type: "reads" }>;
export type ResultMessage = Extract<Response, { type: "result" }>;
export type ErrorMessage = Extract<Response, { type: "error" }>;

export type ParsedRequest = { ok: true; request: Request } | { ok: false; id: number | null; message: string };

/**
 * Turns a decoded frame header into a typed request. The executor trusts the server, but a bug there
 * must produce an EBADREQ answer (hence the id, when there is a usable one) rather than a crash that
 * takes every running command down with it.
 */
export function parseRequest(header: unknown): ParsedRequest {
  if (!isPlainObject(header)) return { ok: false, id: null, message: "frame header is not a JSON object" };
  const id = checkField(requestId, header["id"]);
  if (!id.ok) return { ok: false, id: null, message: "frame header has no valid id" };
  const checked = checkField(requestHeader, header, "frame header");
  return checked.ok ? { ok: true, request: checked.value } : { ok: false, id: id.value, message: checked.problem };
}

/** The response a frame header holds, or what is wrong with it. The server runs it on everything the executor sends. */
export function checkResponse(header: unknown): Checked<Response> {
  return checkField(responseMessage, header, "frame header");
}

/** Whether the frame carrying this message may have a body: output, and the results the table says carry one. */
export function responseCarriesBody(message: Response): boolean {
  switch (message.type) {
    case "stdout":
    case "stderr":
      return true;
    case "result":
      return resultCarriesBody(message.result.op);
    case "exit":
      return message.reads !== undefined;
    case "reads":
      return true;
    case "started":
    case "error":
      return false;
  }
}
