// An ExecutorClient wired to a scripted executor over in-memory streams: the test reads the requests
// the client sends and answers with whatever frames (or raw bytes) it likes, well-formed or not.

import { PassThrough } from "node:stream";
import { encodeFrame, FrameDecoder, type Frame } from "../../sandbox-image/executor/protocol.js";
import { ExecutorClient, type ExecutorClientOptions } from "../../server/sandbox/executor-client.js";

export interface SentRequest {
  id: number;
  header: Record<string, unknown>;
  body: Buffer;
}

export class FakeExecutorPeer {
  /** What the executor writes (its stdout): the client's input. */
  readonly executorOutput = new PassThrough();
  /** What the client writes: the executor's stdin. */
  readonly executorInput = new PassThrough();
  readonly client: ExecutorClient;
  private readonly decoder = new FrameDecoder<Record<string, unknown>>();
  private readonly unread: Frame<Record<string, unknown>>[] = [];
  private wake: Array<() => void> = [];

  constructor(options?: ExecutorClientOptions) {
    this.client = new ExecutorClient(this.executorOutput, this.executorInput, options);
    this.executorInput.on("data", (chunk: Buffer) => {
      this.unread.push(...this.decoder.push(chunk));
      const waiting = this.wake;
      this.wake = [];
      for (const resolve of waiting) resolve();
    });
  }

  /** The next request of this op the client sent (waiting for it if need be). */
  async request(op: string): Promise<SentRequest> {
    for (;;) {
      const index = this.unread.findIndex((frame) => frame.header["op"] === op);
      if (index >= 0) {
        const [frame] = this.unread.splice(index, 1);
        return { id: frame!.header["id"] as number, header: frame!.header, body: frame!.body };
      }
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }

  /** Sends one frame, as the executor (or something forging its output) would. */
  send(header: unknown, body?: Buffer): void {
    this.sendBytes(frameOf(header, body));
  }

  sendBytes(bytes: Buffer): void {
    // Once the client gave up on the channel it destroys its input; a forger may keep writing regardless.
    if (!this.executorOutput.destroyed) this.executorOutput.write(bytes);
  }

  /** The executor's stdout ends (it exited, or was killed). */
  endOutput(): void {
    this.executorOutput.end();
  }
}

/** One encoded frame; the header may be anything JSON can hold, objects or not. */
export function frameOf(header: unknown, body: Buffer = Buffer.alloc(0)): Buffer {
  // encodeFrame takes objects only (that is all the protocol sends); a hostile peer is not so polite.
  if (typeof header === "object" && header !== null) return encodeFrame(header, body);
  return rawFrame(Buffer.from(JSON.stringify(header), "utf8"), body);
}

/** A frame with exactly these header bytes, JSON or not. */
export function rawFrame(headerBytes: Buffer, body: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([lengthPrefix(headerBytes.length, body.length), headerBytes, body]);
}

export function lengthPrefix(headerLength: number, bodyLength: number): Buffer {
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(headerLength, 0);
  prefix.writeUInt32BE(bodyLength, 4);
  return prefix;
}

/** The fields of an `exit` message for a command that ended well, for tests to spread and vary. */
export const CLEAN_EXIT = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  cancelled: false,
  overDiskLimit: false,
  stdoutBytes: 0,
  stderrBytes: 0,
  durationMs: 1,
};
