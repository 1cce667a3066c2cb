// The bytes one model turn may read from its server (EMULATOR_MODEL_ANSWER_BYTES), counted on the
// response body as it arrives, whichever client reads it: past the bound the body errors and its
// connection is cancelled, so a server that streams without end (issue 29: text until V8's 512 MB
// string limit, RSS 1.8 GB) costs at most the bound. The error answer's body counts too.

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Past the bound; `exceeded` is also set on the bound itself, for a client that wraps the error. */
export class ModelAnswerTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the model's server sent more than ${maxBytes} bytes for one turn (EMULATOR_MODEL_ANSWER_BYTES)`);
    this.name = "ModelAnswerTooLargeError";
  }
}

export interface AnswerBound {
  maxBytes: number;
  /** Set once a body of this turn passed maxBytes. */
  exceeded: boolean;
}

/** `fetch` whose response bodies, all of one turn together, error past `bound.maxBytes`. */
export function boundedFetch(fetch: Fetch, bound: AnswerBound): Fetch {
  let seen = 0;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > bound.maxBytes) {
            bound.exceeded = true;
            controller.error(new ModelAnswerTooLargeError(bound.maxBytes));
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
