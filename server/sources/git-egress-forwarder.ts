// The host's git reaches the network only through the egress proxy, the same way a sandbox does, so a
// repository URL meets the same address guard: no loopback, private, link-local or reserved address,
// none of this machine's own addresses, a name resolved once and the checked address dialled (no DNS
// rebinding), the operator's EMULATOR_EGRESS_HOST_MAP honoured. git is given `http.proxy` pointing
// at this forwarder, a loopback listener that lives for one clone: each connection git opens becomes a
// connection to the proxy that starts with the identity preamble (an open policy: a repository source
// is fetched for the request, not by the sandbox, so the environment's allowlist does not apply).
//
// The forwarder reads the first bytes the proxy answers on each connection to learn of a refusal
// (`x-proxy-error`), so the API can say why a clone failed instead of passing on git's "403".

import net from "node:net";
import { PROXY_ERROR_HEADER } from "../../proxy/index.js";
import { joinToProxy, type ProxyEndpoint } from "../egress/egress-gateway.js";

/** The name under which clone traffic appears in the proxy's egress log (no environment has a "/"). */
export const CLONE_EGRESS_IDENTITY = "emulator/repository-source";

export interface GitEgressForwarder {
  /** For git's http.proxy. */
  proxyUrl: string;
  /** What the proxy refused, in its own words ("blocked-address:loopback: 127.0.0.1 is a loopback address"). */
  refusals: string[];
  /** Connections to the proxy itself that failed (a fault of ours, not of the request). */
  proxyFailures: string[];
  close(): Promise<void>;
}

const REFUSAL = new RegExp(`^HTTP/1\\.[01] (?:403|502)[^\\r\\n]*\\r\\n(?:[^\\r\\n]+\\r\\n)*?${PROXY_ERROR_HEADER}:`, "i");

function refusalOf(head: Buffer): string | null {
  const text = head.toString("latin1");
  if (!REFUSAL.test(text)) return null;
  const body = text.slice(text.indexOf("\r\n\r\n") + 4).trim();
  return body.replace(/^egress (?:refused|failed): /, "") || "refused by the egress proxy";
}

export async function openGitEgressForwarder(proxy: ProxyEndpoint): Promise<GitEgressForwarder> {
  const refusals: string[] = [];
  const proxyFailures: string[] = [];
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const server = net.createServer({ allowHalfOpen: true }, (gitSide) => {
    track(gitSide);
    const proxySide = joinToProxy(proxy, CLONE_EGRESS_IDENTITY, { mode: "open" }, gitSide);
    track(proxySide);
    proxySide.once("error", (error: NodeJS.ErrnoException) => {
      if (proxySide.bytesRead === 0) proxyFailures.push(`${proxy.host}:${proxy.port}: ${error.code ?? error.message}`);
    });
    proxySide.once("data", (head: Buffer) => {
      const refusal = refusalOf(head);
      if (refusal !== null) refusals.push(refusal);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    proxyUrl: `http://127.0.0.1:${port}`,
    refusals,
    proxyFailures,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
