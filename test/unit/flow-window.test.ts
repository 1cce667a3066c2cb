import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ReceiveWindow, SendWindow } from "../../sandbox-image/executor/flow-window.js";

describe("SendWindow", () => {
  it("allows sending up to the window, and as much again as is acknowledged", () => {
    const window = new SendWindow(100);
    assert.equal(window.available(), 100);
    window.spend(70);
    window.spend(30);
    assert.equal(window.available(), 0);
    assert.equal(window.inFlight(), 100);
    assert.equal(window.credit(40), true);
    assert.equal(window.available(), 40);
    assert.equal(window.inFlight(), 60);
  });

  it("refuses to spend credit it does not have", () => {
    const window = new SendWindow(100);
    window.spend(90);
    assert.throws(() => window.spend(11), RangeError);
    assert.equal(window.inFlight(), 90);
  });

  it("rejects acknowledgements of bytes never sent, and nonsense amounts", () => {
    const window = new SendWindow(100);
    window.spend(50);
    for (const bogus of [51, 0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      assert.equal(window.credit(bogus), false, `credit(${bogus})`);
    }
    assert.equal(window.inFlight(), 50, "a rejected acknowledgement changed the count");
    assert.equal(window.credit(50), true);
  });
});

describe("ReceiveWindow", () => {
  it("accepts up to the window and rejects what goes past it", () => {
    const window = new ReceiveWindow(100);
    assert.equal(window.receive(60), true);
    assert.equal(window.receive(40), true);
    assert.equal(window.receive(1), false);
    assert.equal(window.held(), 100);
  });

  it("batches acknowledgements to a quarter of the window", () => {
    const window = new ReceiveWindow(100);
    window.receive(100);
    assert.equal(window.consume(10), 0);
    assert.equal(window.consume(14), 0);
    assert.equal(window.consume(1), 25);
    assert.equal(window.held(), 75);
    assert.equal(window.consume(30), 30);
    assert.equal(window.held(), 45);
  });

  it("frees room for more only once bytes are acknowledged", () => {
    const window = new ReceiveWindow(100);
    window.receive(100);
    window.consume(10);
    assert.equal(window.receive(1), false, "consumed but unacknowledged bytes still count");
    window.consume(20);
    assert.equal(window.receive(30), true);
  });

  it("never leaves a sender that honours it waiting forever, whatever the chunk sizes", () => {
    const size = 1000;
    const send = new SendWindow(size);
    const receive = new ReceiveWindow(size);
    let seed = 7;
    const random = (limit: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return 1 + (seed % limit);
    };
    let toSend = 200_000;
    let unread = 0;
    let delivered = 0;
    for (let round = 0; toSend > 0 || unread > 0; round++) {
      assert.ok(round < 1_000_000, "no progress");
      const chunk = Math.min(toSend, send.available(), random(300));
      if (chunk > 0) {
        send.spend(chunk);
        assert.equal(receive.receive(chunk), true, "an honest sender overran the window");
        toSend -= chunk;
        unread += chunk;
      }
      const read = Math.min(unread, random(200));
      if (read > 0) {
        unread -= read;
        delivered += read;
        const acknowledged = receive.consume(read);
        if (acknowledged > 0) assert.equal(send.credit(acknowledged), true);
      }
      assert.ok(send.inFlight() <= size);
    }
    assert.equal(delivered, 200_000);
  });
});
