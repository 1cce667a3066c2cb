// EMULATOR_CONTRACT_CHECK=true (docs/testing.md#the-openapi-document-as-a-contract): every JSON answer,
// error body and stream event of the API is checked against the service's OpenAPI document
// (contract-document.ts) before it leaves. A body that violates it is not sent: a JSON answer becomes a
// `500` whose error code is `contract_violation`, naming the schema, the place in the body and the value
// found there; a stream event becomes a last `error` event saying the same, and the stream ends there
// without `data: [DONE]`. Either way the client (a test) sees a failure it cannot take for the
// emulator's answer, the violation goes to stderr, and /health counts it.
//
// What is not checked: the emulator's own routes (/emulator/…, /health, /ui, /schemas), bodies that are
// not JSON (an environment file's bytes, a tar), answers the document declares without a body (DELETE
// /interactions/{id}, the upload start), the success answers of operations the document lacks (the
// upload's finalize, GET /files/environment-{id}:download), and a JSON answer larger than
// CHECKED_BODY_BYTES, which goes out unchecked (counted in /health) rather than held in memory whole.

import type { NextFunction, Request, Response } from "express";
import { VERSION_SEGMENT } from "./base-path.js";
import { type BodySchema, contractDocument, type ContractDocument, type Operation, type Violation } from "./contract-document.js";

/** The largest JSON answer (or one stream event) held back to be checked; a larger one is let through unchecked. */
export const CHECKED_BODY_BYTES = 8 * 1024 * 1024;

export interface ContractCounts {
  violations: number;
  /** Bodies past CHECKED_BODY_BYTES, let through unchecked. */
  unchecked_large: number;
}

export interface ContractCheck {
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  counts(): ContractCounts;
}

export function contractCheck(options: { log?: (line: string) => void; document?: () => ContractDocument } = {}): ContractCheck {
  const log = options.log ?? ((line: string) => console.error(line));
  const documentOf = options.document ?? contractDocument;
  const counts: ContractCounts = { violations: 0, unchecked_large: 0 };
  const report = (req: Request, what: string, violation: Violation): string => {
    counts.violations += 1;
    const text =
      `${what} of ${req.method} ${req.originalUrl.split("?")[0]} violates the service's OpenAPI document: ` +
      `at ${violation.instancePath || "the top"} ${violation.message}, found ${preview(violation.value)} (schema ${violation.schema})`;
    log(`contract violation: ${text}`);
    return text;
  };
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const pathname = req.url.split("?")[0] ?? "";
    if (!isApiPath(pathname)) return next();
    const document = documentOf();
    const operation = document.operationFor(req.method, pathname);
    intercept(req, res, document, operation, {
      onViolation: (what, violation) => report(req, what, violation),
      onTooLarge: () => {
        counts.unchecked_large += 1;
      },
    });
    next();
  };
  return { middleware, counts: () => ({ ...counts }) };
}

/** /{version}/… and /upload/{version}/…: the service's API (the emulator's own routes are elsewhere). */
function isApiPath(pathname: string): boolean {
  const segments = pathname.split("/");
  const version = segments[1] === "upload" ? segments[2] : segments[1];
  return VERSION_SEGMENT.test(version ?? "");
}

interface Hooks {
  onViolation(what: string, violation: Violation): string;
  onTooLarge(): void;
}

type WriteCallback = (error?: Error | null) => void;

