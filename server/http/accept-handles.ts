// More than one handle on the HTTP server's listening socket, so that a burst of new connections to a
// busy emulator is taken in many per turn of the event loop instead of one.
//
// Node's libuv (1.45 and later) accepts at most one connection per listening handle per turn of the
// loop. With hundreds of interactions at once on saturated cores a turn takes 10–30 ms, so 200 clients
// connecting at once were let in one by one, in arrival order, over 6 s, while the connections already
// open were served every turn (docs/benchmarks.md, throughput under concurrency). Each extra handle on
// the same socket takes in one more per turn.
//
// Node duplicates a socket's descriptor only by passing it over an IPC channel, so a short-lived child
// (accept-handles-child.ts) receives the listening socket as a bare handle and passes it back: each
// pass is a new descriptor of the same socket here. The child never listens on it, so it never takes a
// connection; the extra handles join while the emulator already serves on the first.

import { fork } from "node:child_process";
import net from "node:net";
import type { Server } from "node:http";

/** How long the child may take to pass the handles back before the emulator goes on with one. */
const SETUP_TIMEOUT_MS = 10_000;

export interface AcceptHandles {
  /** Resolves with how many handles listen (1 when the copies could not be made), the copier gone. */
  ready: Promise<number>;
  /** Stops the copies taking connections (those they took stay with the HTTP server); resolves once none holds the socket. */
  close(): Promise<void>;
}

/** What Node keeps of a listening net.Server: its libuv handle (what cluster workers are given). */
type ListeningHandle = object;

type Copier = ReturnType<typeof fork>;

/** Ends the copier; resolves once it is gone (its descriptor of the socket closed with it). */
function end(copier: Copier): Promise<void> {
  if (copier.exitCode !== null || copier.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => copier.once("exit", () => resolve()));
  copier.kill("SIGKILL");
  return gone;
}

/** Gives `server` (listening on TCP) `count` handles in all; the copies hand it their connections. */
export function addAcceptHandles(server: Server, count: number, log: (line: string) => void): AcceptHandles {
  const listening = (server as unknown as { _handle?: ListeningHandle | null })._handle;
  const address = server.address();
  if (count <= 1 || !listening || address === null || typeof address === "string") {
    return { ready: Promise.resolve(1), close: async () => undefined };
  }
  const copies: net.Server[] = [];
  let closed = false;
  const take = (handle: ListeningHandle) => {
    // The HTTP server's own socket options (http.Server: half-open allowed, no Nagle).
    const copy = net.createServer({ allowHalfOpen: true, noDelay: true });
    copy.on("connection", (socket) => server.emit("connection", socket));
    copy.on("error", (error) => log(`a copy of the listening socket failed: ${error.message}`));
    copy.listen(handle);
    copies.push(copy);
    if (closed) copy.close();
  };
  let started: Copier;
  try {
    // No inherited flags: an --inspect port or a --cpu-prof is the emulator's, not the copier's.
    started = fork(new URL("./accept-handles-child.js", import.meta.url), [], {
      execArgv: [],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
  } catch (error) {
    log(
      `taking in one new connection per event-loop turn: could not start the process that copies the listening socket (${(error as Error).message})`,
    );
    return { ready: Promise.resolve(1), close: async () => undefined };
  }
  const wanted = count - 1;
  const ready = new Promise<number>((resolve) => {
    let received = 0;
    let settled = false;
    const done = (why?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (why && !closed) log(`taking in ${received + 1} new connection(s) per event-loop turn instead of ${count}: ${why}`);
      started.removeAllListeners("message");
      void end(started).then(() => resolve(received + 1));
    };
    const timer = setTimeout(() => done(`the copies took over ${SETUP_TIMEOUT_MS / 1000} s`), SETUP_TIMEOUT_MS);
    started.on("message", (_message, handle) => {
      if (!handle) return;
      take(handle as unknown as ListeningHandle);
      received += 1;
      if (received === wanted) done();
    });
    started.on("error", (error) => done(error.message));
    started.on("exit", (code) => done(`the process that copies the listening socket ended (${code ?? "killed"})`));
    started.send({ count: wanted }, listening as unknown as net.Server);
  });
  return {
    ready,
    close: async () => {
      closed = true;
      // The copier's own descriptor would keep the port listening.
      await end(started);
      await Promise.all(copies.map((copy) => new Promise((resolve) => copy.close(resolve))));
    },
  };
}
