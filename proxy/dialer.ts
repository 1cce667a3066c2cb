// Opening upstream connections, behind an interface so tests can record every dial (and prove that a
// refused destination is never dialled) and redirect a "public" address to a local server.

import net from "node:net";
import tls from "node:tls";

export type UpstreamTlsOptions = {
  /** The host name the certificate must be valid for (the request's host, even when host-mapped). */
  hostname: string;
  /** Trusted CA certificates (PEM); undefined means Node's defaults. */
  trustedCas: string[] | undefined;
};

export interface Dialer {
  /** A TCP connection to an IP address (never a name: the address has been checked). */
  connect(address: string, port: number): Promise<net.Socket>;
  /** TLS over an established connection, verifying the upstream certificate. */
  startTls(socket: net.Socket, options: UpstreamTlsOptions): Promise<tls.TLSSocket>;
  /** Builds the trust store ahead of the first connection (~20 ms with Node's ~150 roots). */
  prepareTrust?(trustedCas: string[]): void;
}

export class UpstreamError extends Error {
  override name = "UpstreamError";
  constructor(
    readonly reason: "upstream-connect-failed" | "upstream-timeout" | "upstream-tls-failed",
    message: string,
  ) {
    super(message);
  }
}

export function createSystemDialer(options: { connectTimeoutMs: number }): Dialer {
  // Building a context with ~150 root certificates costs milliseconds: one per CA list.
  const contexts = new WeakMap<string[], tls.SecureContext>();
  const contextFor = (cas: string[]) => {
    let context = contexts.get(cas);
    if (!context) {
      context = tls.createSecureContext({ ca: cas });
      contexts.set(cas, context);
    }
    return context;
  };

  return {
    prepareTrust(cas) {
      contextFor(cas);
    },

    connect(address, port) {
      return new Promise((resolve, reject) => {
        const socket = net.connect({ host: address, port, noDelay: true });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new UpstreamError("upstream-timeout", `no connection to ${address}:${port} within ${options.connectTimeoutMs} ms`));
        }, options.connectTimeoutMs);
        const onError = (error: Error) => {
          clearTimeout(timer);
          reject(new UpstreamError("upstream-connect-failed", `${address}:${port}: ${error.message}`));
        };
        socket.once("connect", () => {
          clearTimeout(timer);
          socket.removeListener("error", onError);
          resolve(socket);
        });
        socket.once("error", onError);
      });
    },

    startTls(socket, { hostname, trustedCas }) {
      return new Promise((resolve, reject) => {
        const isLiteral = net.isIP(hostname) !== 0;
        const secure = tls.connect({
          socket,
          // SNI may not carry an IP address (RFC 6066); the identity check still uses `hostname`.
          ...(isLiteral ? {} : { servername: hostname }),
          ...(trustedCas ? { secureContext: contextFor(trustedCas) } : {}),
          ALPNProtocols: ["http/1.1"],
          checkServerIdentity: (_name, certificate) => tls.checkServerIdentity(hostname, certificate),
        });
        const timer = setTimeout(() => {
          secure.destroy();
          reject(new UpstreamError("upstream-timeout", `no TLS handshake with ${hostname} within ${options.connectTimeoutMs} ms`));
        }, options.connectTimeoutMs);
        const onError = (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          secure.destroy();
          reject(new UpstreamError("upstream-tls-failed", `TLS with ${hostname}: ${error.code ?? ""} ${error.message}`.trim()));
        };
        secure.once("secureConnect", () => {
          clearTimeout(timer);
          secure.removeListener("error", onError);
          resolve(secure);
        });
        secure.once("error", onError);
      });
    },
  };
}
