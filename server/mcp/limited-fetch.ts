// fetch for the MCP client with a bound on how much one answer may hold. The SDK reads a server's JSON
// answer whole into memory and an SSE stream for as long as it lasts; a server that sends without end
// would otherwise grow the emulator's memory for every interaction at once. Past the bound the body
// errors (the connection is dropped), and the call fails with a sentence naming the setting.

import { McpResponseTooLargeError } from "./mcp-failure.js";

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `onLimit` is told when an answer passes the bound, so the requests waiting on it can fail at once
 * (an event stream that errors does not fail its request by itself: the SDK would wait for its timeout).
 * `count`, when given, sees every chunk too and may end the answer with an error of its own (a bound
 * over several answers, like the run's tool lists: mcp-list-bounds.ts).
 */
export function limitedFetch(
  maxBytes: number,
  onLimit: (error: Error) => void = () => undefined,
  inner: FetchLike = fetch,
  count: (bytes: number) => Error | undefined = () => undefined,
): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          const passed = seen <= maxBytes ? count(chunk.byteLength) : new McpResponseTooLargeError(maxBytes);
          if (passed === undefined) return controller.enqueue(chunk);
          const error = passed;
          controller.error(error);
          onLimit(error);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
