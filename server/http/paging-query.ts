// The query string of every route, read one way: the service's REST examples page with camelCase
// (`?pageSize=10&pageToken=…`, as Google's JSON APIs accept beside the proto names), the SDKs and the
// OpenAPI document with snake_case (`page_size`, `page_token`). Each camelCase name is read as its
// snake_case twin, so every list route takes both; naming one twice with different values is a 400.

import querystring from "node:querystring";
import type { NextFunction, Request, Response } from "express";
import { InvalidArgumentError } from "../common/errors.js";

/** camelCase query names and the snake_case name each stands for. */
const ALIASES: Readonly<Record<string, string>> = { pageSize: "page_size", pageToken: "page_token" };

type Query = Record<string, string | string[] | undefined>;

/** Express's "query parser": node's querystring (Express's "simple"), each alias read as its twin. */
export function parseQuery(text: string): Query {
  const query: Query = { ...querystring.parse(text) };
  for (const [alias, name] of Object.entries(ALIASES)) {
    if (query[alias] === undefined) continue;
    if (query[name] === undefined) query[name] = query[alias];
    delete query[alias];
  }
  return query;
}

/** Refuses a query that gives a value both as the camelCase and the snake_case name, unless they agree. */
export function refuseConflictingAliases(req: Request, _res: Response, next: NextFunction): void {
  const at = req.url.indexOf("?");
  if (at >= 0) {
    const raw = querystring.parse(req.url.slice(at + 1));
    for (const [alias, name] of Object.entries(ALIASES)) {
      if (raw[alias] !== undefined && raw[name] !== undefined && String(raw[alias]) !== String(raw[name])) {
        throw new InvalidArgumentError(`${alias} and ${name} name the same parameter with different values; send one of them.`);
      }
    }
  }
  next();
}
