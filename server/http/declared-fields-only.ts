// The first check of a request body, before its zod parse: every field must be one the pinned SDK's
// types declare for that request (api/declared-fields.ts). An unknown one is refused as Google's APIs
// refuse it, word for word, every such field listed in one 400 (code `parameter_unknown`) with a
// google.rpc.BadRequest detail:
//   Invalid JSON payload received. Unknown name "toolz": Cannot find field.
//   Invalid JSON payload received. Unknown name "x" at 'environment.sources[0]': Cannot find field.
// With EMULATOR_LOOSE=true the fields are let through and named in one warning line per request instead,
// for clients newer than the pinned SDK.

import type { NextFunction, Request, Response } from "express";
import { type RequestName, type UnknownField, unknownFieldsInSlices } from "../api/declared-fields.js";
import { type FieldViolation, FieldViolationsError } from "../common/errors.js";

export interface DeclaredFieldsPolicy {
  /** EMULATOR_LOOSE: warn instead of refusing. */
  loose: boolean;
  /** Where a loose emulator's warnings go (the log). */
  warn?: (line: string) => void;
}

export function declaredFieldsOnly(request: RequestName, policy: DeclaredFieldsPolicy) {
  const answer = unknownFieldsAnswer(policy);
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const body: unknown = req.body;
    // Not an object: the route's own check says what the body must be.
    if (typeof body !== "object" || body === null || Array.isArray(body)) return next();
    // In slices: a body of millions of small objects must not hold the event loop while it is checked.
    answer(req, await unknownFieldsInSlices(request, body), next);
  };
}

/**
 * What a request holding `unknown` fields gets: nothing when there are none; a 400 in Google's words;
 * or with EMULATOR_LOOSE one warning line naming them, and the body let through (`drop` first, when
 * the route's schema would refuse them).
 */
function unknownFieldsAnswer(policy: DeclaredFieldsPolicy) {
  const warn = policy.warn ?? ((line: string) => console.warn(line));
  return (req: Request, unknown: UnknownField[], next: NextFunction, drop?: () => void): void => {
    if (unknown.length === 0) return next();
    if (policy.loose) {
      warn(
        `EMULATOR_LOOSE: ${req.method} ${req.originalUrl.split("?")[0]} holds fields the SDK does not declare, ignored: ${unknown.map(describeField).join(", ")}`,
      );
      drop?.();
      return next();
    }
    next(new FieldViolationsError(unknown.map(violationOf), "parameter_unknown"));
  };
}

/** Google's wording for a field its API does not have. */
export function violationOf(field: UnknownField): FieldViolation {
  const where = field.at === "" ? "" : ` at '${field.at}'`;
  // The suggestion as the credentials page's error example words it ("Did you mean 'header_name'?").
  const hint = field.suggestion ? ` Did you mean '${field.suggestion}'?` : "";
  const description = `Invalid JSON payload received. Unknown name ${JSON.stringify(field.name)}${where}: Cannot find field.${hint}`;
  return field.at === "" ? { description } : { field: field.at, description };
}

function describeField(field: UnknownField): string {
  return field.at === "" ? JSON.stringify(field.name) : `${JSON.stringify(field.name)} at '${field.at}'`;
}

/**
 * For a request that declares no fields at all (PingWebhook, RunTrigger): each field its body holds is
 * unknown, refused as declaredFieldsOnly refuses one (the first 100 named), or with EMULATOR_LOOSE=true
 * named in the same warning line and dropped. What else the body must be is its schema's to say.
 */
export function noFieldsDeclared(policy: DeclaredFieldsPolicy) {
  const answer = unknownFieldsAnswer(policy);
  return (req: Request, _res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    const names = typeof body === "object" && body !== null && !Array.isArray(body) ? Object.keys(body).slice(0, 100) : [];
    answer(
      req,
      names.map((name) => ({ name, at: "" })),
      next,
      () => {
        req.body = {};
      },
    );
  };
}
