// A burst of new connections is taken in several per turn of the event loop (server/http/accept-handles.ts).
// Node's libuv takes one connection per listening handle per turn; on a busy emulator a turn lasts
// 10–30 ms, so 200 clients connecting at once were let in one per turn over seconds. The turns are
// counted here, not timed: the connections are queued in the kernel while the loop is held, then each
// turn is counted until the server has seen them all.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { after, describe, it } from "node:test";
import { addAcceptHandles } from "../../server/http/accept-handles.js";
import { startFakeRuntimeEmulator } from "../support/fake-runtime.js";

const CONNECTIONS = 48;

function holdTheLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Opens `count` connections to `port` while the loop is held, then counts the turns until `server` has taken them all. */
async function turnsToTakeIn(server: http.Server, port: number, count: number): Promise<number> {
  let taken = 0;
  const counted = () => {
    taken += 1;
  };
  server.on("connection", counted);
  const clients = Array.from({ length: count }, () => net.connect(port, "127.0.0.1"));
  try {
    // The kernel completes each handshake and queues the connection; nothing is taken in meanwhile.
    holdTheLoop(200);
    let turns = 0;
    while (taken < count) {
      await new Promise((resolve) => setImmediate(resolve));
      turns += 1;
      assert.ok(turns <= count * 4, `only ${taken} of ${count} connections taken in after ${turns} turns`);
    }
    return turns;
  } finally {
    server.off("connection", counted);
    for (const client of clients) client.destroy();
  }
}

async function listening(): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

async function closeAll(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Listens on `port` (refused with EADDRINUSE while anything still holds it), then closes. */
async function listensAgain(port: number): Promise<void> {
  const again = http.createServer();
  await new Promise<void>((resolve, reject) => {
    again.once("error", reject);
    again.listen(port, "127.0.0.1", resolve);
  });
  await new Promise((resolve) => again.close(resolve));
}

/** How many descriptors this process holds on each socket (inode → count). */
function descriptorsPerSocket(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target.startsWith("socket:")) counts.set(target, (counts.get(target) ?? 0) + 1);
  }
  return counts;
}

describe("accept handles: a burst of new connections taken in many per event-loop turn", { timeout: 60_000 }, () => {
  it("with one handle Node takes in one connection per turn (why the copies exist)", async () => {
    const { server, port } = await listening();
    try {
      const turns = await turnsToTakeIn(server, port, CONNECTIONS);
      assert.ok(turns >= CONNECTIONS, `${turns} turns for ${CONNECTIONS} connections: Node now takes in several per turn on one handle`);
    } finally {
      await closeAll(server);
    }
  });

  it("with 8 handles on the same socket, eight per turn, and every connection is served", async () => {
    const { server, port } = await listening();
    const handles = addAcceptHandles(server, 8, (line) => assert.fail(line));
    try {
      assert.equal(await handles.ready, 8);
      const turns = await turnsToTakeIn(server, port, CONNECTIONS);
      assert.ok(turns <= CONNECTIONS / 8 + 2, `${turns} turns for ${CONNECTIONS} connections on 8 handles`);
      // Connections taken in by a copy are the HTTP server's like any other.
      const answers = await Promise.all(
        Array.from({ length: 32 }, async () => (await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(10_000) })).text()),
      );
      assert.deepEqual(new Set(answers), new Set(["ok"]));
    } finally {
      await handles.close();
      await closeAll(server);
    }
  });

  it("closed, no copy keeps the port: it can be listened on again at once", async () => {
    const { server, port } = await listening();
    const handles = addAcceptHandles(server, 4, (line) => assert.fail(line));
    assert.equal(await handles.ready, 4);
    await handles.close();
    await closeAll(server);
    await listensAgain(port);
  });

  it("closed while the copies are being made, it still frees the port", async () => {
    const { server, port } = await listening();
    const handles = addAcceptHandles(server, 16, () => undefined);
    const closing = handles.close();
    await closeAll(server);
    await closing;
    assert.ok((await handles.ready) < 16);
    await listensAgain(port);
  });
});

describe("accept handles in the emulator", { timeout: 60_000 }, () => {
  let close: (() => Promise<void>) | undefined;
  after(async () => close?.());

  it("listens on EMULATOR_HTTP_ACCEPT_HANDLES descriptors of its one socket", async () => {
    const before = descriptorsPerSocket();
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_HTTP_ACCEPT_HANDLES: "5" });
    close = () => emulator.close();
    let most = 0;
    for (let waited = 0; waited < 10_000 && most < 5; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      most = Math.max(0, ...[...descriptorsPerSocket()].filter(([socket]) => !before.has(socket)).map(([, count]) => count));
    }
    assert.equal(most, 5);
    const health = await fetch(`${emulator.url}/health`);
    assert.equal(health.status, 200);
  });
});