/** Wraps res.write and res.end so that each JSON answer, and each event of a stream, is checked before it goes out. */
function intercept(req: Request, res: Response, document: ContractDocument, operation: Operation | null, hooks: Hooks): void {
  const write = res.write.bind(res) as (chunk: unknown, encoding?: BufferEncoding, callback?: WriteCallback) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, encoding?: BufferEncoding, callback?: () => void) => Response;
  let mode: "undecided" | "pass" | "json" | "stream" = "undecided";
  let schema: BodySchema | null = null;
  let sentinel: string | null = null;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let broken = false;

  const decide = () => {
    if (mode !== "undecided") return;
    const media = String(res.getHeader("content-type") ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    schema = media === "application/json" || media === "text/event-stream" ? document.schemaFor(operation, res.statusCode, media) : null;
    if (schema === null) mode = "pass";
    else if (media === "text/event-stream") {
      mode = "stream";
      sentinel = operation ? document.streamSentinel(operation) : null;
    } else mode = "json";
  };
  const hold = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === undefined || chunk === null) return;
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string | Uint8Array as string, encoding);
    held.push(buffer);
    heldBytes += buffer.length;
  };
  const release = (): Buffer => {
    const all = Buffer.concat(held);
    held = [];
    heldBytes = 0;
    return all;
  };
  /** The complete frames held (up to the last blank line), checked: what may go out, or null on a violation (then the stream is ended). */
  const takeFrames = (): Buffer | null => {
    const all = release();
    // Cut on the bytes, not on decoded text: a character split between two writes stays whole.
    const cut = all.lastIndexOf("\n\n");
    if (cut === -1) {
      hold(all);
      return Buffer.alloc(0);
    }
    if (cut + 2 < all.length) hold(all.subarray(cut + 2));
    const frames = all.subarray(0, cut + 2).toString("utf8");
    let checkedUpTo = 0;
    for (const frame of frames.split("\n\n")) {
      const violation = checkFrame(frame);
      if (violation !== null) {
        const message = hooks.onViolation("a stream event", violation);
        broken = true;
        const error = { event_type: "error", error: { code: "contract_violation", message } };
        // Ended here (not destroyed, which would drop the frame): the writer's next event finds the response ended.
        end(Buffer.from(`${frames.slice(0, checkedUpTo)}event: error\ndata: ${JSON.stringify(error)}\n\n`));
        return null;
      }
      checkedUpTo += frame.length + 2;
    }
    return Buffer.from(frames);
  };
  const checkFrame = (frame: string): Violation | null => {
    const data = frame
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "" || data === sentinel) return null;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return { schema: "text/event-stream", instancePath: "", keyword: "json", message: "is not JSON", value: data.slice(0, 200) };
    }
    return document.check(schema!, event);
  };

  res.write = ((chunk: unknown, encodingOrCallback?: BufferEncoding | WriteCallback, maybeCallback?: WriteCallback): boolean => {
    const encoding = typeof encodingOrCallback === "string" ? encodingOrCallback : undefined;
    const callback = typeof encodingOrCallback === "function" ? encodingOrCallback : maybeCallback;
    decide();
    if (broken) return false;
    if (mode === "pass") return write(chunk, encoding, callback);
    hold(chunk, encoding);
    if (heldBytes > CHECKED_BODY_BYTES) {
      // Too large to hold: out unchecked from here on.
      hooks.onTooLarge();
      mode = "pass";
      return write(release(), undefined, callback);
    }
    if (mode === "stream") {
      const out = takeFrames();
      if (out === null) return false;
      if (out.length > 0) return write(out, undefined, callback);
    }
    if (callback) process.nextTick(callback);
    return true;
  }) as Response["write"];

  res.end = ((chunk?: unknown, encodingOrCallback?: BufferEncoding | (() => void), maybeCallback?: () => void): Response => {
    const last = typeof chunk === "function" ? undefined : chunk;
    const encoding = typeof encodingOrCallback === "string" ? encodingOrCallback : undefined;
    const callback =
      typeof chunk === "function" ? (chunk as () => void) : typeof encodingOrCallback === "function" ? encodingOrCallback : maybeCallback;
    decide();
    if (broken) return res;
    if (mode === "pass") return end(last, encoding, callback);
    hold(last, encoding);
    if (mode === "stream") {
      const out = takeFrames();
      if (out === null) return res;
      return end(Buffer.concat([out, release()]), undefined, callback);
    }
    const body = release();
    const violation = checkJson(body);
    if (violation === null || res.headersSent) return end(body, undefined, callback);
    const message = hooks.onViolation(
      res.statusCode >= 400 ? `the ${res.statusCode} error body` : `the ${res.statusCode} answer`,
      violation,
    );
    const replacement = Buffer.from(JSON.stringify({ error: { code: "contract_violation", message, status: "INTERNAL" } }));
    res.statusCode = 500;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", String(replacement.length));
    return end(replacement, undefined, callback);
  }) as Response["end"];

  const checkJson = (body: Buffer): Violation | null => {
    if (req.method === "HEAD" || body.length === 0) return null;
    let value: unknown;
    try {
      value = JSON.parse(body.toString("utf8"));
    } catch {
      return {
        schema: "application/json",
        instancePath: "",
        keyword: "json",
        message: "is not JSON",
        value: body.subarray(0, 200).toString("utf8"),
      };
    }
    return document.check(schema!, value);
  };
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
