// What the MCP test servers share (mcp-test-server.ts, hostile-mcp-server.ts): the official MCP SDK's
// streamable HTTP transport on 127.0.0.1 and a port of its own, one transport and one MCP server per
// session. A request without a session starts one; a request naming a session that is not open is
// the 404 the transport's clients expect ("Session not found"). close() ends every open session first.

import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface McpSessionServer {
  /** The streamable HTTP endpoint, http://127.0.0.1:PORT/mcp. */
  url: string;
  /** Sessions initialized and not yet ended (by the client's DELETE). */
  openSessions(): number;
  close(): Promise<void>;
}

export async function startMcpSessionServer(options: {
  /** Connects a new session's MCP server (McpServer or the low-level Server) to its transport. */
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  /** Answers as plain application/json instead of an event stream. */
  enableJsonResponse?: boolean;
  /** Sees each HTTP request before the transport does (to record it, or to count what is sent). */
  onRequest?(req: http.IncomingMessage, res: http.ServerResponse): void;
}): Promise<McpSessionServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...(options.enableJsonResponse ? { enableJsonResponse: true } : {}),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await options.connect(transport);
    return transport;
  };

  const httpServer = http.createServer((req, res) => {
    options.onRequest?.(req, res);
    const sessionId = req.headers["mcp-session-id"];
    void (async () => {
      const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (typeof sessionId === "string" && !existing) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
      const transport = existing ?? (await newSession());
      await transport.handleRequest(req, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    openSessions: () => sessions.size,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
