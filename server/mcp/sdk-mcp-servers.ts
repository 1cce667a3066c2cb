// The MCP servers of one run, spoken to with the official MCP TypeScript SDK over streamable HTTP
// (docs/api.md#mcp-server-tools). [choice] Connections are per interaction run, never pooled: the
// first call to a server connects (initialize, with the declared headers on every request) and lists
// its tools; later calls of the run reuse that session; close() ends every session (DELETE) and
// connection when the run is over. A server that could not be connected is not tried again in the
// same run: its later calls get the same error at once, so a dead server costs one timeout, not one
// per call. Every request is bounded (EMULATOR_MCP_TIMEOUT_SECONDS), every answer's size too
// (EMULATOR_MCP_RESPONSE_BYTES), the tool lists as a whole too (mcp-list-bounds.ts), and nothing here
// ever rejects: failures are error results.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultKeepingContent } from "./call-tool-result.js";
import { limitedFetch } from "./limited-fetch.js";
import { type McpFaultScope, standInForServer, takeMcpFault } from "./mcp-faults.js";
import { describeMcpFailure, type McpStage } from "./mcp-failure.js";
import { DEFAULT_MCP_LIST_BOUNDS, describeListedTools, ListByteBudget, type McpListBounds, ToolListReader } from "./mcp-list-bounds.js";
import { capResultText, resultText } from "./mcp-result-text.js";
import { describeAllowedTools, isToolAllowed, type McpServerConfig } from "./mcp-server-config.js";
import type { McpServers, McpToolInfo, McpToolOutcome } from "./mcp-servers.js";

export interface McpClientOptions {
  /** Bound on each request to a server: initialize, each tools/list page, each tools/call. */
  timeoutMs: number;
  /** Bound on the bytes of one HTTP answer from a server. */
  maxResponseBytes: number;
  /** Result text kept per call (EMULATOR_TOOL_OUTPUT_BYTES, as for sandbox tools). */
  maxResultBytes: number;
  /** Bounds on the servers' tool lists, per server and for the whole run (mcp-list-bounds.ts). */
  list?: McpListBounds;
  /** Faults on demand (docs/faults.md#mcp-servers), asked once per tools/call. */
  faults?: McpFaultScope;
}

/** How the emulator introduces itself in the MCP initialize request. */
const CLIENT_INFO = { name: "interactions-sandbox-emulator", version: "0.1.0" };
/**
 * [choice] Tools' outputSchemas are neither compiled nor checked: the SDK would compile each listed
 * tool's schema with a backtracking regular-expression engine on the event loop, a hostile server's
 * code to run. The emulator records the result as the server sent it (mcp-result-text.ts).
 */
const NO_OUTPUT_SCHEMA_CHECK = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }),
};
/** How long close() waits for a server to acknowledge the end of its session. */
const CLOSE_WAIT_MS = 2000;

interface Connection {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** The tool names the server listed, read within the bounds. */
  tools: ToolListReader;
  /** Whether its tool list is being read (the bytes that arrive then count against the run's list bound). */
  listing: boolean;
  /** The requests waiting on this server (calls are made one at a time, but connecting is one too). */
  waiting: Set<AbortController>;
  /** The transport's last complaint (a broken stream) since the current request began, named if it then fails. */
  lastTransportError?: Error;
}

/** Why a request was given up, when it was the emulator that gave up (not the server that failed). */
class RequestGivenUp extends Error {}

/** A server that could not be connected or listed, with the sentence its calls' results show. */
class ServerUnusableError extends Error {}

export function sdkMcpServers(servers: readonly McpServerConfig[], options: McpClientOptions): McpServers {
  return new SdkMcpServers(servers, options);
}

class SdkMcpServers implements McpServers {
  private readonly servers: Map<string, McpServerConfig>;
  private readonly connecting = new Map<string, Promise<Connection>>();
  /** Every connection ever started, also those whose connect failed, so close() reaches all. */
  private readonly opened: Connection[] = [];
  private closed = false;
  private readonly listBounds: McpListBounds;
  /** The bytes of every server's tool list in this run, together. */
  private readonly listBytes: ListByteBudget;

  constructor(
    servers: readonly McpServerConfig[],
    private readonly options: McpClientOptions,
  ) {
    this.servers = new Map(servers.map((server) => [server.name, server]));
    this.listBounds = options.list ?? DEFAULT_MCP_LIST_BOUNDS;
    this.listBytes = new ListByteBudget(this.listBounds.maxBytes);
  }

  has(server: string): boolean {
    return this.servers.has(server);
  }

