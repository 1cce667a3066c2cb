// Cooperative pauses for work that may be long when a request is large (parsing, reading and storing
// tens of MiB): yielding between its pieces lets the event loop answer other requests (/health
// included) in between, so one large request never holds the server for the sum of its pieces.

/** Resolves on the next turn of the event loop, after pending I/O callbacks have run. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
