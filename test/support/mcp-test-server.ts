// A real MCP server for tests, built with the official MCP TypeScript SDK (McpServer over the
// streamable HTTP transport, with sessions) on 127.0.0.1 and a port of its own. It records every HTTP
// request (method and headers) and every tool call, so a test can prove what reached the server and
// what did not, and counts the sessions still open, so a test can prove the client ended them.
//
// Tools: echo {text} → "echo: TEXT"; add {a, b} → the sum; header {name} → the value of that request
// header; fail → an error result ("failed on purpose"); throws → a handler that throws ("boom");
// wait → answers only when the client gives up on it; picture → an image and a text block;
// big {bytes} → a text of that many "x".

import { randomUUID } from "node:crypto";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface RecordedMcpRequest {
  method: string;
  headers: IncomingHttpHeaders;
}

export interface RecordedToolCall {
  name: string;
  args: unknown;
}

export interface McpTestServer {
  /** The streamable HTTP endpoint, http://127.0.0.1:PORT/mcp. */
  url: string;
  requests: RecordedMcpRequest[];
  calls: RecordedToolCall[];
  /** Sessions initialized and not yet ended (by the client's DELETE). */
  openSessions(): number;
  close(): Promise<void>;
}

export const TEST_TOOL_NAMES = ["add", "big", "echo", "fail", "header", "picture", "throws", "wait"];

export async function startMcpTestServer(): Promise<McpTestServer> {
  const requests: RecordedMcpRequest[] = [];
  const calls: RecordedToolCall[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const record = (name: string, args: unknown) => calls.push({ name, args });

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const server = new McpServer({ name: "emulator-test-server", version: "1.0.0" });
    registerTools(server, record);
    await server.connect(transport);
    return transport;
  };

  const httpServer = http.createServer((req, res) => {
    requests.push({ method: req.method ?? "", headers: req.headers });
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
    requests,
    calls,
    openSessions: () => sessions.size,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

function registerTools(server: McpServer, record: (name: string, args: unknown) => void): void {
  server.registerTool("echo", { description: "Says the text back", inputSchema: { text: z.string() } }, async ({ text }) => {
    record("echo", { text });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    record("add", { a, b });
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  server.registerTool(
    "header",
    { description: "The value of a header of the request that called it", inputSchema: { name: z.string() } },
    async ({ name }, extra) => {
      record("header", { name });
      const value = extra.requestInfo?.headers[name.toLowerCase()];
      return { content: [{ type: "text", text: value === undefined ? "(absent)" : String(value) }] };
    },
  );
  server.registerTool("fail", { description: "Reports an error" }, async () => {
    record("fail", {});
    return { content: [{ type: "text", text: "failed on purpose" }], isError: true };
  });
  server.registerTool("throws", { description: "Throws" }, async () => {
    record("throws", {});
    throw new Error("boom");
  });
  server.registerTool("wait", { description: "Answers only when the caller gives up" }, async (extra) => {
    record("wait", {});
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) resolve();
      extra.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return { content: [{ type: "text", text: "given up" }] };
  });
  server.registerTool("picture", { description: "An image and a caption" }, async () => {
    record("picture", {});
    return {
      content: [
        { type: "image", data: Buffer.from("not really a png").toString("base64"), mimeType: "image/png" },
        { type: "text", text: "a caption" },
      ],
    };
  });
  server.registerTool("big", { description: "A long text", inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => {
    record("big", { bytes });
    return { content: [{ type: "text", text: "x".repeat(bytes) }] };
  });
}

/** A loopback port that was just bound and closed: connecting to it is refused. */
export async function closedLoopbackPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
