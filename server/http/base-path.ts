// The SDK keeps a path prefix of its base URL (baseUrl ".../gw/" sends /gw/v1/interactions), as a
// gateway in front of the real service would. Any prefix before the first /{version}/ segment (or
// before /upload/{version}/) is dropped, so routes see the same paths either way.

import type { NextFunction, Request, Response } from "express";

export const VERSION_SEGMENT = /^v\d+(?:(?:alpha|beta)\d*)?$/;

export function withoutBasePath(url: string): string {
  const queryAt = url.indexOf("?");
  const pathPart = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? "" : url.slice(queryAt);
  const segments = pathPart.split("/");
  const version = segments.findIndex((segment, index) => index > 0 && VERSION_SEGMENT.test(segment));
  if (version <= 1) return url;
  const start = segments[version - 1] === "upload" ? version - 1 : version;
  if (start <= 1) return url;
  return `/${segments.slice(start).join("/")}${query}`;
}

export function stripBasePath(req: Request, _res: Response, next: NextFunction): void {
  req.url = withoutBasePath(req.url);
  next();
}
