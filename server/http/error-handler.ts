import type { NextFunction, Request, Response } from "express";
import { ApiError, InternalError, InvalidArgumentError, NotFoundError, PayloadTooLargeError } from "../common/errors.js";

/** Unknown paths answer in Google's error shape too, naming what exists (`served`: servedPaths, read when the first such request comes). */
export function notFoundHandler(served: () => readonly string[]): (req: Request, res: Response, next: NextFunction) => void {
  let list: string | undefined;
  return (req, _res, next) => {
    list ??= served().join(", ");
    next(new NotFoundError(`No route for ${req.method} ${req.path}. The emulator serves ${list}.`));
  };
}

export function errorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const apiError = toApiError(error);
  if (apiError.httpStatus >= 500) console.error("request failed:", error);
  res.status(apiError.httpStatus).type("application/json").send(JSON.stringify(apiError.toBody()));
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // body-parser's errors carry a `type` and an HTTP status.
  const parserError = error as { type?: string; status?: number; limit?: number; length?: number };
  if (parserError.type === "entity.parse.failed") return new InvalidArgumentError("Request body is not valid JSON.");
  if (parserError.type === "entity.too.large") {
    const size = typeof parserError.length === "number" && parserError.length > 0 ? `${parserError.length} bytes, ` : "";
    return new PayloadTooLargeError(
      `Request body is ${size}more than this emulator accepts (EMULATOR_MAX_BODY_BYTES = ${parserError.limit} bytes). ` +
        "Send large files with the files API's resumable upload (PUT /upload/{version}/environments/{env}/files/{path}) instead of inline sources, or raise EMULATOR_MAX_BODY_BYTES.",
    );
  }
  if (parserError.type === "encoding.unsupported" || parserError.type === "charset.unsupported") {
    return new InvalidArgumentError("Request body must be UTF-8 JSON.");
  }
  if (typeof parserError.status === "number" && parserError.status >= 400 && parserError.status < 500) {
    return new InvalidArgumentError((error as Error).message);
  }
  return new InternalError(`Internal error: ${(error as Error)?.message ?? String(error)}`);
}
