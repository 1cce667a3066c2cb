// What the emulator's container is started with: the variables docker-compose.yml gives its `emulator`
// service, decided here without touching Docker so that the rules can be tested on their own.

import net from "node:net";

/** The API port inside the container (server/Dockerfile: PORT=8080). */
export const API_PORT = 8080;
/** Where the engine's socket is mounted: the path dockerode (and so the emulator) uses by default. */
export const SOCKET_IN_CONTAINER = "/var/run/docker.sock";
/**
 * Marks the emulator's own container with its instance. Not the sandbox label
 * (dev.interactions-emulator.instance): the emulator would count its own container among its sandboxes.
 */
export const LABEL_CONTAINER_OF_INSTANCE = "dev.interactions-emulator.testcontainers-instance";

/**
 * Variables the image and this module decide: the port and address the container listens on (the
 * mapping and the wait strategy depend on them) and the data folder (the container's own, gone with it).
 */
const FIXED_BY_THE_CONTAINER = ["PORT", "HOST", "EMULATOR_DATA_DIR"];

export interface ContainerEnvironmentInput {
  instance: string;
  /** withSettings(): configuration variables of docs/configuration.md. */
  settings: Readonly<Record<string, string>>;
  /** The name the engine's host is reached by from here (testcontainers' getHost() before start). */
  engineHost: string;
}

/**
 * The container's environment, or an Error saying which setting to drop. The engine's host name joins
 * EMULATOR_ALLOWED_HOSTS when it is a name other than a loopback one: where the engine is remote (a CI's
 * `DOCKER_HOST=tcp://docker:2375`) the API is reached as http://docker:<port>, and the emulator answers
 * only Host names it knows (docs/security.md#dns-rebinding-the-host-header).
 */
export function containerEnvironment(input: ContainerEnvironmentInput): Record<string, string> {
  for (const name of Object.keys(input.settings)) {
    if (FIXED_BY_THE_CONTAINER.includes(name)) {
      throw new Error(
        `withSettings(): ${name} is decided by the container (port ${API_PORT}, mapped to a free port of the host; data folder inside the container); leave it out`,
      );
    }
  }
  const allowed = (input.settings.EMULATOR_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (needsAllowing(input.engineHost) && !allowed.includes(input.engineHost)) allowed.push(input.engineHost);
  return {
    ...input.settings,
    EMULATOR_INSTANCE: input.instance,
    ...(allowed.length > 0 ? { EMULATOR_ALLOWED_HOSTS: allowed.join(",") } : {}),
  };
}

function needsAllowing(host: string): boolean {
  return net.isIP(host) === 0 && !isLoopbackName(host);
}

function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase();
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * Whether the engine runs on this machine, reached as a loopback name or address. Then the API port is
 * published on the host's 127.0.0.1 only, as docker-compose.yml publishes it: the emulator holds the
 * engine's socket (root on the host), and Testcontainers' default publishes on every interface. A
 * remote engine's port must be reachable from here, so it keeps the default (docs/security.md#testcontainers).
 */
export function publishOnLoopbackOnly(engineHost: string): boolean {
  if (isLoopbackName(engineHost)) return true;
  const address = engineHost.replace(/^\[|\]$/g, "");
  return address === "::1" || (net.isIPv4(address) && address.startsWith("127."));
}

/** The address the API is reached at once published on loopback only: IPv4's, where the binding is. */
export const LOOPBACK_ADDRESS = "127.0.0.1";

/** http://host:port, with an IPv6 address in brackets. */
export function baseUrlOf(host: string, port: number): string {
  return `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}
