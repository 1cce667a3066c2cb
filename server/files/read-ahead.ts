// A file's content read from the sandbox chunk by chunk with the next chunks already asked for, so that
// the channel carries the next megabyte while the last one is written out (a download's response, a
// folder's archive). One request at a time, each waiting for the other's turn, left both the executor and
// the response idle half the time.

import type { SandboxChannel } from "../sandbox/runtime.js";

/**
 * Chunks (of a download or an archived file) asked for before the one being written out is done: with
 * 1 MiB chunks, a download holds at most this many MiB of its file at once (docs/security.md#limits).
 */
export const READ_AHEAD_CHUNKS = 4;

/**
 * The `size` bytes of `absolute` after its `first` chunk (read already: reading it is what proves the
 * file readable), in order, with up to `depth` readFileChunk requests in flight. Throws `shrank(offset)`
 * when a chunk comes back short: the file shrank while it was read, so the bytes announced cannot all
 * be sent. A consumer that stops early leaves the requests in flight to end on their own.
 */
export async function* readAhead(
  channel: Pick<SandboxChannel, "readFileChunk">,
  absolute: string,
  size: number,
  first: Buffer,
  options: { chunkBytes: number; depth?: number; shrank: (offset: number) => Error },
): AsyncGenerator<Buffer, void, undefined> {
  const depth = Math.max(1, options.depth ?? READ_AHEAD_CHUNKS);
  const inFlight: Array<{ offset: number; length: number; content: Promise<Buffer> }> = [];
  let asked = Math.min(first.length, size);
  const askMore = () => {
    while (inFlight.length < depth && asked < size) {
      const length = Math.min(options.chunkBytes, size - asked);
      const content = channel.readFileChunk(absolute, asked, length).then((chunk) => chunk.content);
      // Observed at once: a consumer that stopped early never awaits it, and its failure must not be unhandled.
      content.catch(() => undefined);
      inFlight.push({ offset: asked, length, content });
      asked += length;
    }
  };
  if (size === 0) return;
  if (first.length === 0) throw options.shrank(0);
  askMore();
  yield first.length > size ? first.subarray(0, size) : first;
  for (let next = inFlight.shift(); next !== undefined; next = inFlight.shift()) {
    const content = await next.content;
    askMore();
    if (content.length < next.length) throw options.shrank(next.offset + content.length);
    yield content.subarray(0, next.length);
  }
}
