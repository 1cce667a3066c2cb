// Joins a sandbox's egress streams to the egress proxy. Each connection a sandbox program makes to its
// proxy listener arrives here as a stream on that sandbox's executor channel, so which environment it
// comes from is known for certain (it cannot be forged from inside the sandbox). The gateway opens a
// loopback connection to the proxy, states the environment and its current policy in the identity
// preamble (authenticated by a secret only the server and the proxy know), and then pipes bytes.

import net from "node:net";
import type { Duplex } from "node:stream";
import { encodePreamble } from "../../proxy/index.js";
import { FailedPreconditionError } from "../common/errors.js";
import { SandboxEgressError, type SandboxChannel } from "../sandbox/runtime.js";
import type { EgressPolicy } from "./network-config.js";
import { SANDBOX_PROXY_PORT } from "../sandbox/egress-settings.js";

export interface ProxyEndpoint {
  host: string;
  port: number;
  secret: string;
}

export class EgressGateway {
  constructor(
    private readonly proxy: ProxyEndpoint,
    /** The environment's policy now; throwing refuses the connection. */
    private readonly policyFor: (environmentId: string) => EgressPolicy,
  ) {}

  /**
   * Starts the sandbox's proxy listener and routes what it accepts. A port another process of the
   * sandbox holds is a 400 FAILED_PRECONDITION saying what to do, never a 500 the SDK would retry: it
   * stays taken however often the call is made. (Sandboxes made since the keep-alive holds the port
   * cannot get there: docs/security.md#network.)
   */
  async attach(channel: SandboxChannel, environmentId: string): Promise<void> {
    channel.onEgressStream((stream) => this.forward(stream, environmentId));
    try {
      await channel.listenEgress(SANDBOX_PROXY_PORT);
    } catch (error) {
      if (error instanceof SandboxEgressError && error.code === "EADDRINUSE") throw portTaken(environmentId);
      throw error;
    }
  }

  private forward(sandboxSide: Duplex, environmentId: string): void {
    let policy: EgressPolicy;
    try {
      policy = this.policyFor(environmentId);
    } catch {
      sandboxSide.destroy();
      return;
    }
    joinToProxy(this.proxy, environmentId, policy, sandboxSide);
  }
}

/**
 * Opens a connection to the proxy for `clientSide`, states who it comes from (`identity`, the egress
 * log's environment) and under which policy, then pipes bytes both ways. Returns the proxy side, for a
 * caller that watches the proxy's answer.
 */
export function joinToProxy(proxy: ProxyEndpoint, identity: string, policy: EgressPolicy, clientSide: Duplex): net.Socket {
  const proxySide = net.connect({ host: proxy.host, port: proxy.port, allowHalfOpen: true });
  proxySide.setNoDelay(true);
  proxySide.write(encodePreamble({ secret: proxy.secret, environment_id: identity, policy }));
  // pipe() carries half-closes both ways (end → end), and each side closes once both directions are
  // done. Only an error tears both down: destroying on 'close' would drop a response's buffered tail.
  clientSide.pipe(proxySide);
  proxySide.pipe(clientSide);
  const teardown = () => {
    clientSide.destroy();
    proxySide.destroy();
  };
  clientSide.on("error", teardown);
  proxySide.on("error", teardown);
  return proxySide;
}

function portTaken(environmentId: string): FailedPreconditionError {
  return new FailedPreconditionError(
    `Environment ${environmentId} cannot be used: a process inside its sandbox (code it ran, or an earlier executor that ` +
      `did not end) holds the egress proxy port 127.0.0.1:${SANDBOX_PROXY_PORT}, so its executor cannot listen there, ` +
      "and neither tools nor file calls can run. " +
      "Retrying will not help. Delete the environment and create a new one: sandboxes created by this version of the " +
      "emulator keep the port reserved for the executor.",
  );
}
