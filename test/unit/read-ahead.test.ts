import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readAhead } from "../../server/files/read-ahead.js";

/** A file in a fake channel whose readFileChunk answers when told to, recording what was asked. */
function fakeFile(content: Buffer) {
  const asked: Array<{ offset: number; length: number; answer: () => void; fail: (error: Error) => void }> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const channel = {
    readFileChunk(_path: string, offset: number, length: number): Promise<{ content: Buffer; size: number }> {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      return new Promise((resolve, reject) => {
        asked.push({
          offset,
          length,
          answer: () => {
            inFlight--;
            resolve({ content: content.subarray(offset, offset + length), size: content.length });
          },
          fail: (error) => {
            inFlight--;
            reject(error);
          },
        });
      });
    },
  };
  return { channel, asked, mostInFlight: () => mostInFlight, setContent: (next: Buffer) => (content = next) };
}

const shrank = (offset: number) => new Error(`shrank to ${offset}`);
const bytes = (length: number) => Buffer.from(Array.from({ length }, (_, index) => index % 251));

/** Answers every request as it comes, in the order asked (a channel answers in order of arrival). */
async function answerAll(asked: ReturnType<typeof fakeFile>["asked"], done: Promise<unknown>): Promise<void> {
  let settled = false;
  void done.finally(() => (settled = true));
  while (!settled) {
    const next = asked.shift();
    if (next) next.answer();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("readAhead", () => {
  it("gives the file's chunks in order, asking for up to `depth` at once", async () => {
    const file = bytes(10_000);
    const fake = fakeFile(file);
    const chunks: Buffer[] = [];
    const reading = (async () => {
      for await (const chunk of readAhead(fake.channel, "/f", file.length, file.subarray(0, 1000), {
        chunkBytes: 1000,
        depth: 3,
        shrank,
      })) {
        chunks.push(chunk);
      }
    })();
    await answerAll(fake.asked, reading);
    await reading;
    assert.ok(Buffer.concat(chunks).equals(file));
    assert.equal(chunks.length, 10);
    assert.equal(fake.mostInFlight(), 3);
  });

  it("keeps asking while the consumer is still writing the last chunk out", async () => {
    const file = bytes(5000);
    const fake = fakeFile(file);
    const chunks = readAhead(fake.channel, "/f", file.length, file.subarray(0, 1000), { chunkBytes: 1000, depth: 2, shrank });
    // The first chunk is handed out with the next two already asked for.
    assert.equal((await chunks.next()).value?.length, 1000);
    assert.deepEqual(
      fake.asked.map((request) => request.offset),
      [1000, 2000],
    );
  });

  it("throws when a chunk comes back short: the file shrank", async () => {
    const file = bytes(4000);
    const fake = fakeFile(file);
    fake.setContent(file.subarray(0, 2500));
    const reading = (async () => {
      for await (const _ of readAhead(fake.channel, "/f", 4000, file.subarray(0, 1000), { chunkBytes: 1000, depth: 2, shrank })) {
        // consumed
      }
    })();
    await answerAll(
      fake.asked,
      reading.catch(() => undefined),
    );
    await assert.rejects(reading, /shrank to 2500/);
  });

  it("throws when the first chunk is empty though the file is not", async () => {
    const fake = fakeFile(Buffer.alloc(0));
    await assert.rejects(readAhead(fake.channel, "/f", 10, Buffer.alloc(0), { chunkBytes: 4, shrank }).next(), /shrank to 0/);
  });

  it("gives nothing for an empty file and asks for nothing", async () => {
    const fake = fakeFile(Buffer.alloc(0));
    const all = [];
    for await (const chunk of readAhead(fake.channel, "/f", 0, Buffer.alloc(0), { chunkBytes: 4, shrank })) all.push(chunk);
    assert.deepEqual(all, []);
    assert.equal(fake.asked.length, 0);
  });

  it("leaves no unhandled rejection when the consumer stops and the requests in flight then fail", async () => {
    const file = bytes(5000);
    const fake = fakeFile(file);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      for await (const _ of readAhead(fake.channel, "/f", file.length, file.subarray(0, 1000), { chunkBytes: 1000, depth: 3, shrank }))
        break;
      for (const request of fake.asked.splice(0)) request.fail(new Error("channel closed"));
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
