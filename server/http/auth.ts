// Every /{version}/ route needs an API key, sent the way the SDK sends it: `x-goog-api-key`, or
// `Authorization: Bearer …` when the caller set that header. Resources are owned by the key's hash.

import type { NextFunction, Request, Response } from "express";
import { UnauthenticatedError } from "../common/errors.js";
import { ownerOf } from "../common/ids.js";

declare module "express-serve-static-core" {
  interface Request {
    owner?: string;
  }
}

export function requireApiKey(acceptedKeys: readonly string[] | null) {
  const accepted = acceptedKeys ? new Set(acceptedKeys) : null;
  return (req: Request, _res: Response, next: NextFunction): void => {
    const headerKey = req.get("x-goog-api-key")?.trim();
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get("authorization") ?? "")?.[1]?.trim();
    const key = headerKey || bearer;
    if (!key) {
      throw new UnauthenticatedError(
        "Missing API key. Send it in the x-goog-api-key header (the SDK does this from apiKey or GEMINI_API_KEY).",
      );
    }
    if (accepted && !accepted.has(key)) {
      throw new UnauthenticatedError("API key not accepted: this emulator only accepts the keys listed in EMULATOR_API_KEYS.");
    }
    req.owner = ownerOf(key);
    next();
  };
}

export function ownerOfRequest(req: Request): string {
  if (!req.owner) throw new UnauthenticatedError("Missing API key.");
  return req.owner;
}
