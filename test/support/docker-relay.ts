// A socket relay between an emulator under test and the machine's Docker engine, so a test can make the
// engine unreachable for a while without touching the real dockerd: the emulator gets
// DOCKER_HOST=unix://<relay socket>, and pause() cuts every connection through the relay (the executor
// channels, which are hijacked `docker exec` streams, included) and refuses new ones until resume().

import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface DockerRelay {
  /** unix://… to give the emulator as DOCKER_HOST. */
  dockerHost: string;
  /** Connections accepted so far (refused ones included). */
  readonly accepted: number;
  /** Connections being relayed right now. */
  readonly open: number;
  /** Bytes relayed so far, both directions together. */
  readonly bytes: number;
  /** Cuts every relayed connection and refuses (accepts, then closes at once) new ones. */
  pause(): void;
  /**
   * A hung engine: new connections are accepted and held, never answered (connections already relayed
   * go on). Ended by resume() or pause(), which close the held ones.
   */
  stall(): void;
  /** Relays new connections again. */
  resume(): void;
  /** resume(), by the name every relay has (fault-emulator.ts). */
  release(): void;
  close(): Promise<void>;
}

/** Where the real engine listens, as this test process sees it (DOCKER_HOST or the default socket). */
function engineAddress(): net.NetConnectOpts {
  const host = process.env.DOCKER_HOST;
  if (!host) return { path: "/var/run/docker.sock" };
  if (host.startsWith("unix://")) return { path: host.slice("unix://".length) };
  const url = new URL(host.replace(/^tcp:/, "http:"));
  return { host: url.hostname, port: Number(url.port || 2375) };
}

export async function startDockerRelay(): Promise<DockerRelay> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "docker-relay-"));
  const socketPath = path.join(folder, "docker.sock");
  const target = engineAddress();
  const pairs = new Set<net.Socket>();
  const held = new Set<net.Socket>();
  let paused = false;
  let stalled = false;
  const releaseHeld = () => {
    for (const socket of held) socket.destroy();
    held.clear();
  };
  let accepted = 0;
  let bytes = 0;
  const count = (chunk: Buffer) => (bytes += chunk.length);

  const server = net.createServer((client) => {
    accepted += 1;
    if (paused) {
      client.destroy();
      return;
    }
    if (stalled) {
      held.add(client);
      client.on("error", () => undefined);
      client.on("close", () => held.delete(client));
      return;
    }
    const upstream = net.connect(target);
    pairs.add(client);
    pairs.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(client);
      pairs.delete(upstream);
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
    client.on("data", count);
    upstream.on("data", count);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });

  const relay: DockerRelay = {
    dockerHost: `unix://${socketPath}`,
    get accepted() {
      return accepted;
    },
    get bytes() {
      return bytes;
    },
    get open() {
      return pairs.size / 2;
    },
    pause() {
      paused = true;
      stalled = false;
      releaseHeld();
      for (const socket of pairs) socket.destroy();
      pairs.clear();
    },
    stall() {
      stalled = true;
      paused = false;
    },
    resume() {
      paused = false;
      stalled = false;
      releaseHeld();
    },
    release() {
      relay.resume();
    },
    async close() {
      paused = true;
      releaseHeld();
      for (const socket of pairs) socket.destroy();
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
  return relay;
}
