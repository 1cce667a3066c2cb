// SandboxChannel conformance, part: egress streams: the listener, connections carried over the channel, flow control.

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import type { Duplex } from "node:stream";
import { finished } from "node:stream/promises";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EGRESS_MAX_STREAMS, EGRESS_WINDOW_BYTES } from "../../../sandbox-image/executor/protocol.js";
import { EgressStream } from "../../../server/sandbox/egress-stream.js";
import { SandboxEgressError, SandboxUnavailableError, type CommandResult, type SandboxChannel } from "../../../server/sandbox/runtime.js";
import * as programs from "../egress-programs.js";
import { MiB, type ChannelSuite } from "./context.js";

export function egressBehaviours(t: ChannelSuite): void {
  const { channel, run } = t;
  describe("egress streams", () => {
    let egressPort = 0;
    const KiB = 1024;

    before(async () => {
      const { egressPort: wanted } = t.subject();
      egressPort = await channel().listenEgress(wanted);
      if (wanted !== 0) assert.equal(egressPort, wanted);
    });

    const openAnotherChannel = (): Promise<SandboxChannel> => {
      return t.subject().openAnotherChannel();
    };

    /** Runs one of the egress programs in the sandbox against a listener port (the channel's by default). */
    const runProgram = (program: string, args: Array<string | number> = [], port = egressPort): Promise<CommandResult> =>
      run(["python3", "-c", program, String(port), ...args.map(String)], { timeoutMs: 60_000 });

    const reportOf = <T>(result: CommandResult): T => {
      assert.equal(result.exitCode, 0, `program failed: ${result.stderr.toString()}`);
      const lines = result.stdout.toString().trim().split("\n");
      return JSON.parse(lines.at(-1) ?? "null") as T;
    };

    /**
     * Serves the streams of the next connections with `serve`. Each stream gets an 'error' listener
     * first, so a failure lands in the test (through `served`) rather than crashing the runner.
     * `served(atLeast)` first waits for that many streams to have arrived: a program can connect, send
     * and exit before the executor accepts its connection, so its command's answer may come before the
     * connection's stream does.
     */
    const serveEgress = (target: SandboxChannel, serve: (stream: Duplex) => Promise<void>) => {
      const served: Array<Promise<void>> = [];
      const waiting: Array<{ count: number; arrived: () => void }> = [];
      target.onEgressStream((stream) => {
        stream.on("error", () => undefined);
        const serving = serve(stream);
        serving.catch(() => undefined);
        served.push(serving);
        for (const waiter of waiting.filter((entry) => served.length >= entry.count)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.arrived();
        }
      });
      const arrived = (count: number): Promise<void> =>
        served.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, arrived: () => resolve() }));
      return {
        count: () => served.length,
        served: async (atLeast = 0) => {
          await arrived(atLeast);
          await Promise.all(served);
        },
      };
    };

    const readToEnd = (stream: Duplex): Promise<Buffer> =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.once("end", () => resolve(Buffer.concat(chunks)));
        stream.once("error", reject);
        // A 'data' listener alone does not restart a stream that was explicitly paused.
        stream.resume();
      });

    /** The first line (newline included); the stream is left paused after it. */
    const readLine = (stream: Duplex): Promise<string> =>
      new Promise((resolve, reject) => {
        let text = "";
        const onData = (chunk: Buffer): void => {
          text += chunk.toString();
          if (!text.includes("\n")) return;
          stream.off("data", onData);
          stream.pause();
          resolve(text);
        };
        stream.on("data", onData);
        stream.once("end", () => resolve(text));
        stream.once("error", reject);
      });

    /** Resolves with the stream's error, or null if it closed without one. */
    const outcome = (stream: Duplex): Promise<Error | null> =>
      new Promise((resolve) => {
        stream.once("error", resolve);
        stream.once("close", () => resolve(null));
      });

    const upperCaseEcho = async (stream: Duplex): Promise<void> => {
      const line = await readLine(stream);
      stream.write(line.toUpperCase());
      await readToEnd(stream);
      stream.end();
      await finished(stream);
    };

    it("carries a sandbox program's connection to the server's handler and back", async () => {
      const server = serveEgress(channel(), upperCaseEcho);
      const report = reportOf<string>(await runProgram(programs.ROUND_TRIP, ["hello from the sandbox"]));
      assert.equal(report, "HELLO FROM THE SANDBOX\n");
      await server.served();
      assert.equal(server.count(), 1);
    });

    it("ends the server's readable side when the program half-closes, and still carries the answer back", async () => {
      const server = serveEgress(channel(), async (stream) => {
        const question = await readToEnd(stream);
        stream.end(`answer to: ${question.toString()}`);
        await finished(stream);
      });
      const report = reportOf<string>(await runProgram(programs.HALF_CLOSE_FIRST));
      assert.equal(report, "answer to: question from the sandbox");
      await server.served();
    });

    it("ends the program's reading side when the server half-closes, and still carries the program's data", async () => {
      let received = "";
      const server = serveEgress(channel(), async (stream) => {
        stream.end("greeting from the server");
        received = (await readToEnd(stream)).toString();
        await finished(stream);
      });
      const report = reportOf<string>(await runProgram(programs.SEND_AFTER_SERVER_END));
      assert.equal(report, "greeting from the server");
      await server.served();
      assert.equal(received, "sent after the server's end");
    });

    it("carries 20 MiB from the program to a slow server reader, holding the program back meanwhile", async (t) => {
      const total = 20 * MiB;
      let heldAfterStall = -1;
      let maxHeld = 0;
      let maxReadableLength = 0;
      let readingStartedAt = 0;
      const server = serveEgress(channel(), async (stream) => {
        assert.ok(stream instanceof EgressStream);
        // Not reading at all for a while: the program must stall, not the memory grow.
        await sleep(2_000);
        heldAfterStall = stream.unacknowledgedBytesReceived;
        readingStartedAt = Date.now();
        const digest = createHash("sha256");
        let received = 0;
        let chunks = 0;
        for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
          maxHeld = Math.max(maxHeld, stream.unacknowledgedBytesReceived);
          maxReadableLength = Math.max(maxReadableLength, stream.readableLength);
          digest.update(chunk as Buffer);
          received += (chunk as Buffer).length;
          if (++chunks % 4 === 0) await sleep(1);
        }
        stream.end(`${received} ${digest.digest("hex")}`);
        await finished(stream);
      });
      const report = reportOf<{ sentDuringStall: number; sha256: string; reply: string }>(await runProgram(programs.UPLOAD, [total, 1.5]));
      await server.served();
      const seconds = (Date.now() - readingStartedAt) / 1000;
      t.diagnostic(
        `sent while the reader stalled: ${report.sentDuringStall} bytes; slow read of the rest: ${(total / MiB / seconds).toFixed(1)} MiB/s`,
      );
      assert.equal(report.reply, `${total} ${report.sha256}`, "the bytes arrived changed");
      // Window + executor socket buffers + a small kernel send buffer; far from the 20 MiB it would reach unheld.
      assert.ok(report.sentDuringStall < 4 * MiB, `the program sent ${report.sentDuringStall} bytes while nobody read`);
      assert.ok(heldAfterStall > 0 && heldAfterStall <= EGRESS_WINDOW_BYTES, `held ${heldAfterStall} bytes after the stall`);
      assert.ok(maxHeld <= EGRESS_WINDOW_BYTES, `held ${maxHeld} bytes while reading`);
      assert.ok(maxReadableLength <= 128 * KiB, `readable buffer reached ${maxReadableLength} bytes`);
    });

    it("carries 20 MiB from the server to a slow program reader, holding the server's writes back meanwhile", async (t) => {
      const total = 20 * MiB;
      // The executor's socket send buffer is the kernel's to size (Node cannot cap it) and autotunes up
      // to tcp_wmem's maximum; beyond that, one window and the stream buffers is all we may hold.
      const wmem = await run(["cat", "/proc/sys/net/ipv4/tcp_wmem"]);
      const kernelSendBufferMax = Number(wmem.stdout.toString().trim().split(/\s+/)[2]);
      const allowedDuringStall = kernelSendBufferMax + EGRESS_WINDOW_BYTES + 512 * KiB;
      assert.ok(allowedDuringStall < total / 2, `tcp_wmem allows ${kernelSendBufferMax} bytes: too much for this test to mean anything`);
      const payload = randomBytes(total);
      let writtenDuringStall = -1;
      let maxInFlight = 0;
      let maxWritableLength = 0;
      let falseWrites = 0;
      let startedAt = 0;
      const server = serveEgress(channel(), async (stream) => {
        assert.ok(stream instanceof EgressStream);
        stream.resume();
        startedAt = Date.now();
        let offset = 0;
        const probe = setTimeout(() => (writtenDuringStall = offset), 1_000);
        try {
          while (offset < total) {
            const chunk = payload.subarray(offset, offset + 64 * KiB);
            offset += chunk.length;
            const more = stream.write(chunk);
            maxInFlight = Math.max(maxInFlight, stream.unacknowledgedBytesSent);
            maxWritableLength = Math.max(maxWritableLength, stream.writableLength);
            if (!more) {
              falseWrites++;
              await once(stream, "drain");
            }
          }
        } finally {
          clearTimeout(probe);
        }
        stream.end();
        await finished(stream);
      });
      const report = reportOf<{ received: number; sha256: string }>(await runProgram(programs.SLOW_DOWNLOAD, [2.0]));
      await server.served();
      const seconds = (Date.now() - startedAt) / 1000 - 2;
      t.diagnostic(
        `written while the reader stalled: ${writtenDuringStall} bytes; slow read of the rest: ${(total / MiB / seconds).toFixed(1)} MiB/s`,
      );
      assert.equal(report.received, total);
      assert.equal(report.sha256, createHash("sha256").update(payload).digest("hex"), "the bytes arrived changed");
      assert.ok(
        writtenDuringStall >= 0 && writtenDuringStall < allowedDuringStall,
        `write() took ${writtenDuringStall} bytes while nobody read (allowed: ${allowedDuringStall})`,
      );
      assert.ok(falseWrites > 0, "write() never asked the writer to wait");
      assert.ok(maxInFlight <= EGRESS_WINDOW_BYTES, `${maxInFlight} bytes in flight`);
      assert.ok(maxWritableLength <= 128 * KiB, `the writable buffer reached ${maxWritableLength} bytes`);
    });

    it("serves 50 connections open at the same time", async () => {
      const count = 50;
      let open = 0;
      let maxOpen = 0;
      let complete = 0;
      let allArrived!: () => void;
      const arrived = new Promise<void>((resolve) => (allArrived = resolve));
      const server = serveEgress(channel(), async (stream) => {
        maxOpen = Math.max(maxOpen, ++open);
        stream.once("close", () => open--);
        const text = (await readToEnd(stream)).toString();
        if (++complete === count) allArrived();
        // Nobody is answered before every connection is open at once.
        await arrived;
        stream.end(text.toUpperCase());
        await finished(stream);
      });
      const replies = reportOf<string[]>(await runProgram(programs.MANY_CONNECTIONS, [count]));
      await server.served();
      assert.deepEqual(
        replies,
        Array.from({ length: count }, (_, index) => `CONNECTION ${index}`),
      );
      assert.equal(maxOpen, count);
    });

    it("resets the program's socket when the server destroys the stream", async () => {
      let streamOutcome: Promise<Error | null> | undefined;
      serveEgress(channel(), async (stream) => {
        streamOutcome = outcome(stream);
        await once(stream, "data");
        stream.destroy();
      });
      assert.equal(reportOf<string>(await runProgram(programs.AWAIT_VERDICT)), "reset");
      assert.equal(await streamOutcome, null);
    });

    it("still delivers what was sent, then closes normally, when the server destroys the stream after ending it", async () => {
      const payload = randomBytes(MiB);
      serveEgress(channel(), async (stream) => {
        stream.resume();
        stream.end(payload);
        // Everything has left for the sandbox, the program has not read the last window yet.
        await new Promise((resolve) => stream.once("finish", resolve));
        stream.destroy();
      });
      const report = reportOf<{ received: number; sha256: string }>(await runProgram(programs.SLOW_DOWNLOAD, [1.0]));
      assert.equal(report.received, payload.length);
      assert.equal(report.sha256, createHash("sha256").update(payload).digest("hex"));
    });

    it("fails the server stream with ECONNRESET when the program resets its connection", async () => {
      let failure: Error | null = null;
      const server = serveEgress(channel(), async (stream) => {
        const ended = outcome(stream);
        stream.write("ready\n");
        await readLine(stream);
        stream.write("got it\n");
        stream.resume();
        failure = await ended;
      });
      assert.equal(reportOf<string>(await runProgram(programs.RESET_CONNECTION)), "reset sent");
      await server.served();
      assert.ok(failure !== null, "the stream closed without an error");
      assert.equal((failure as NodeJS.ErrnoException).code, "ECONNRESET");
    });

    it("ends the server stream when the program exits, and fails the server's writes after", async () => {
      let received = "";
      let failure: Error | null = null;
      const server = serveEgress(channel(), async (stream) => {
        const ended = outcome(stream);
        received = (await readToEnd(stream)).toString();
        // The program is gone: writing on must fail (its kernel answers with a reset), not pile up.
        const writer = setInterval(() => stream.write("anyone there?\n"), 50);
        failure = await ended;
        clearInterval(writer);
      });
      assert.equal(reportOf<string>(await runProgram(programs.EXIT_MID_CONNECTION)), "exiting");
      await server.served(1);
      assert.equal(received, "last words");
      assert.ok(failure !== null, "the stream closed without an error");
      assert.ok(["EPIPE", "ECONNRESET"].includes((failure as NodeJS.ErrnoException).code ?? ""), String(failure));
    });

    it(`refuses connections beyond ${EGRESS_MAX_STREAMS} at once, and takes new ones once they close`, async () => {
      const extra = 20;
      const server = serveEgress(channel(), async (stream) => {
        stream.resume();
        await once(stream, "end");
        stream.end();
        await finished(stream);
      });
      const flood = reportOf<{ open: number; closed: number }>(await runProgram(programs.FLOOD, [EGRESS_MAX_STREAMS + extra]));
      await server.served(EGRESS_MAX_STREAMS);
      assert.deepEqual(flood, { open: EGRESS_MAX_STREAMS, closed: extra });
      assert.equal(server.count(), EGRESS_MAX_STREAMS);
      serveEgress(channel(), upperCaseEcho);
      assert.equal(reportOf<string>(await runProgram(programs.ROUND_TRIP, ["after the flood"])), "AFTER THE FLOOD\n");
    });

    it("destroys every stream when the channel closes, and the program sees its connections reset", async () => {
      const other = await openAnotherChannel();
      const port = await other.listenEgress(0);
      const count = 3;
      const outcomes: Array<Promise<Error | null>> = [];
      let allOpen!: () => void;
      const opened = new Promise<void>((resolve) => (allOpen = resolve));
      let greeted = 0;
      other.onEgressStream((stream) => {
        outcomes.push(outcome(stream));
        // The program greets on each socket only once all its connects returned: closing the channel
        // any earlier could reset a connect still under way (the test would then see a failed connect).
        stream.once("data", () => {
          greeted += 1;
          if (greeted === count) allOpen();
        });
        stream.resume();
      });
      const program = runProgram(programs.WATCH_CONNECTIONS_END, [count], port);
      await opened;
      other.close();
      await other.closed;
      for (const failure of await Promise.all(outcomes)) assert.ok(failure instanceof SandboxUnavailableError, String(failure));
      const report = reportOf<{ outcomes: string[]; later: string }>(await program);
      assert.deepEqual(report, { outcomes: ["reset", "reset", "reset"], later: "refused" });
    });

    it("listens on the same port again once the previous executor has exited", async () => {
      const first = await openAnotherChannel();
      const port = await first.listenEgress(0);
      const second = await openAnotherChannel();
      try {
        const started = Date.now();
        // Asked while the first executor still holds the port: it retries until the port is free.
        const listening = second.listenEgress(port);
        await sleep(800);
        first.close();
        assert.equal(await listening, port);
        assert.ok(Date.now() - started >= 800, "the port was never busy");
        serveEgress(second, upperCaseEcho);
        assert.equal(reportOf<string>(await runProgram(programs.ROUND_TRIP, ["second life"], port)), "SECOND LIFE\n");
      } finally {
        first.close();
        second.close();
      }
    });

    it("fails with EADDRINUSE when the port stays taken for the whole retry period", async () => {
      const other = await openAnotherChannel();
      try {
        const started = Date.now();
        await assert.rejects(other.listenEgress(egressPort), (error: unknown) => {
          assert.ok(error instanceof SandboxEgressError, String(error));
          assert.equal(error.code, "EADDRINUSE");
          return true;
        });
        assert.ok(Date.now() - started >= 4_000, `gave up after ${Date.now() - started} ms`);
      } finally {
        other.close();
      }
    });

    it("refuses a second listener on the same channel with EALREADY", async () => {
      await assert.rejects(channel().listenEgress(0), (error: unknown) => {
        assert.ok(error instanceof SandboxEgressError, String(error));
        assert.equal(error.code, "EALREADY");
        return true;
      });
    });
  });
}
