// The executor's channel over a Unix socket (docs/architecture.md#the-executor-and-its-channel): each
// sandbox gets a folder of the emulator's data folder, EMULATOR_DATA_DIR/channels/<instance>/<environment>/,
// bind-mounted at CHANNEL_FOLDER; the container's keep-alive listens there (channel_server.go) and starts
// an executor for each connection that opens with the sandbox's secret. The secret lives in that folder,
// written before the container starts, so an emulator started again reads it back for the sandboxes it
// finds. The bytes of tool calls then never pass through the engine, and a new channel costs no engine call.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { CHANNEL_PREAMBLE_MAX_BYTES, CHANNEL_SECRET_FILE, CHANNEL_SOCKET_FILE } from "../../../sandbox-image/executor/protocol.js";

/** EMULATOR_CHANNEL: the socket where it works, else the exec stream (auto); or either one only. */
export type ChannelMode = "auto" | "socket" | "exec";

/** Environment IDs as the emulator makes them: anything else (a label edited by hand) is never a path. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** sockaddr_un holds 108 bytes with the terminating NUL: a longer path is reached through /proc/self/fd. */
const MAX_SOCKET_PATH = 107;
/**
 * Every channel socket reads into this one buffer (net.connect's `onread`), and its receiver copies what
 * it keeps before the read returns: the event loop runs one read's callback at a time, so one buffer
 * serves them all. A read takes what the executor's socket buffer holds (about 200 KiB at most by the
 * kernel's defaults) in one call, rather than a new 64 KiB buffer per read: fewer reads, and no buffer
 * made for each.
 */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

/**
 * A connected channel socket whose bytes arrive through the shared read buffer: `setReceiver` names
 * where they go, as views of that buffer that the next read overwrites. Bytes that arrive before it is
 * set are kept (copied) and handed over when it is.
 */
export interface ChannelSocket {
  socket: net.Socket;
  setReceiver(receive: (chunk: Buffer) => void): void;
}

/** Between two attempts while the keep-alive is not listening yet (a container just started). */
const RETRY_MS = [2, 5, 10, 20, 50, 100];

export class ChannelFolders {
  constructor(
    /** EMULATOR_DATA_DIR/channels/<instance>. */
    readonly root: string,
  ) {}

  folderOf(environmentId: string): string | null {
    return SAFE_NAME.test(environmentId) ? path.join(this.root, environmentId) : null;
  }

  /**
   * A new folder with a new secret for a sandbox about to be created. Both root's alone when the emulator
   * runs as root; otherwise the container's root (not the emulator's user, and granted no CAP_DAC_*) must
   * be able to create the socket and read the secret, so they are open to all, behind the data folder's
   * channels/ (0700, the emulator's): on the host nobody else gets that far, and in the container the
   * folder above the mount is root's 0700 (channel_server.go).
   */
  create(environmentId: string): string {
    const folder = this.folderOf(environmentId);
    if (!folder) throw new Error(`no channel folder for environment ID ${JSON.stringify(environmentId)}`);
    const asRoot = process.getuid?.() === 0;
    fs.mkdirSync(path.dirname(this.root), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.dirname(this.root), 0o700);
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    fs.rmSync(folder, { recursive: true, force: true });
    // recursive: the instance's folder may have just been removed with its last sandbox's (remove()).
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.chmodSync(folder, asRoot ? 0o700 : 0o777);
    fs.writeFileSync(path.join(folder, CHANNEL_SECRET_FILE), randomBytes(32).toString("hex"), { mode: asRoot ? 0o600 : 0o644 });
    return folder;
  }

  /** The sandbox's secret; null when it has no folder (made by an older emulator, or for the exec stream). */
  secretOf(environmentId: string): string | null {
    const folder = this.folderOf(environmentId);
    if (!folder) return null;
    try {
      return fs.readFileSync(path.join(folder, CHANNEL_SECRET_FILE), "utf8").trim();
    } catch {
      return null;
    }
  }

  /** Removes the sandbox's folder, and the instance's once it holds no other. */
  remove(environmentId: string): void {
    const folder = this.folderOf(environmentId);
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    try {
      fs.rmdirSync(this.root);
    } catch {
      // Another sandbox's folder is there (ENOTEMPTY), or it is gone already.
    }
  }

  /** The environments that have a folder. */
  environments(): string[] {
    try {
      return fs.readdirSync(this.root);
    } catch {
      return [];
    }
  }