  async call(serverName: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolOutcome> {
    const server = this.servers.get(serverName);
    if (!server) return failed(`No MCP server named "${serverName}" is declared in this interaction's tools.`);
    if (!isToolAllowed(server.allowedTools, tool)) {
      return failed(
        `The tool "${tool}" of the MCP server "${server.name}" is not in its allowed_tools (allowed: ${describeAllowedTools(server.allowedTools ?? [])}), so it was not called.`,
      );
    }
    if (this.closed) return failed(`The MCP connections of this interaction are closed; the tool "${tool}" was not called.`);
    let connection: Connection;
    try {
      connection = await this.connection(server, signal);
    } catch (error) {
      return failed(error instanceof ServerUnusableError ? error.message : this.describe(server, { kind: "connect" }, error, undefined));
    }
    if (!connection.tools.names.has(tool)) {
      return failed(`The MCP server "${server.name}" has no tool "${shortName(tool)}"; it lists ${describeListedTools(connection.tools)}.`);
    }
    const fault = takeMcpFault(this.options.faults, server.name, tool);
    const mark = fault === null ? {} : { injectedFault: fault };
    try {
      const answer = await this.request(connection, signal, async (options) => {
        if (fault !== null) {
          const injected = await standInForServer(fault.effect, server.url, { timeoutMs: options.timeout, signal: options.signal });
          if (injected.kind === "result") return injected.result;
        }
        return connection.client.callTool(
          { name: tool, arguments: args },
          CallToolResultKeepingContent as unknown as typeof CallToolResultSchema,
          options,
        );
      });
      return { text: capResultText(resultText(answer), this.options.maxResultBytes), isError: answer.isError === true, ...mark };
    } catch (error) {
      return { ...failed(this.describe(server, { kind: "call", tool }, error, connection)), ...mark };
    }
  }

  async tools(serverName: string, signal?: AbortSignal): Promise<{ tools: McpToolInfo[] } | { error: string }> {
    const server = this.servers.get(serverName);
    if (!server) return { error: `No MCP server named "${serverName}" is declared in this interaction's tools.` };
    if (this.closed) return { error: "The MCP connections of this interaction are closed." };
    try {
      const connection = await this.connection(server, signal);
      return { tools: connection.tools.listed.filter((tool) => isToolAllowed(server.allowedTools, tool.name)) };
    } catch (error) {
      return { error: error instanceof ServerUnusableError ? error.message : this.describe(server, { kind: "connect" }, error, undefined) };
    }
  }

  /**
   * One request, bounded by the timeout, stopped by the run's signal, and failed at once when the
   * server's answer grows past the response bound. A request the emulator gave up on rejects with the
   * reason it gave up (the SDK would report any abort as a timeout).
   */
  private async request<T>(
    connection: Connection,
    signal: AbortSignal | undefined,
    send: (options: { timeout: number; signal: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const onRunAbort = () => controller.abort(new RequestGivenUp("the interaction was cancelled"));
    if (signal?.aborted) onRunAbort();
    signal?.addEventListener("abort", onRunAbort, { once: true });
    connection.waiting.add(controller);
    connection.lastTransportError = undefined;
    try {
      return await send({ timeout: this.options.timeoutMs, signal: controller.signal });
    } catch (error) {
      throw controller.signal.aborted ? (controller.signal.reason as Error) : error;
    } finally {
      connection.waiting.delete(controller);
      signal?.removeEventListener("abort", onRunAbort);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.opened.map((connection) => closeConnection(connection)));
  }

  /** The run's connection to `server`, opened at its first call; rejects with a ServerUnusableError. */
  private connection(server: McpServerConfig, signal: AbortSignal | undefined): Promise<Connection> {
    let found = this.connecting.get(server.name);
    if (!found) {
      found = this.open(server, signal);
      this.connecting.set(server.name, found);
    }
    return found;
  }

  private async open(server: McpServerConfig, signal: AbortSignal | undefined): Promise<Connection> {
    const waiting = new Set<AbortController>();
    // An answer past the bound fails the requests waiting on this server now, with that reason.
    const onLimit = (error: Error) => {
      for (const controller of waiting) controller.abort(error);
    };
    // While the list is read, every byte the server sends counts against the run's bound on lists.
    const countListBytes = (bytes: number) => (connection.listing ? this.listBytes.spend(bytes) : undefined);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
      fetch: limitedFetch(this.options.maxResponseBytes, onLimit, fetch, countListBytes),
      // A dropped event stream is not reopened behind the run's back: the next request says what happened.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    });
    const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: NO_OUTPUT_SCHEMA_CHECK });
    const connection: Connection = { client, transport, tools: new ToolListReader(this.listBounds), listing: false, waiting };
    client.onerror = (error) => {
      connection.lastTransportError = error;
    };
    this.opened.push(connection);
    try {
      await this.request(connection, signal, (options) => client.connect(transport, options));
    } catch (error) {
      throw new ServerUnusableError(this.describe(server, { kind: "connect" }, error, connection));
    }
    connection.listing = true;
    try {
      let cursor: string | undefined;
      do {
        connection.tools.checkMorePages();
        const params = cursor === undefined ? undefined : { cursor };
        const listed = await this.request(connection, signal, (options) => client.listTools(params, options));
        connection.tools.addPage(listed.tools);
        cursor = listed.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      throw new ServerUnusableError(this.describe(server, { kind: "list" }, error, connection));
    } finally {
      connection.listing = false;
    }
    return connection;
  }

  private describe(server: McpServerConfig, stage: McpStage, error: unknown, connection: Connection | undefined): string {
    return describeMcpFailure(server, stage, error, {
      timeoutMs: this.options.timeoutMs,
      lastTransportError: connection?.lastTransportError,
    });
  }
}

/** A tool name as a result shows it: a script may name a tool of any length. */
function shortName(name: string): string {
  return name.length > 200 ? `${name.slice(0, 199)}…` : name;
}

function failed(text: string): McpToolOutcome {
  return { text, isError: true };
}

/** Ends the session (so the server can free it), then the connection; never rejects, never hangs. */
async function closeConnection(connection: Connection): Promise<void> {
  const { transport, client } = connection;
  try {
    if (transport.sessionId !== undefined) await withDeadline(transport.terminateSession(), CLOSE_WAIT_MS);
  } catch {
    // The server may be gone already; closing the connection below is what matters.
  }
  try {
    await withDeadline(client.close(), CLOSE_WAIT_MS);
  } catch (error) {
    console.error("could not close an MCP connection:", error);
  }
}

async function withDeadline(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
