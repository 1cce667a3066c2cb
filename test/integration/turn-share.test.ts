// The interactions' work gets a bounded share of each event-loop turn (server/common/turn-share.ts):
// past a turn's share the steps wait, in the order they asked, and the loop reads its I/O between
// shares. Steps here are busy-waits of a known length; the I/O is a byte sent over a loopback socket
// once the share is spent, and the order in which things happen is what is checked, not their times.

import assert from "node:assert/strict";
import net from "node:net";
import { describe, it } from "node:test";
import { TURN_SHARE_MS, turnShare } from "../../server/common/turn-share.js";

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning, as a step's own work does
  }
}

async function connectedPair(): Promise<{ server: net.Server; client: net.Socket; accepted: net.Socket }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const acceptedP = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  const client = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => client.once("connect", resolve));
  return { server, client, accepted: await acceptedP };
}

describe("turn share: the interactions' work in bounded shares of each event-loop turn", () => {
  it("goes on at once within a share", () => {
    assert.equal(turnShare(), undefined);
  });

  it("past a share, steps wait in the order they asked, and the loop reads its I/O between shares", async () => {
    const { server, client, accepted } = await connectedPair();
    const order: string[] = [];
    const read = new Promise<void>((resolve) =>
      accepted.once("data", () => {
        order.push("io");
        resolve();
      }),
    );
    try {
      // A new turn, so that this test's share starts now.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(turnShare(), undefined);
      busy(TURN_SHARE_MS + 1);
      // Spent: the byte arrives while 20 steps of 2 ms each wait for their shares.
      client.write("x");
      const steps = Array.from({ length: 20 }, (_, index) => {
        const share = turnShare();
        assert.ok(share, `step ${index} went on past a spent share`);
        return share.then(() => {
          order.push(`step ${index}`);
          busy(2);
        });
      });
      await Promise.all([...steps, read]);
      const stepsInOrder = order.filter((entry) => entry !== "io");
      assert.deepEqual(
        stepsInOrder,
        Array.from({ length: 20 }, (_, index) => `step ${index}`),
      );
      // At most two shares (the rest of this turn's check phase and one more) before the loop polled.
      const io = order.indexOf("io");
      assert.ok(io <= Math.ceil((2 * TURN_SHARE_MS) / 2) + 2, `the byte was read after ${io} of 20 steps: ${order.join(", ")}`);
    } finally {
      client.destroy();
      accepted.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
