// How deeply a JSON request body may nest. JSON.parse accepts any depth, but everything after it that
// walks the value recursively (zod, JSON.stringify when the request is echoed and stored, structured
// clones) overflows the stack at a few thousand levels: a 40 KB body of nested arrays was a 500. The
// body is refused at the edge instead, as a 400, like Google's APIs refuse messages nested past the
// protobuf limit of 100.

import type { NextFunction, Request, Response } from "express";
import { InvalidArgumentError } from "../common/errors.js";

export const MAX_JSON_DEPTH = 100;

/** The nesting depth of a parsed JSON value (a scalar is 0, `[]` and `{}` are 1), stopping past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  if (typeof value !== "object" || value === null) return 0;
  // Depth first with an explicit stack of the containers on the current path: no recursion (the point
  // is to measure values too deep for it), and memory bounded by the depth, not by the body's width.
  const path: Array<{ items: unknown[]; next: number }> = [{ items: childrenOf(value), next: 0 }];
  let deepest = 1;
  while (path.length > 0) {
    const frame = path[path.length - 1]!;
    if (frame.next >= frame.items.length) {
      path.pop();
      continue;
    }
    const child = frame.items[frame.next++];
    if (typeof child !== "object" || child === null) continue;
    path.push({ items: childrenOf(child), next: 0 });
    if (path.length > deepest) deepest = path.length;
    if (deepest > limit) return deepest;
  }
  return deepest;
}

function childrenOf(container: object): unknown[] {
  return Array.isArray(container) ? container : Object.values(container);
}

/** Express middleware, after the JSON parser: a body nested deeper than MAX_JSON_DEPTH is a 400. */
export function refuseDeepJson(req: Request, _res: Response, next: NextFunction): void {
  if (jsonDepth(req.body) > MAX_JSON_DEPTH) {
    next(
      new InvalidArgumentError(
        `Request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; no field of this API needs more than a few.`,
      ),
    );
    return;
  }
  next();
}