  /**
   * Connects to the sandbox's socket and sends the preamble: its secret and the executor's arguments.
   * Retries while the socket is missing or refuses (the keep-alive has not listened yet) until the deadline.
   */
  async open(environmentId: string, secret: string, argv: readonly string[], deadlineMs: number): Promise<ChannelSocket> {
    const socketPath = path.join(this.folderOf(environmentId)!, CHANNEL_SOCKET_FILE);
    return openPreambled(() => connectUnix(socketPath), secret, argv, deadlineMs);
  }
}

/**
 * An idle channel over TCP sends its first keep-alive probe after this long without traffic (the OS's
 * default is two hours); libuv then probes every second, ten times, before the connection fails: a peer
 * whose machine vanished (no FIN) is noticed within about 20 s of quiet. With data in flight TCP does not
 * probe: the swarm runtime's ping (swarm/channel-heartbeat.ts) covers that.
 */
export const NETWORK_KEEPALIVE_IDLE_MS = 10_000;

/**
 * The channel over TCP (CHANNEL_PORT_FLAG: a sandbox on another machine, docs/scale-out.md): connects to
 * the keep-alive at host:port and sends the preamble, retrying as open() does while nothing listens yet.
 */
export async function openNetworkChannel(
  address: { host: string; port: number },
  secret: string,
  argv: readonly string[],
  deadlineMs: number,
): Promise<ChannelSocket> {
  return openPreambled(
    () => connectSocket({ ...address, noDelay: true, keepAlive: true, keepAliveInitialDelay: NETWORK_KEEPALIVE_IDLE_MS }),
    secret,
    argv,
    deadlineMs,
  );
}

/**
 * Connects with `connect` (retried while the keep-alive is not listening yet), then sends the preamble.
 * The swarm runtime's tests pass a relay onto the overlay as `connect`.
 */
export async function openPreambled(
  connect: () => Promise<ChannelSocket>,
  secret: string,
  argv: readonly string[],
  deadlineMs: number,
): Promise<ChannelSocket> {
  const preamble = Buffer.from(JSON.stringify({ secret, argv }));
  if (preamble.length > CHANNEL_PREAMBLE_MAX_BYTES) throw new Error(`the channel preamble is ${preamble.length} bytes`);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(preamble.length);
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const connected = await connect();
      connected.socket.write(Buffer.concat([length, preamble]));
      return connected;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
      if ((code !== "ENOENT" && code !== "ECONNREFUSED") || Date.now() + wait > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** A connected socket; a path too long for sockaddr_un goes through an open descriptor of its folder. */
async function connectUnix(socketPath: string): Promise<ChannelSocket> {
  let folderFd: number | null = null;
  let target = socketPath;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    folderFd = fs.openSync(path.dirname(socketPath), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    target = `/proc/self/fd/${folderFd}/${path.basename(socketPath)}`;
  }
  try {
    return await connectSocket({ path: target });
  } finally {
    if (folderFd !== null) fs.closeSync(folderFd);
  }
}

/** A connected socket (Unix or TCP) that reads into the shared buffer. */
async function connectSocket(options: net.NetConnectOpts): Promise<ChannelSocket> {
  let receiver: ((chunk: Buffer) => void) | null = null;
  const early: Buffer[] = [];
  const onread = {
    buffer: SHARED_READ_BUFFER,
    callback: (bytes: number, buffer: Buffer): boolean => {
      const chunk = buffer.subarray(0, bytes);
      if (receiver) receiver(chunk);
      else early.push(Buffer.from(chunk));
      return true;
    },
  };
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect({ ...options, onread });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
  return {
    socket,
    setReceiver(receive) {
      receiver = receive;
      for (const chunk of early.splice(0)) receive(chunk);
    },
  };
}

/**
 * Why the socket cannot work with this engine, or null: a Docker engine on another machine (DOCKER_HOST
 * over TCP or SSH) mounts a folder of its own machine, not this one's.
 */
export function whySocketCannotWork(docker: { modem?: unknown }): string | null {
  const modem = (docker.modem ?? {}) as { socketPath?: unknown; protocol?: unknown };
  // A path, or (no DOCKER_HOST) docker-modem's finder of the default one.
  const local = (typeof modem.socketPath === "string" && modem.socketPath !== "") || typeof modem.socketPath === "function";
  if (local) return null;
  return `the Docker engine is reached over ${String(modem.protocol ?? "the network")} (DOCKER_HOST), so a folder of this machine cannot be mounted in its containers`;
}

/**
 * Whether the engine refused a container because the folder to mount does not exist on its machine: an
 * emulator in a container whose data folder is not the engine's, an engine in a VM that does not share it.
 */
export function isMissingBindSource(error: unknown): boolean {
  return /bind source path does not exist|invalid mount config/i.test(String((error as Error)?.message ?? error));
}
