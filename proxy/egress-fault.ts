// Faults on demand at the proxy (docs/faults.md#egress). The proxy knows nothing of the server's fault
// rules: it asks one question of its own, once per request or byte tunnel, and only after the route
// is decided (allowlist, host map, address guard): a fault stands in for the upstream of a host the
// sandbox may reach, so it never opens a host the policy denies, and it answers before any dial, so
// an injected failure never sends a byte off the machine.

import type http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { answerSocketWithError, answerWithError } from "./responses.js";

/** The effects that can happen between a proxy and an upstream. */
export type EgressFaultEffect =
  | { kind: "timeout" }
  | { kind: "http_status"; status: number; latency_ms?: number | undefined }
  | { kind: "latency"; ms: number }
  | { kind: "refuse" }
  | { kind: "reset" };

/** What the proxy records with the attempt: which rule fired, and what it did. */
export type EgressFaultMark = { rule_id: string; effect: EgressFaultEffect };

export type EgressFaultQuery = { environmentId: string; host: string; port: number; method: string };

/** The proxy's question: the fault to inject for this attempt, or null (the usual case). */
export type EgressFaultLookup = (query: EgressFaultQuery) => EgressFaultMark | null;

/** Waits `ms`, or until the sandbox hangs up (true: it did, there is nobody left to answer). */
export function holdUnlessClosed(socket: net.Socket | Duplex, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) {
      resolve(true);
      return;
    }
    const onClose = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      socket.removeListener("close", onClose);
      resolve(false);
    }, ms);
    socket.once("close", onClose);
  });
}

const REASON_PHRASES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? "Error";
}

/**
 * The injected status as the upstream itself would send it: no x-proxy-error header, since a real
 * upstream's 503 carries none (the mark is in the egress log, where a test looks for it).
 */
export function answerAsUpstream(response: http.ServerResponse, status: number): void {
  const body = `${status} ${reasonPhrase(status)}\n`;
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body) });
  response.end(body);
}

/** The same on a raw socket: the answer to a CONNECT whose byte tunnel the fault stands in for. */
export function answerConnectAsUpstream(socket: Duplex, status: number): void {
  const body = `${status} ${reasonPhrase(status)}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** A TCP reset where the socket allows one (the client sees ECONNRESET), a plain destroy otherwise. */
export function resetSocket(socket: net.Socket | Duplex): void {
  const tcp = socket as net.Socket;
  if (typeof tcp.resetAndDestroy === "function" && !tcp.destroyed && tcp.readyState !== "closed") tcp.resetAndDestroy();
  else socket.destroy();
}

/** The messages the system dialer gives for these failures (dialer.ts), so an injected one reads the same. */
export function refusedMessage(address: string, port: number): string {
  return `${address}:${port}: connect ECONNREFUSED ${address}:${port}`;
}

export function timedOutMessage(address: string, port: number, timeoutMs: number): string {
  return `no connection to ${address}:${port} within ${timeoutMs} ms`;
}

/** How one attempt is answered: a request's response, or a CONNECT's raw socket. */
export type FaultAnswerer = {
  /** The sandbox's side: its close ends a hold, and a reset destroys it. */
  socket: Duplex;
  upstreamStatus(status: number): void;
  proxyError(status: number, reason: string, detail: string): void;
};

/** Where the fault pretends the dial went: the route's first address, its port, the dialer's deadline. */
export type FaultWhere = { address: string; port: number; connectTimeoutMs: number };

export type FaultOutcome = { forward: true } | { forward: false; reason: string | null; status: number | null };

/**
 * Applies an injected fault as the upstream failure it stands in for. `forward: true` after a latency:
 * the attempt then goes on as usual. Otherwise it is answered, with what the egress entry records.
 */
export async function injectEgressFault(fault: EgressFaultMark, answerer: FaultAnswerer, where: FaultWhere): Promise<FaultOutcome> {
  const clientClosed: FaultOutcome = { forward: false, reason: "client-closed", status: null };
  const effect = fault.effect;
  switch (effect.kind) {
    case "latency":
      return (await holdUnlessClosed(answerer.socket, effect.ms)) ? clientClosed : { forward: true };
    case "http_status":
      if (effect.latency_ms !== undefined && (await holdUnlessClosed(answerer.socket, effect.latency_ms))) return clientClosed;
      answerer.upstreamStatus(effect.status);
      return { forward: false, reason: null, status: effect.status };
    case "refuse":
      answerer.proxyError(502, "upstream-connect-failed", refusedMessage(where.address, where.port));
      return { forward: false, reason: "upstream-connect-failed", status: 502 };
    case "reset":
      resetSocket(answerer.socket);
      return { forward: false, reason: "connection-reset", status: null };
    case "timeout":
      // As an upstream that never accepts: held until the dialer's own deadline, then its 502.
      if (await holdUnlessClosed(answerer.socket, where.connectTimeoutMs)) return clientClosed;
      answerer.proxyError(502, "upstream-timeout", timedOutMessage(where.address, where.port, where.connectTimeoutMs));
      return { forward: false, reason: "upstream-timeout", status: 502 };
  }
}

/** Answers through a request's response (plain requests and those inside an intercepted tunnel). */
export function responseAnswerer(request: http.IncomingMessage, response: http.ServerResponse): FaultAnswerer {
  return {
    socket: request.socket,
    upstreamStatus: (status) => answerAsUpstream(response, status),
    proxyError: (status, reason, detail) => answerWithError(response, status, reason, detail),
  };
}

/** Answers a CONNECT on its raw socket (byte tunnels, where the proxy sees no request inside). */
export function connectAnswerer(socket: Duplex): FaultAnswerer {
  return {
    socket,
    upstreamStatus: (status) => answerConnectAsUpstream(socket, status),
    proxyError: (status, reason, detail) => answerSocketWithError(socket, status, reason, detail),
  };
}

/** The lookup as the proxy calls it: a lookup that throws is a bug of its owner, reported, never a fault. */
export function safeFaultLookup(lookup: EgressFaultLookup | undefined, onError: (error: unknown) => void): EgressFaultLookup {
  return (query) => {
    if (!lookup) return null;
    try {
      return lookup(query);
    } catch (error) {
      onError(error);
      return null;
    }
  };
}
