// One request of a command to a running emulator's API (`hooks try --emulator`, `hooks coverage`):
// the key in its header, a refusal turned into the emulator's own message, an unreachable emulator
// named as such. Returns the parsed JSON answer, or null when the answer was not JSON (each command
// says what it expected).

export class EmulatorRequestError extends Error {}

export interface EmulatorRequest {
  /** The emulator as the user named it, for messages. */
  emulator: string;
  apiKey: string;
  method: string;
  /** The route as messages name it, e.g. "GET /emulator/hooks/coverage". */
  label: string;
  body?: unknown;
  signal?: AbortSignal;
}

export async function emulatorRequest(url: URL | string, request: EmulatorRequest): Promise<unknown> {
  const { apiKey, body, signal } = request;
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: { "x-goog-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? null : JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const cause = (error as Error).cause as Error | undefined;
    throw new EmulatorRequestError(`cannot reach the emulator at ${request.emulator} (${cause?.message ?? (error as Error).message})`);
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the caller says what it expected.
  }
  if (!response.ok) {
    const message = (parsed as { error?: { message?: string } } | null)?.error?.message ?? text.slice(0, 500);
    throw new EmulatorRequestError(`${request.label}: ${response.status}: ${message}`);
  }
  return parsed;
}
