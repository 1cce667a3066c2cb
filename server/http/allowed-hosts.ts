// DNS rebinding (docs/security.md#dns-rebinding-the-host-header). A web page cannot call the API from its
// own origin (the key header makes the browser ask first, and CORS is never allowed), unless the page's
// own name starts resolving to 127.0.0.1: then the browser takes the API for the page's own server and
// sends it the page's requests, key header and all, with the page's name in `Host`. So the API answers
// only requests whose Host it knows for its own:
// - localhost and *.localhost (RFC 6761: they always mean loopback, and browsers never ask DNS for them);
// - any IP address: a browser sends an address as Host only when the page's URL named that address, and
//   then the page's origin is this server itself, whose only pages are its own dashboard (/ui,
//   ui-routes.ts), so the bound address, a container's address or a LAN address work without a setting;
// - the name the API is bound to (HOST), when it is a name;
// - the names the operator lists in EMULATOR_ALLOWED_HOSTS ("name" or "*.domain"; "*" turns the check off).
// A request without any Host header cannot come from a browser (HTTP/1.0 tools) and is answered.

import { isIP } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { PermissionDeniedError } from "../common/errors.js";

export interface AllowedHosts {
  /** The check is off ("*" in EMULATOR_ALLOWED_HOSTS). */
  any: boolean;
  /** Lower-case names without a trailing dot; "*.domain" stands for every name under domain. */
  names: readonly string[];
}

/** The allowed hosts for these settings: EMULATOR_ALLOWED_HOSTS's entries and the HOST the API binds to. */
export function allowedHostsFrom(listed: readonly string[], boundHost: string): AllowedHosts {
  const names = listed.map(normalName);
  const bound = normalName(boundHost);
  if (isIP(bound) === 0 && bound !== "") names.push(bound);
  return { any: names.includes("*"), names };
}

/** The host name of a Host header value ("name", "name:port", "[v6]", "[v6]:port"); null when it is none of these. */
export function hostNameOf(header: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(header);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1]!.toLowerCase() : null;
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(header);
  return plain ? normalName(plain[1]!) : null;
}

export function isAllowedHost(header: string | undefined, allowed: AllowedHosts): boolean {
  if (allowed.any || header === undefined) return true;
  const name = hostNameOf(header);
  if (name === null || name === "") return false;
  if (isIP(name) !== 0 || name === "localhost" || name.endsWith(".localhost")) return true;
  return allowed.names.some((entry) => (entry.startsWith("*.") ? name.endsWith(entry.slice(1)) : name === entry));
}

/** Refuses, before anything else reads the request, one whose Host this emulator does not answer to. */
export function requireAllowedHost(allowed: AllowedHosts) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const header = req.headers.host;
    if (isAllowedHost(header, allowed)) return next();
    next(
      new PermissionDeniedError(
        `Requests addressed to host "${header ?? ""}" are refused: this emulator answers only localhost, *.localhost, an IP address, ` +
          'the name in its HOST setting and the names listed in EMULATOR_ALLOWED_HOSTS (comma-separated; "*" turns this check off). ' +
          "If you reach it by this name (a docker-compose service name, a machine name), add the name to EMULATOR_ALLOWED_HOSTS. " +
          "The check keeps web pages that point their own name at this machine (DNS rebinding) from calling the API.",
      ),
    );
  };
}

function normalName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith(".") && lower !== "." ? lower.slice(0, -1) : lower;
}
