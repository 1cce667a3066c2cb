// Where the emulator's sandboxes send their egress: the proxy started inside the emulator (default),
// or a proxy run as its own process (EMULATOR_EGRESS_PROXY, as docker-compose runs it) that shares the
// data folder, and so the CA, and a secret with the emulator.

import { randomBytes } from "node:crypto";
import {
  caDirectoryFor,
  egressSettingsFromEnv,
  openCertificateAuthority,
  startEgressProxy,
  type EgressEntry,
  type EgressFaultLookup,
} from "../../proxy/index.js";
import { ConfigError, type Config } from "../common/config.js";
import type { ProxyEndpoint } from "./egress-gateway.js";

export interface EgressProxyConnection {
  endpoint: ProxyEndpoint;
  caCertificatePem: string;
  /** Whether egress attempts reach `onEgress` (in-process) or only the proxy process's own log. */
  logsHere: boolean;
  close(): Promise<void>;
}

/**
 * [choice] Faults at egress need the in-process proxy: a proxy run as its own process
 * (EMULATOR_EGRESS_PROXY) shares no memory with the fault plan, so `faultFor` is not used there.
 */
export async function connectEgressProxy(
  config: Config,
  onEgress: (entry: EgressEntry) => void,
  faultFor?: EgressFaultLookup,
): Promise<EgressProxyConnection> {
  const caDirectory = caDirectoryFor(config.EMULATOR_DATA_DIR);
  if (config.EMULATOR_EGRESS_PROXY) {
    if (!config.EMULATOR_PROXY_SECRET) {
      throw new ConfigError("EMULATOR_EGRESS_PROXY is set but EMULATOR_PROXY_SECRET is not: give both the same secret");
    }
    const separator = config.EMULATOR_EGRESS_PROXY.lastIndexOf(":");
    const ca = await openCertificateAuthority(caDirectory);
    return {
      endpoint: {
        host: config.EMULATOR_EGRESS_PROXY.slice(0, separator),
        port: Number(config.EMULATOR_EGRESS_PROXY.slice(separator + 1)),
        secret: config.EMULATOR_PROXY_SECRET,
      },
      caCertificatePem: ca.caCertificatePem,
      logsHere: false,
      close: async () => undefined,
    };
  }
  const secret = randomBytes(32).toString("hex");
  const proxy = await startEgressProxy({
    secret,
    caDirectory,
    ...egressSettingsFromEnv(config),
    onEgress,
    ...(faultFor ? { faultFor } : {}),
    onDiagnostic: (message) => console.error(`[egress proxy] ${message}`),
  });
  return {
    endpoint: { host: proxy.host, port: proxy.port, secret },
    caCertificatePem: proxy.caCertificatePem,
    logsHere: true,
    close: () => proxy.close(),
  };
}
