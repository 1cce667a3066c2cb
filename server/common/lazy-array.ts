// A JSON array whose items are produced one at a time, each only when a writer reaches it (the steps of
// a stored interaction, read from the store page by page while the answer is written). The streaming
// JSON writer (http/json-stream-writer.ts) renders it as an array; nothing else should meet one.

export class LazyArray<T = unknown> {
  constructor(readonly items: Iterable<T> | AsyncIterable<T>) {}

  /** JSON.stringify of a LazyArray would silently give {}: it must go through the streaming writer. */
  toJSON(): never {
    throw new Error("a LazyArray is written by the streaming JSON writer only");
  }
}
