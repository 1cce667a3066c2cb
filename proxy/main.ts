// The egress proxy as its own process (docker-compose runs it as a service). Configuration from the
// environment; one JSON line per egress attempt on stdout (for `docker compose logs` or a collector);
// human-readable diagnostics on stderr; SIGTERM and SIGINT close it cleanly.

import path from "node:path";
import { z } from "zod";
import { secureDataFolder } from "./data-folder.js";
import { startEgressProxy } from "./egress-proxy.js";
import { caDirectoryFor, defaultDataDirectory, egressSettingsFromEnv } from "./environment-settings.js";

const configSchema = z.object({
  EMULATOR_PROXY_HOST: z.string().min(1).default("127.0.0.1"),
  EMULATOR_PROXY_PORT: z.coerce.number().int().min(0).max(65535).default(3129),
  EMULATOR_PROXY_SECRET: z.string().min(16, "EMULATOR_PROXY_SECRET is required (at least 16 characters, shared with the server)"),
  EMULATOR_DATA_DIR: z.string().min(1).optional(),
  EMULATOR_EGRESS_HOST_MAP: z.string().optional(),
  EMULATOR_EGRESS_CA_FILE: z.string().optional(),
  EMULATOR_EGRESS_SUBSTITUTION_MAX_BODY_BYTES: z.string().optional(),
  EMULATOR_OAUTH2_TOKEN_TIMEOUT_SECONDS: z.string().optional(),
  EMULATOR_OAUTH2_TOKEN_MAX_BYTES: z.string().optional(),
});

async function main(): Promise<void> {
  const parsed = configSchema.safeParse(process.env);
  if (!parsed.success) {
    process.stderr.write(`egress proxy: invalid configuration:\n${z.prettifyError(parsed.error)}\n`);
    process.exit(2);
  }
  const config = parsed.data;
  const dataDirectory = path.resolve(config.EMULATOR_DATA_DIR ?? defaultDataDirectory(process.env));
  // It holds the CA's private key (and the server's store, when the server shares it): owner-only.
  secureDataFolder(dataDirectory, {
    info: (line) => process.stderr.write(`egress proxy: ${line}\n`),
    warn: (line) => process.stderr.write(`egress proxy: warning: ${line}\n`),
  });
  const caDirectory = caDirectoryFor(dataDirectory);
  const proxy = await startEgressProxy({
    secret: config.EMULATOR_PROXY_SECRET,
    caDirectory,
    host: config.EMULATOR_PROXY_HOST,
    port: config.EMULATOR_PROXY_PORT,
    ...egressSettingsFromEnv(config),
    onEgress: (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`),
    onConnectionRejected: ({ reason, detail, remoteAddress }) =>
      process.stderr.write(`egress proxy: rejected a connection from ${remoteAddress ?? "?"}: ${reason} (${detail})\n`),
    onDiagnostic: (message) => process.stderr.write(`egress proxy: ${message}\n`),
  });
  process.stderr.write(`egress proxy listening on ${proxy.host}:${proxy.port} (CA: ${path.join(caDirectory, "ca.pem")})\n`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`egress proxy: ${signal}, closing\n`);
    proxy.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`egress proxy: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
