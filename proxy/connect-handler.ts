// CONNECT host:port. After the same decision as any request (policy, host map, address guard, one
// lookup), two outcomes:
//   - the domain's entry injects headers (its own, an OAuth2 token's) or a credential placeholder may be
//     replaced in requests to it: TLS interception. The proxy answers 200, terminates TLS with
//     a certificate minted for the CONNECT host by the emulator's CA, and forwards each inner request
//     to https://host:port with the headers injected, verifying the upstream certificate itself. The
//     inner Host header and any inner absolute URI are ignored: the CONNECT target is the destination.
//     (A tunnel that carries plain HTTP instead of TLS is forwarded to http://host:port the same way.)
//   - otherwise: a byte tunnel to the checked address. No interception, so the sandbox sees the
//     upstream's own certificate and the proxy sees nothing but ciphertext.

import http from "node:http";
import type net from "node:net";
import tls from "node:tls";
import type { CertificateAuthority } from "./certificate-authority.js";
import { UpstreamError, type Dialer } from "./dialer.js";
import { connectAnswerer, injectEgressFault, responseAnswerer, type EgressFaultLookup, type EgressFaultMark } from "./egress-fault.js";
import { AttemptClock, attemptEntry, type EgressEntry, type EgressListener } from "./egress-log.js";
import { dialRoute, needsInterception, routeDestination, type Route, type RouteDependencies } from "./egress-route.js";
import type { HttpForwarder } from "./http-forwarder.js";
import type { CompiledPolicy } from "./policy.js";
import { authorityFor, parseConnectTarget, type Destination } from "./request-target.js";
import { answerSocketWithError, answerWithError } from "./responses.js";
import { RouteAgent } from "./upstream-agent.js";

export type ConnectionContext = { environmentId: string; policy: CompiledPolicy };

type InterceptedTunnel = { environmentId: string; route: Route; agent: RouteAgent; authority: string };

export type ConnectHandlerDependencies = {
  routes: RouteDependencies;
  dialer: Dialer;
  ca: CertificateAuthority;
  forwarder: HttpForwarder;
  emit: EgressListener;
  trustedCas: string[] | undefined;
  trackSocket: (socket: net.Socket) => void;
  faultFor: EgressFaultLookup;
  connectTimeoutMs: number;
};

const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";
const TUNNEL_CLOSE_GRACE_MS = 10_000;
const TLS_HANDSHAKE_RECORD = 0x16;

/** Waits for the first chunk and puts it back; null when the sandbox closes without sending. */
function peekFirstByte(socket: net.Socket): Promise<number | null> {
  return new Promise((resolve) => {
    const done = (value: number | null) => {
      socket.removeListener("data", onData);
      socket.removeListener("end", onEnd);
      socket.removeListener("close", onEnd);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      done(chunk[0] ?? null);
    };
    const onEnd = () => done(null);
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
  });
}

