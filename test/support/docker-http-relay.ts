// A relay between an emulator under test and the machine's Docker engine that reads each HTTP request,
// so that a test can make the engine hang only some calls: the shape of Debian's Docker 20.10 deadlock
// in libnetwork, where `docker version`, /_ping and `docker ps` answered while every create, inspect
// and remove hung. The emulator gets DOCKER_HOST=unix://<relay socket>; the real dockerd is never
// touched. Hijacked `docker exec` streams (executor channels) are relayed as raw bytes once upgraded.
// (docker-relay.ts cuts or holds whole connections; this one chooses call by call.)

import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A call to hang: its method and a pattern its path matches (the API version prefix and the query removed). */
export interface HangRule {
  method: string;
  path: RegExp;
}

/** The deadlock's shape: creating, inspecting and removing containers hang; /version, /_ping and listing answer. */
export const DEADLOCK_SHAPE: readonly HangRule[] = [
  { method: "POST", path: /^\/containers\/create$/ },
  { method: "GET", path: /^\/containers\/[^/]+\/json$/ },
  { method: "DELETE", path: /^\/containers\/[^/]+$/ },
];

export interface DockerHttpRelay {
  /** unix://… to give the emulator as DOCKER_HOST. */
  dockerHost: string;
  /** From now on requests matching a rule are held, never answered; others are relayed. Resets the counts below. */
  hang(rules: readonly HangRule[]): void;
  /** The engine answers again: held requests are cut (as an engine restart cuts them), new ones relayed. */
  answer(): void;
  /** answer(), by the name every relay has (fault-emulator.ts). */
  release(): void;
  /** Held requests whose caller still waits. */
  readonly pending: number;
  /** The most requests held at once since hang(), in all and per "METHOD /path-pattern" of the rule they matched. */
  readonly maxPending: number;
  maxPendingOf(rule: HangRule): number;
  /** Requests held since hang(). */
  readonly held: number;
  /** Requests relayed to the engine, by "METHOD path" (path without version and query), since hang(). */
  readonly relayed: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Where the real engine listens, as this test process sees it (DOCKER_HOST or the default socket). */
function engineAddress(): { socketPath: string } | { host: string; port: number } {
  const host = process.env.DOCKER_HOST;
  if (!host) return { socketPath: "/var/run/docker.sock" };
  if (host.startsWith("unix://")) return { socketPath: host.slice("unix://".length) };
  const url = new URL(host.replace(/^tcp:/, "http:"));
  return { host: url.hostname, port: Number(url.port || 2375) };
}

const apiPath = (url: string | undefined): string => (url ?? "/").split("?")[0]!.replace(/^\/v\d+(\.\d+)?(?=\/)/, "");
const ruleKey = (rule: HangRule): string => `${rule.method} ${rule.path.source}`;

export async function startDockerHttpRelay(): Promise<DockerHttpRelay> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "docker-http-relay-"));
  const socketPath = path.join(folder, "docker.sock");
  const target = engineAddress();
  let rules: readonly HangRule[] = [];
  const heldSockets = new Set<net.Socket>();
  const relayedSockets = new Set<net.Socket>();
  const pendingBy = new Map<string, number>();
  const maxBy = new Map<string, number>();
  let maxPending = 0;
  let held = 0;
  const relayed = new Map<string, number>();

  const matching = (request: http.IncomingMessage): HangRule | undefined => {
    const pathOnly = apiPath(request.url);
    return rules.find((rule) => rule.method === request.method && rule.path.test(pathOnly));
  };
  /** Holds the request's connection, unanswered, until the caller gives up or answer() cuts it. */
  const hold = (socket: net.Socket, rule: HangRule) => {
    const key = ruleKey(rule);
    held += 1;
    heldSockets.add(socket);
    pendingBy.set(key, (pendingBy.get(key) ?? 0) + 1);
    maxBy.set(key, Math.max(maxBy.get(key) ?? 0, pendingBy.get(key)!));
    maxPending = Math.max(maxPending, heldSockets.size);
    socket.on("error", () => undefined);
    socket.once("close", () => {
      heldSockets.delete(socket);
      pendingBy.set(key, pendingBy.get(key)! - 1);
    });
  };
  const count = (request: http.IncomingMessage) => {
    const key = `${request.method} ${apiPath(request.url)}`;
    relayed.set(key, (relayed.get(key) ?? 0) + 1);
  };

  const server = http.createServer((request, response) => {
    const rule = matching(request);
    if (rule) {
      hold(request.socket, rule);
      return;
    }
    count(request);
    const upstream = http.request(
      { ...target, agent: false, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.destroy());
    response.on("close", () => upstream.destroy());
    request.pipe(upstream);
  });
  server.on("connection", (socket: net.Socket) => {
    relayedSockets.add(socket);
    socket.once("close", () => relayedSockets.delete(socket));
  });
  // `docker exec` start with hijack: the head as it came, then raw bytes both ways.
  server.on("upgrade", (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const rule = matching(request);
    if (rule) {
      hold(socket, rule);
      return;
    }
    count(request);
    const upstream = net.connect("socketPath" in target ? { path: target.socketPath } : target);
    const headers: string[] = [];
    for (let index = 0; index < request.rawHeaders.length; index += 2)
      headers.push(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}`);
    upstream.write(`${request.method} ${request.url} HTTP/${request.httpVersion}\r\n${headers.join("\r\n")}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on("error", end);
    upstream.on("error", end);
    socket.on("close", end);
    upstream.on("close", end);
    socket.pipe(upstream);
    upstream.pipe(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });

  const cutHeld = () => {
    for (const socket of heldSockets) socket.destroy();
  };
  const relay: DockerHttpRelay = {
    dockerHost: `unix://${socketPath}`,
    hang(next) {
      rules = next;
      maxPending = heldSockets.size;
      maxBy.clear();
      held = 0;
      relayed.clear();
    },
    answer() {
      rules = [];
      cutHeld();
    },
    release() {
      relay.answer();
    },
    get pending() {
      return heldSockets.size;
    },
    get maxPending() {
      return maxPending;
    },
    maxPendingOf(rule) {
      return maxBy.get(ruleKey(rule)) ?? 0;
    },
    get held() {
      return held;
    },
    get relayed() {
      return relayed;
    },
    async close() {
      rules = [];
      cutHeld();
      for (const socket of relayedSockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
  return relay;
}
