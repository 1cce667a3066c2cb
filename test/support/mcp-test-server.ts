// A real MCP server for tests, built with the official MCP TypeScript SDK (McpServer over the
// streamable HTTP transport, with sessions: mcp-session-server.ts) on 127.0.0.1 and a port of its own. It records every HTTP
// request (method and headers) and every tool call, so a test can prove what reached the server and
// what did not, and counts the sessions still open, so a test can prove the client ended them.
//
// Tools: echo {text} → "echo: TEXT"; add {a, b} → the sum; header {name} → the value of that request
// header; fail → an error result ("failed on purpose"); throws → a handler that throws ("boom");
// wait → answers only when the client gives up on it; picture → an image and a text block;
// big {bytes} → a text of that many "x".

import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { startMcpSessionServer } from "./mcp-session-server.js";

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
  const record = (name: string, args: unknown) => calls.push({ name, args });
  const sessions = await startMcpSessionServer({
    connect: async (transport) => {
      const server = new McpServer({ name: "emulator-test-server", version: "1.0.0" });
      registerTools(server, record);
      await server.connect(transport);
    },
    onRequest: (req) => requests.push({ method: req.method ?? "", headers: req.headers }),
  });
  return { ...sessions, requests, calls };
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
