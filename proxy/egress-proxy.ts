// The proxy's listener. Every connection starts with the identity preamble (see preamble.ts); after
// it, the connection is an ordinary HTTP/1.1 proxy connection: absolute-URI requests and CONNECT,
// several per connection with keep-alive. The same listener serves in-process (the server starts it on
// 127.0.0.1, random port) and as its own process (main.ts).

import http from "node:http";
import net from "node:net";
import os from "node:os";
import tls from "node:tls";
import { AddressGuard } from "./address-guard.js";
import { openCertificateAuthority, type CertificateAuthority } from "./certificate-authority.js";
import { ConnectHandler, type ConnectionContext } from "./connect-handler.js";
import { createSystemDialer, type Dialer } from "./dialer.js";
import { injectEgressFault, responseAnswerer, safeFaultLookup, type EgressFaultLookup } from "./egress-fault.js";
import { AttemptClock, attemptEntry, safeEmitter, type EgressEntry, type EgressListener } from "./egress-log.js";
import { routeDestination, type RouteDependencies } from "./egress-route.js";
import type { HostMap } from "./host-map.js";
import { HttpForwarder } from "./http-forwarder.js";
import { DEFAULT_MAX_SUBSTITUTION_BODY_BYTES } from "./substitution.js";
import { DEFAULT_OAUTH2_SETTINGS, OAuth2Tokens, type OAuth2Settings } from "./oauth2-tokens.js";
import { CompiledPolicy } from "./policy.js";
import { checkPreamble, readPreambleLine } from "./preamble.js";
import { parseAbsoluteTarget } from "./request-target.js";
import { systemResolver, type Resolver } from "./resolver.js";
import { answerSocketWithError, answerWithError } from "./responses.js";
import { singleRequestAgent } from "./upstream-agent.js";

export type EgressProxyOptions = {
  /** Shared with the server, which alone writes preambles. */
  secret: string;
  /** Folder of the CA (ca.pem, ca-key.pem); created on first start. Or an already opened CA. */
  caDirectory?: string;
  certificateAuthority?: CertificateAuthority;
  /** Default 127.0.0.1: the proxy is reached only by the server (or, in compose, its network). */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  hostMap?: HostMap;
  /** Extra CA certificates (PEM) trusted for upstream TLS, in addition to Node's roots. */
  trustedUpstreamCas?: string[];
  onEgress?: EgressListener;
  /**
   * Faults on demand (docs/faults.md#egress): asked once per request or byte tunnel, after the route
   * is decided, so a fault never opens a denied host; the attempt's egress entry carries its mark.
   */
  faultFor?: EgressFaultLookup;
  /** A connection closed for a missing or bad preamble (`detail` never contains the secret). */
  onConnectionRejected?: (event: { reason: string; detail: string; remoteAddress: string | undefined }) => void;
  /** Unexpected failures inside the proxy (an onEgress callback that threw, a handler bug). */
  onDiagnostic?: (message: string) => void;
  resolver?: Resolver;
  dialer?: Dialer;
  /** Refuse the addresses of this machine's own interfaces as "self" (default true). */
  refuseLocalInterfaces?: boolean;
  /** More addresses refused as "self": the emulator's public address when it is behind NAT, say. */
  selfAddresses?: string[];
  connectTimeoutMs?: number;
  /** OAuth2 token calls: time and answer size (EMULATOR_OAUTH2_TOKEN_TIMEOUT_SECONDS, EMULATOR_OAUTH2_TOKEN_MAX_BYTES). */
  oauth2?: OAuth2Settings;
  /** Bodies larger than this keep their credential placeholders (EMULATOR_EGRESS_SUBSTITUTION_MAX_BODY_BYTES). */
  maxSubstitutionBodyBytes?: number;
  preambleTimeoutMs?: number;
  maxPreambleBytes?: number;
};

export type EgressProxy = {
  host: string;
  port: number;
  caCertificatePem: string;
  close(): Promise<void>;
};

function localInterfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .map((info) => info.address);
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  if (options.secret.length === 0) throw new Error("the egress proxy needs a non-empty secret");
  const ca = options.certificateAuthority ?? (options.caDirectory ? await openCertificateAuthority(options.caDirectory) : null);
  if (!ca) throw new Error("the egress proxy needs caDirectory or certificateAuthority");

  const diagnostic = options.onDiagnostic ?? (() => undefined);
  const emit = safeEmitter(options.onEgress, (error) => diagnostic(`onEgress failed: ${String(error)}`));
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const dialer = options.dialer ?? createSystemDialer({ connectTimeoutMs });
  const faultFor = safeFaultLookup(options.faultFor, (error) => diagnostic(`faultFor failed: ${String(error)}`));
  // With extra CAs the list must name Node's roots too: a `ca` option replaces the defaults.
  const trustedCas = options.trustedUpstreamCas?.length ? [...tls.rootCertificates, ...options.trustedUpstreamCas] : undefined;
  if (trustedCas) dialer.prepareTrust?.(trustedCas);
  const routes: RouteDependencies = {
    hostMap: options.hostMap ?? new Map(),
    resolver: options.resolver ?? systemResolver,
    guard: new AddressGuard([
      ...(options.refuseLocalInterfaces === false ? [] : localInterfaceAddresses()),
      ...(options.selfAddresses ?? []),
    ]),
  };

  const openSockets = new Set<net.Socket>();
  const trackSocket = (socket: net.Socket) => {
    openSockets.add(socket);
    socket.once("close", () => openSockets.delete(socket));
  };
  const contexts = new WeakMap<net.Socket, ConnectionContext>();
  const tokens = new OAuth2Tokens({ routes, dialer, trustedCas, trackSocket, settings: options.oauth2 ?? DEFAULT_OAUTH2_SETTINGS });
  const forwarder = new HttpForwarder(emit, {
    tokens,
    maxSubstitutionBodyBytes: options.maxSubstitutionBodyBytes ?? DEFAULT_MAX_SUBSTITUTION_BODY_BYTES,
  });
  const connectHandler = new ConnectHandler({ routes, dialer, ca, forwarder, emit, trustedCas, trackSocket, faultFor, connectTimeoutMs });

  // Never listens itself: it parses the connections the preamble step hands over.
  const proxyServer = http.createServer({ requestTimeout: 0 });

  proxyServer.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    const context = contexts.get(request.socket);
    if (!context) {
      response.destroy();
      return;
    }
    forwardRequest(request, response, context).catch((error: unknown) => {
      diagnostic(`request handling failed: ${String(error)}`);
      answerWithError(response, 502, "proxy-error", "the proxy failed to handle this request");
    });
  });

  proxyServer.on("connect", (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const context = contexts.get(socket);
    if (!context) {
      socket.destroy();
      return;
    }
    connectHandler.handle(request, socket, head, context).catch((error: unknown) => {
      diagnostic(`CONNECT handling failed: ${String(error)}`);
      if (!socket.destroyed) answerSocketWithError(socket, 502, "proxy-error", "the proxy failed to handle this CONNECT");
    });
  });

  proxyServer.on("clientError", (_error: Error, socket: net.Socket) => {
    if (socket.writable) answerSocketWithError(socket, 400, "invalid-request", "malformed HTTP");
    else socket.destroy();
  });

  async function forwardRequest(request: http.IncomingMessage, response: http.ServerResponse, context: ConnectionContext): Promise<void> {
    const clock = new AttemptClock();
    const target = parseAbsoluteTarget(request.url ?? "");
    if ("error" in target) {
      answerWithError(response, 400, "invalid-request", target.error);
      return;
    }
    const result = await routeDestination(context.policy, target, routes);
    const attempt = { environmentId: context.environmentId, method: request.method ?? "GET", host: target.host, port: target.port };
    const entry = (fields: Pick<EgressEntry, "decision" | "reason" | "rule" | "status"> & Partial<EgressEntry>): EgressEntry =>
      attemptEntry(clock, attempt, fields);
    if (!result.ok) {
      answerWithError(response, 403, result.refusal.reason, result.refusal.detail);
      emit(entry({ decision: "refused", reason: result.refusal.reason, rule: result.refusal.rule, status: 403 }));
      return;
    }
    // The sandbox went away during the lookup: nothing to forward, so nothing is dialled.
    if (response.destroyed || request.socket.destroyed) {
      emit(entry({ decision: "allowed", reason: "client-closed", rule: result.route.rule, status: null }));
      return;
    }
    const fault = faultFor(attempt);
    if (fault) {
      const where = { address: result.route.addresses[0] ?? target.host, port: result.route.dialPort, connectTimeoutMs };
      const outcome = await injectEgressFault(fault, responseAnswerer(request, response), where);
      if (!outcome.forward) {
        emit(
          entry({ decision: "allowed", reason: outcome.reason, rule: result.route.rule, status: outcome.status, injected_fault: fault }),
        );
        return;
      }
    }
    const agent = singleRequestAgent(result.route, target.scheme, dialer, trustedCas, trackSocket);
    forwarder.forward(request, response, {
      environmentId: context.environmentId,
      route: result.route,
      path: target.path,
      authority: target.authority,
      intercepted: false,
      agent,
      agentPerRequest: true,
      clock,
      injectedFault: fault,
    });
  }

  async function accept(socket: net.Socket): Promise<void> {
    trackSocket(socket);
    // Errors end in 'close'; without a listener a reset from the sandbox would crash the process.
    socket.on("error", () => undefined);
    const reject = (reason: string, detail: string) => {
      options.onConnectionRejected?.({ reason, detail, remoteAddress: socket.remoteAddress });
      socket.destroy();
    };
    let preamble: { line: string; rest: Buffer };
    try {
      preamble = await readPreambleLine(socket, {
        maxBytes: options.maxPreambleBytes ?? 1024 * 1024,
        timeoutMs: options.preambleTimeoutMs ?? 10_000,
      });
    } catch (error) {
      reject("no-preamble", (error as Error).message);
      return;
    }
    const check = checkPreamble(preamble.line, options.secret);
    if (!check.ok) {
      reject(check.reason, check.detail);
      return;
    }
    contexts.set(socket, { environmentId: check.preamble.environment_id, policy: new CompiledPolicy(check.preamble.policy) });
    if (preamble.rest.length > 0) socket.unshift(preamble.rest);
    proxyServer.emit("connection", socket);
    // readPreambleLine left the socket paused; the HTTP parser reads from here on.
    socket.resume();
  }

  const listener = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    accept(socket).catch((error: unknown) => {
      diagnostic(`connection setup failed: ${String(error)}`);
      socket.destroy();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port ?? 0, host, () => {
      listener.removeListener("error", reject);
      resolve();
    });
  });
  listener.on("error", (error) => diagnostic(`listener error: ${error.message}`));
  const address = listener.address() as net.AddressInfo;

  return {
    host,
    port: address.port,
    caCertificatePem: ca.caCertificatePem,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const socket of openSockets) socket.destroy();
      }),
  };
}
