// Forwarding one HTTP request upstream with http-proxy, once its route is decided: plain requests
// (`GET http://host/…`), `GET https://host/…` sent to the proxy as such, and the requests inside an
// intercepted CONNECT. The upstream connection comes from a RouteAgent (checked addresses only), and
// the egress record is written when the sandbox's response closes.

import type http from "node:http";
import { createRequire } from "node:module";
import { PassThrough } from "node:stream";
import type HttpProxy from "http-proxy";
import { UpstreamError } from "./dialer.js";
import type { EgressFaultMark } from "./egress-fault.js";
import { attemptEntry, type AttemptClock, type EgressListener } from "./egress-log.js";
import type { Route } from "./egress-route.js";
import { prepareDownstreamHeaders, prepareUpstreamHeaders } from "./headers.js";
import { answerWithError } from "./responses.js";
import type { RouteAgent } from "./upstream-agent.js";

export type Exchange = {
  environmentId: string;
  route: Route;
  /** origin-form path and query sent upstream. */
  path: string;
  /** The Host header sent upstream: the request target's authority. */
  authority: string;
  intercepted: boolean;
  agent: RouteAgent;
  /** Whether the agent serves this request only (destroyed with it) or a whole intercepted tunnel. */
  agentPerRequest: boolean;
  clock: AttemptClock;
  /** A latency fault that held this request before it was forwarded. */
  injectedFault?: EgressFaultMark | null;
};

function failureReason(error: Error): string {
  return error instanceof UpstreamError ? error.reason : "upstream-error";
}

type PendingRequest = { path: string; start: (upstreamRequest: http.ClientRequest) => void };

const require = createRequire(import.meta.url);

export class HttpForwarder {
  private proxyServer: HttpProxy | undefined;
  private readonly pending = new WeakMap<http.IncomingMessage, PendingRequest>();
  private readonly downstreamCounters = new WeakMap<http.IncomingMessage, (bytes: number) => void>();

  constructor(private readonly emit: EgressListener) {}

  /**
   * http-proxy, loaded and set up for the first request forwarded: the emulator's start (which starts
   * this proxy) does not wait for a package no sandbox has needed yet.
   */
  private get proxy(): HttpProxy {
    if (this.proxyServer) return this.proxyServer;
    const httpProxy = require("http-proxy") as typeof HttpProxy;
    const proxy = httpProxy.createProxyServer({ xfwd: false, changeOrigin: false, ws: false });
    // http-proxy builds the upstream path with url.parse and collapses "//"; the request line must
    // carry the sandbox's path byte for byte, so the path is set here, once the upstream socket exists
    // and before anything is written (the body is held back until then, see `forward`).
    proxy.on("proxyReq", (upstreamRequest, request) => {
      const pending = this.pending.get(request);
      if (!pending) return;
      this.pending.delete(request);
      upstreamRequest.path = pending.path;
      pending.start(upstreamRequest);
    });
    proxy.on("proxyRes", (upstreamResponse, request, response) => {
      // Runs before http-proxy copies the headers to the sandbox's response.
      prepareDownstreamHeaders(upstreamResponse.headers, response.shouldKeepAlive);
      const count = this.downstreamCounters.get(request);
      if (count) upstreamResponse.on("data", (chunk: Buffer) => count(chunk.length));
      // An upstream that dies mid-body: http-proxy would leave the sandbox waiting forever.
      upstreamResponse.once("close", () => {
        if (!upstreamResponse.complete) response.destroy();
      });
    });
    // Errors of a request always reach its own callback; this keeps stray ones from crashing.
    proxy.on("error", () => undefined);
    this.proxyServer = proxy;
    return proxy;
  }

  forward(request: http.IncomingMessage, response: http.ServerResponse, exchange: Exchange): void {
    const { route } = exchange;
    const { headers, injectedNames } = prepareUpstreamHeaders(request.headers, exchange.authority, route.headers);
    const method = request.method ?? "GET";
    request.headers = headers;
    let bytesUp = 0;
    let bytesDown = 0;
    let failure: string | null = null;
    const body = new PassThrough();
    this.pending.set(request, {
      path: exchange.path,
      start: () => {
        request.on("data", (chunk: Buffer) => {
          bytesUp += chunk.length;
        });
        request.pipe(body);
      },
    });
    this.downstreamCounters.set(request, (bytes) => {
      bytesDown += bytes;
    });

    this.proxy.web(
      request,
      response,
      {
        target: { protocol: "http:", host: route.destination.host, port: route.dialPort },
        agent: exchange.agent,
        buffer: body,
        toProxy: true,
      },
      (error) => {
        if (response.writableEnded || response.destroyed) return;
        failure = failureReason(error);
        answerWithError(response, 502, failure, error.message);
      },
    );

    response.once("close", () => {
      body.destroy();
      if (exchange.agentPerRequest) exchange.agent.destroy();
      const attempt = { environmentId: exchange.environmentId, method, host: route.destination.host, port: route.destination.port };
      this.emit(
        attemptEntry(exchange.clock, attempt, {
          reason: failure,
          rule: route.rule,
          status: response.headersSent ? response.statusCode : null,
          bytes_up: bytesUp,
          bytes_down: bytesDown,
          intercepted: exchange.intercepted,
          injected_header_names: injectedNames,
          address: exchange.agent.lastAddress,
          injected_fault: exchange.injectedFault ?? null,
        }),
      );
    });
  }
}
