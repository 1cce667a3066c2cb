// An http.Agent whose connections go to a route's checked addresses (never through a lookup of its
// own, which is what the default agent would do with the host name), upgraded to TLS for https.

import http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import type { Dialer } from "./dialer.js";
import { dialRoute, type Route } from "./egress-route.js";

export class RouteAgent extends http.Agent {
  /** The address of the last connection made, for the egress record. */
  lastAddress: string | null = null;

  constructor(
    private readonly route: Route,
    private readonly dialer: Dialer,
    private readonly tls: { trustedCas: string[] | undefined } | null,
    options: http.AgentOptions,
    /** Sees every upstream socket, so the proxy can close them all when it stops. */
    private readonly onConnection: (socket: net.Socket) => void = () => undefined,
  ) {
    super(options);
  }

  override createConnection(_options: http.ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void): undefined {
    this.connect().then(
      (socket) => callback?.(null, socket),
      // Node's agent ignores the stream argument on error (the request emits the error).
      (error: Error) => (callback as ((error: Error) => void) | undefined)?.(error),
    );
    return undefined;
  }

  private async connect(): Promise<net.Socket> {
    const { socket, address } = await dialRoute(this.route, this.dialer);
    this.lastAddress = address;
    this.onConnection(socket);
    if (!this.tls) return socket;
    try {
      return await this.dialer.startTls(socket, { hostname: this.route.destination.host, trustedCas: this.tls.trustedCas });
    } catch (error) {
      socket.destroy();
      throw error;
    }
  }
}

/**
 * An agent for one request to `route` (no connection kept), speaking TLS, verified against `trustedCas`,
 * when `scheme` is https: a forwarded plain request and an OAuth2 token call are both made with one.
 */
export function singleRequestAgent(
  route: Route,
  scheme: string,
  dialer: Dialer,
  trustedCas: string[] | undefined,
  onConnection?: (socket: net.Socket) => void,
): RouteAgent {
  return new RouteAgent(route, dialer, scheme === "https" ? { trustedCas } : null, { keepAlive: false }, onConnection);
}
