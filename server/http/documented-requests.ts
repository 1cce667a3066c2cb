// Every JSON request body of an operation the service's OpenAPI document declares is checked against
// the document's request schema (its defects patched: contract-document.ts) before the route reads it:
// a body the document refuses is a 400 (`invalid_request`) that names the field and what the document
// expects there (request-problem.ts), as the service refuses it. This runs after the unknown-field check
// (declared-fields-only.ts), which keeps its own wording, and before the routes' zod schemas, which keep
// the emulator's deliberate stricter rules (schemas/interactions.requests.exceptions.json lists each).
// The document is compiled on the first request that needs it, once per process. With EMULATOR_LOOSE=true
// a body the document refuses is let through to the route's own checks and named in one warning line.

import type { NextFunction, Request, Response } from "express";
import { InvalidArgumentError } from "../common/errors.js";
import { type ContractDocument, requestDocument } from "./contract-document.js";
import { requestProblem } from "./request-problem.js";

export interface DocumentedRequestsPolicy {
  /** EMULATOR_LOOSE: warn instead of refusing. */
  loose: boolean;
  /** Where a loose emulator's warnings go (the log). */
  warn?: (line: string) => void;
  document?: () => ContractDocument;
}

const WITH_BODY = new Set(["POST", "PATCH", "PUT"]);

export function documentedRequests(policy: DocumentedRequestsPolicy) {
  const warn = policy.warn ?? ((line: string) => console.warn(line));
  const documentOf = policy.document ?? requestDocument;
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!WITH_BODY.has(req.method) || req.body === undefined) return next();
    const document = documentOf();
    const operation = document.operationFor(req.method, `${req.baseUrl}${req.path}`);
    const whole = operation ? document.requestSchemaFor(operation.name) : null;
    // A body that is no JSON object, and an interaction that names neither or both of agent and model,
    // are the route's to refuse: its own messages say what to give (`agent or model is required`).
    if (!whole || !isObject(req.body)) return next();
    const schema = document.requestSchemaForBody(whole, req.body);
    if (!schema) return next();
    const problem = requestProblem(document, schema, req.body);
    if (!problem) return next();
    const text = problem.field === "" ? problem.message : `${problem.field}: ${problem.message}`;
    if (policy.loose) {
      warn(`EMULATOR_LOOSE: ${req.method} ${req.originalUrl.split("?")[0]} does not follow the service's OpenAPI document: ${text}`);
      return next();
    }
    next(new InvalidArgumentError(`Invalid request: ${text}`));
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
