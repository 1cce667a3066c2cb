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
import { OAuth2RefreshError, type OAuth2Tokens } from "./oauth2-tokens.js";
import { answerWithError } from "./responses.js";
import { substituteBody, substituteHeaders, substituteQuery, wantsBody, type SubstitutionMade } from "./substitution.js";
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

export type ForwarderSettings = {
  tokens: OAuth2Tokens;
  /** Bodies up to this size get their placeholders replaced; larger ones pass unchanged (and the log says so). */
  maxSubstitutionBodyBytes: number;
};

/** The request's body as it will go upstream: untouched (streamed), or read (all of it, or a first part) before. */
type BodyPlan = { kind: "stream" } | { kind: "whole"; body: Buffer } | { kind: "prefix"; chunks: Buffer[] };

/** What is sent instead of the sandbox's request line and headers, once tokens and placeholders are in. */
type Prepared = {
  headers: http.IncomingHttpHeaders;
  injectedNames: string[];
  path: string;
  body: BodyPlan;
  substituted: SubstitutionMade[];
  note: string | null;
};

/** Reads the body until its end or past `max` bytes; the request is left paused either way. */
function readBodyUpTo(request: http.IncomingMessage, max: number): Promise<{ chunks: Buffer[]; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (complete: boolean) => {
      request.pause();
      request.removeListener("data", onData);
      request.removeListener("end", onEnd);
      request.removeListener("error", onError);
      resolve({ chunks, complete });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length > max) done(false);
    };
    const onEnd = () => done(true);
    const onError = (error: Error) => reject(error);
    request.on("data", onData);
    request.once("end", onEnd);
    request.once("error", onError);
  });
}

function hasBody(headers: http.IncomingHttpHeaders): boolean {
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}

const require = createRequire(import.meta.url);

export class HttpForwarder {
  private proxyServer: HttpProxy | undefined;
  private readonly pending = new WeakMap<http.IncomingMessage, PendingRequest>();
  private readonly downstreamCounters = new WeakMap<http.IncomingMessage, (bytes: number) => void>();

  constructor(
    private readonly emit: EgressListener,
    private readonly settings: ForwarderSettings,
  ) {}

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
    const method = request.method ?? "GET";
    const attempt = {
      environmentId: exchange.environmentId,
      method,
      host: exchange.route.destination.host,
      port: exchange.route.destination.port,
    };
    this.prepare(request, exchange).then(
      (prepared) => this.send(request, response, exchange, prepared),
      (error: unknown) => {
        if (exchange.agentPerRequest) exchange.agent.destroy();
        const tokenFailed = error instanceof OAuth2RefreshError;
        const reason = tokenFailed ? "oauth2-token-refresh-failed" : "upstream-error";
        const detail = tokenFailed ? `the OAuth2 token refresh failed: ${error.message}` : `could not read the request: ${String(error)}`;
        answerWithError(response, 502, reason, detail);
        this.emit(
          attemptEntry(exchange.clock, attempt, {
            reason,
            rule: exchange.route.rule,
            status: 502,
            intercepted: exchange.intercepted,
            injected_fault: exchange.injectedFault ?? null,
          }),
        );
      },
    );
  }

  /** The token fetched, placeholders replaced (reading the body first when it may hold one). */
  private async prepare(request: http.IncomingMessage, exchange: Exchange): Promise<Prepared> {
    const { route } = exchange;
    const substituted: SubstitutionMade[] = [];
    const injected: Record<string, string> = { ...route.headers };
    if (route.oauth2) {
      // Whatever case the entry's own headers used, the token's header replaces them.
      for (const name of Object.keys(injected)) if (name.toLowerCase() === "authorization") delete injected[name];
      injected.Authorization = `Bearer ${await this.settings.tokens.accessToken(route.oauth2, route.now())}`;
    }
    const incoming = { ...request.headers };
    substituteHeaders(incoming, route.substitutions, substituted);
    const { headers, injectedNames } = prepareUpstreamHeaders(incoming, exchange.authority, injected);
    const path = substituteQuery(exchange.path, route.substitutions, substituted);
    let body: BodyPlan = { kind: "stream" };
    let note: string | null = null;
    if (wantsBody(route.substitutions) && hasBody(request.headers)) {
      const encoding = String(request.headers["content-encoding"] ?? "identity")
        .trim()
        .toLowerCase();
      if (encoding !== "identity") {
        note = "body-not-substituted:content-encoding";
      } else {
        const max = this.settings.maxSubstitutionBodyBytes;
        const read = await readBodyUpTo(request, max);
        if (read.complete) {
          const replaced = substituteBody(Buffer.concat(read.chunks), request.headers["content-type"], route.substitutions, substituted);
          body = { kind: "whole", body: replaced };
          // The body is sent whole, so its length is known: Content-Length, never chunked.
          delete headers["transfer-encoding"];
          headers["content-length"] = String(replaced.length);
        } else {
          body = { kind: "prefix", chunks: read.chunks };
          note = `body-not-substituted:larger-than-${max}-bytes`;
        }
      }
    }
    return { headers, injectedNames, path, body, substituted, note };
  }

  private send(request: http.IncomingMessage, response: http.ServerResponse, exchange: Exchange, prepared: Prepared): void {
    const { route } = exchange;
    const { headers, injectedNames } = prepared;
    const method = request.method ?? "GET";
    if (response.destroyed) {
      // The sandbox went away while a token was fetched or the body read: nothing is dialled.
      if (exchange.agentPerRequest) exchange.agent.destroy();
      const attempt = { environmentId: exchange.environmentId, method, host: route.destination.host, port: route.destination.port };
      this.emit(attemptEntry(exchange.clock, attempt, { reason: "client-closed", rule: route.rule, intercepted: exchange.intercepted }));
      return;
    }
    request.headers = headers;
    let bytesUp = 0;
    let bytesDown = 0;
    let failure: string | null = null;
    const body = new PassThrough();
    const plan = prepared.body;
    this.pending.set(request, {
      path: prepared.path,
      start: () => {
        if (plan.kind === "whole") {
          bytesUp = plan.body.length;
          body.end(plan.body);
          return;
        }
        if (plan.kind === "prefix") {
          for (const chunk of plan.chunks) {
            bytesUp += chunk.length;
            body.write(chunk);
          }
        }
        request.on("data", (chunk: Buffer) => {
          bytesUp += chunk.length;
        });
        request.pipe(body);
        request.resume();
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
          substituted: prepared.substituted,
          substitution_note: prepared.note,
        }),
      );
    });
  }
}