/** The path of an inner request: origin-form as sent, or the path of an absolute URI (host ignored). */
function innerPath(url: string | undefined): string | null {
  if (url === undefined) return null;
  if (url.startsWith("/")) return url;
  const absolute = /^https?:\/\/[^/?#]*([^#]*)/i.exec(url);
  if (!absolute) return null;
  const rest = absolute[1] ?? "";
  return rest === "" ? "/" : rest.startsWith("/") ? rest : `/${rest}`;
}

export class ConnectHandler {
  private readonly innerServer = http.createServer({ requestTimeout: 0 });
  private readonly tunnels = new WeakMap<net.Socket, InterceptedTunnel>();

  constructor(private readonly dependencies: ConnectHandlerDependencies) {
    this.innerServer.on("request", (request: http.IncomingMessage, response: http.ServerResponse) =>
      this.onInnerRequest(request, response),
    );
    this.innerServer.on("connect", (_request: http.IncomingMessage, socket: net.Socket) =>
      answerSocketWithError(socket, 400, "invalid-request", "CONNECT inside an intercepted tunnel is not supported"),
    );
    this.innerServer.on("clientError", (_error: Error, socket: net.Socket) => socket.destroy());
  }

  async handle(request: http.IncomingMessage, socket: net.Socket, head: Buffer, context: ConnectionContext): Promise<void> {
    const clock = new AttemptClock();
    const target = parseConnectTarget(request.url ?? "");
    if ("error" in target) {
      answerSocketWithError(socket, 400, "invalid-request", target.error);
      return;
    }
    const attempt = { environmentId: context.environmentId, method: "CONNECT", host: target.host, port: target.port };
    const entry = (fields: Partial<EgressEntry>): EgressEntry => attemptEntry(clock, attempt, fields);

    const result = await routeDestination(context.policy, target, this.dependencies.routes);
    if (!result.ok) {
      answerSocketWithError(socket, 403, result.refusal.reason, result.refusal.detail);
      this.dependencies.emit(entry({ decision: "refused", reason: result.refusal.reason, rule: result.refusal.rule, status: 403 }));
      return;
    }
    if (socket.destroyed) {
      // The sandbox went away during the lookup: nothing is dialled.
      this.dependencies.emit(entry({ decision: "allowed", reason: "client-closed", rule: result.route.rule, status: null }));
      return;
    }
    // An intercepted tunnel is asked per inner request (the proxy answers inside TLS, as the upstream
    // would); a byte tunnel once, at the CONNECT, since the proxy never sees the requests inside it.
    if (needsInterception(result.route)) {
      await this.intercept(socket, head, target, result.route, context, clock);
      return;
    }
    const fault = this.dependencies.faultFor(attempt);
    if (fault) {
      const outcome = await injectEgressFault(fault, connectAnswerer(socket), this.faultWhere(result.route));
      if (!outcome.forward) {
        this.dependencies.emit(entry({ reason: outcome.reason, rule: result.route.rule, status: outcome.status, injected_fault: fault }));
        return;
      }
    }
    await this.tunnel(socket, head, result.route, context, clock, fault);
  }

  private faultWhere(route: Route): { address: string; port: number; connectTimeoutMs: number } {
    return {
      address: route.addresses[0] ?? route.destination.host,
      port: route.dialPort,
      connectTimeoutMs: this.dependencies.connectTimeoutMs,
    };
  }

  private async tunnel(
    socket: net.Socket,
    head: Buffer,
    route: Route,
    context: ConnectionContext,
    clock: AttemptClock,
    fault: EgressFaultMark | null,
  ): Promise<void> {
    const attempt = { environmentId: context.environmentId, method: "CONNECT", host: route.destination.host, port: route.destination.port };
    const entry = (fields: Partial<EgressEntry>): EgressEntry =>
      attemptEntry(clock, attempt, { rule: route.rule, status: 200, injected_fault: fault, ...fields });
    let upstream: net.Socket;
    let address: string;
    try {
      ({ socket: upstream, address } = await dialRoute(route, this.dependencies.dialer));
    } catch (error) {
      const reason = error instanceof UpstreamError ? error.reason : "upstream-connect-failed";
      answerSocketWithError(socket, 502, reason, (error as Error).message);
      this.dependencies.emit(entry({ reason, status: 502 }));
      return;
    }
    this.dependencies.trackSocket(upstream);
    if (socket.destroyed) {
      upstream.destroy();
      this.dependencies.emit(entry({ reason: "client-closed", status: null, address }));
      return;
    }
    socket.write(ESTABLISHED);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
    // The upstream hung up: let what it sent reach the sandbox, then close. The pipe from the sandbox
    // stopped reading when the upstream closed, so keep reading (and dropping) to see the sandbox's
    // own FIN; a sandbox that never closes its side is cut off after a grace period.
    upstream.on("close", () => {
      socket.resume();
      socket.end();
      setTimeout(() => socket.destroy(), TUNNEL_CLOSE_GRACE_MS).unref();
    });
    socket.once("close", () => {
      upstream.destroy();
      this.dependencies.emit(entry({ bytes_up: upstream.bytesWritten, bytes_down: upstream.bytesRead, address }));
    });
  }

  private async intercept(
    socket: net.Socket,
    head: Buffer,
    target: Destination,
    route: Route,
    context: ConnectionContext,
    clock: AttemptClock,
  ): Promise<void> {
    const { ca, dialer, trustedCas, trackSocket } = this.dependencies;
    socket.write(ESTABLISHED);
    const readBefore = socket.bytesRead - head.length;
    const writtenBefore = socket.bytesWritten;
    if (head.length > 0) socket.unshift(head);
    let agent: RouteAgent | null = null;
    let clientTlsError: string | null = null;
    const recordTunnel = () => {
      agent?.destroy();
      const attempt = {
        environmentId: context.environmentId,
        method: "CONNECT",
        host: route.destination.host,
        port: route.destination.port,
      };
      this.dependencies.emit(
        attemptEntry(clock, attempt, {
          reason: clientTlsError === null ? null : "client-tls-failed",
          rule: route.rule,
          status: 200,
          bytes_up: socket.bytesRead - readBefore,
          bytes_down: socket.bytesWritten - writtenBefore,
          intercepted: true,
          injected_header_names: [...Object.keys(route.headers), ...(route.oauth2 ? ["Authorization"] : [])],
          address: agent?.lastAddress ?? null,
        }),
      );
    };

    // Most tunnels carry TLS, but some clients (undici's ProxyAgent) CONNECT for plain http:// too;
    // the first byte tells (22 = a TLS handshake record). Plain HTTP gets its headers injected as is.
    const firstByte = await peekFirstByte(socket);
    if (firstByte === null) {
      socket.destroy();
      recordTunnel();
      return;
    }
    if (firstByte !== TLS_HANDSHAKE_RECORD) {
      agent = new RouteAgent(route, dialer, null, { keepAlive: true }, trackSocket);
      this.tunnels.set(socket, { environmentId: context.environmentId, route, agent, authority: authorityFor(target, "http") });
      socket.once("close", recordTunnel);
      this.innerServer.emit("connection", socket);
      socket.resume();
      return;
    }

    const tunnelAgent = new RouteAgent(route, dialer, { trustedCas }, { keepAlive: true }, trackSocket);
    agent = tunnelAgent;
    // The TLS socket inherits half-open mode from the socket it wraps (the listener's, needed for byte
    // tunnels). Here a sandbox that hangs up mid-handshake (it rejected our certificate) must close it.
    socket.allowHalfOpen = false;
    const secure = new tls.TLSSocket(socket, {
      isServer: true,
      secureContext: ca.secureContextFor(target.host),
      ALPNProtocols: ["http/1.1"],
    });
    let handshakeDone = false;
    secure.once("secure", () => {
      handshakeDone = true;
      this.tunnels.set(secure, {
        environmentId: context.environmentId,
        route,
        agent: tunnelAgent,
        authority: authorityFor(target, "https"),
      });
      this.innerServer.emit("connection", secure);
    });
    secure.on("error", (error: NodeJS.ErrnoException) => {
      // Before the handshake completes, typically: the sandbox does not trust the emulator's CA (not
      // installed, or a client that pins certificates). Recorded, since the 200 already went out.
      if (!handshakeDone) clientTlsError ??= error.code ?? error.message;
      secure.destroy();
    });
    // The TLS socket closes after the socket it wraps; closing it does not close that socket, though,
    // and without this a tunnel the inner server closed (keep-alive timeout) would stay open forever.
    secure.once("close", () => {
      // A client that rejects our certificate often just hangs up (TLS 1.3 clients check it last).
      if (!handshakeDone) clientTlsError ??= "closed during the handshake";
      socket.destroy();
      recordTunnel();
    });
  }

  private onInnerRequest(request: http.IncomingMessage, response: http.ServerResponse): void {
    const tunnel = this.tunnels.get(request.socket);
    const path = innerPath(request.url);
    if (!tunnel || path === null) {
      answerWithError(response, 400, "invalid-request", "expected an origin-form request inside the tunnel");
      return;
    }
    const clock = new AttemptClock();
    const { route } = tunnel;
    const attempt = {
      environmentId: tunnel.environmentId,
      method: request.method ?? "GET",
      host: route.destination.host,
      port: route.destination.port,
    };
    const fault = this.dependencies.faultFor(attempt);
    if (!fault) {
      this.forwardInner(request, response, tunnel, path, clock, null);
      return;
    }
    injectEgressFault(fault, responseAnswerer(request, response), this.faultWhere(route))
      .then((outcome) => {
        if (outcome.forward) {
          this.forwardInner(request, response, tunnel, path, clock, fault);
          return;
        }
        this.dependencies.emit(
          attemptEntry(clock, attempt, {
            reason: outcome.reason,
            rule: route.rule,
            status: outcome.status,
            intercepted: true,
            injected_fault: fault,
          }),
        );
      })
      // Never expected (the answers write to a response that may be gone, which Node tolerates); a
      // rejection here must not take the process down with it.
      .catch(() => response.destroy());
  }

  private forwardInner(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    tunnel: InterceptedTunnel,
    path: string,
    clock: AttemptClock,
    fault: EgressFaultMark | null,
  ): void {
    this.dependencies.forwarder.forward(request, response, {
      environmentId: tunnel.environmentId,
      route: tunnel.route,
      path,
      authority: tunnel.authority,
      intercepted: true,
      agent: tunnel.agent,
      agentPerRequest: false,
      clock,
      injectedFault: fault,
    });
  }
}
