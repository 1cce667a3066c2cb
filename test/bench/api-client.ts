// A minimal JSON client for the emulator's HTTP API, on one kept-alive connection pool, so that a
// measurement of the server is not one of the client: no SDK layers, no new TCP connection per request.

import http from "node:http";

export const AGENT = "antigravity-preview-05-2026";

export interface Interaction {
  id: string;
  status: string;
  environment_id?: string;
  steps?: Array<{ type: string; is_error?: boolean; result?: string }>;
}

/** The server closed a kept-alive connection before it read the request sent on it. */
class ReusedSocketReset extends Error {}

export class ApiClient {
  private readonly agent: http.Agent;

  /** `maxSockets`: requests in flight at once (more wait in the client); a part measuring concurrency raises it. */
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    maxSockets = 16,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  async request<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    try {
      return await this.send<T>(method, path, payload);
    } catch (error) {
      // A kept-alive connection the server closed as idle just as this request went out on it: the server
      // never read the request (Node.js's documented case for a retry, ClientRequest.reusedSocket). A
      // part that waits between requests (the pool refilling between bursts) can hit the server's 5 s.
      if (!(error instanceof ReusedSocketReset)) throw error;
      return await this.send<T>(method, path, payload);
    }
  }

  private send<T>(method: "GET" | "POST" | "DELETE", path: string, payload: Buffer | undefined): Promise<T> {
    const url = new URL(path, this.baseUrl);
    return new Promise<T>((resolve, reject) => {
      const request = http.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            "x-goog-api-key": this.apiKey,
            ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            if ((response.statusCode ?? 0) >= 300) {
              const text = Buffer.concat(chunks).toString("utf8");
              reject(new Error(`${method} ${path}: HTTP ${response.statusCode}: ${text.slice(0, 500)}`));
              return;
            }
            try {
              resolve(parseAnswer(chunks) as T);
            } catch {
              const text = Buffer.concat(chunks).toString("utf8");
              reject(new Error(`${method} ${path}: not JSON: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      request.on("error", (error: NodeJS.ErrnoException) => {
        const reset = request.reusedSocket && error.code === "ECONNRESET";
        reject(reset ? new ReusedSocketReset(`${method} ${path}: ${error.message} (a kept-alive connection)`) : error);
      });
      request.end(payload);
    });
  }

  /** Creates an interaction and checks that it completed (a failed run must not pass for a fast one). */
  async interact(body: Record<string, unknown>): Promise<Interaction> {
    return completed(await this.request<Interaction>("POST", "/v1beta/interactions", { agent: AGENT, ...body }));
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The interaction, once checked that it completed and no tool call of it failed (a failed run must not pass for a fast one). */
export function completed(interaction: Interaction): Interaction {
  if (interaction.status !== "completed") throw new Error(`interaction ${interaction.id} ended ${interaction.status}`);
  const failed = interaction.steps?.find((step) => step.is_error === true);
  if (failed) throw new Error(`interaction ${interaction.id}: a tool call failed: ${failed.result?.slice(0, 300)}`);
  return interaction;
}

/**
 * What this client does with an answer's bytes as they arrived: joined, decoded, parsed. Part of every
 * request's measured time; the bytes part times it alone on a large answer (a line's bound).
 */
export function parseAnswer(chunks: readonly Buffer[]): unknown {
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** A `tool_calls` script running `code` with code_execution `count` times. */
export function commandScript(code: string, count: number): string {
  return toolCallsScript("code_execution", { code }, count);
}

/** A `tool_calls` script of `count` calls of one tool with the same arguments. */
export function toolCallsScript(name: string, args: Record<string, unknown>, count: number): string {
  const calls = Array.from({ length: count }, () => ({ name, args }));
  return `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
}
