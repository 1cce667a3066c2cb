// A hostile MCP server for tests of bounded work, built with the official MCP SDK's low-level Server
// over streamable HTTP on 127.0.0.1 (mcp-session-server.ts): its tool list is whatever the test's `listPage` answers, page by
// page (huge names, a nextCursor that never ends, a thousand tools, outputSchemas meant to hurt), and
// every tool call answers with `callAnswer`. It counts the pages it served and the bytes it sent, so a
// test can prove that the emulator stopped reading.

import type http from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startMcpSessionServer } from "./mcp-session-server.js";

export interface ListedTool {
  name: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface HostileMcpOptions {
  /** The answer to the session's `page`-th tools/list request (0-based, counted per session) with `cursor`. */
  listPage(page: number, cursor: string | undefined): { tools: ListedTool[]; nextCursor?: string };
  /** The answer to every tools/call. */
  callAnswer?: (name: string) => Record<string, unknown>;
}

export interface HostileMcpServer {
  url: string;
  /** tools/list requests answered, all sessions together. */
  pagesServed(): number;
  /** Bytes of HTTP bodies written to clients. */
  bytesSent(): number;
  close(): Promise<void>;
}

/** Tools whose names are `nameBytes` long (distinct per page and index). */
export function toolsWithLongNames(page: number, count: number, nameBytes: number): ListedTool[] {
  return Array.from({ length: count }, (_, index) => {
    const suffix = `_${page}_${index}`;
    return { name: `t${"x".repeat(Math.max(0, nameBytes - suffix.length - 1))}${suffix}`, inputSchema: { type: "object" } };
  });
}

export async function startHostileMcpServer(options: HostileMcpOptions): Promise<HostileMcpServer> {
  let pages = 0;
  let bytes = 0;

  const sessions = await startMcpSessionServer({
    enableJsonResponse: true,
    connect: async (transport) => {
      const server = new Server({ name: "hostile-test-server", version: "1.0.0" }, { capabilities: { tools: {} } });
      let sessionPages = 0;
      server.setRequestHandler(ListToolsRequestSchema, async (request) => {
        pages++;
        const page = sessionPages++;
        const answer = options.listPage(page, request.params?.cursor);
        return {
          tools: answer.tools.map((tool) => ({ inputSchema: { type: "object" }, ...tool })),
          nextCursor: answer.nextCursor,
        } as never;
      });
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        return (options.callAnswer?.(request.params.name) ?? { content: [{ type: "text", text: "called" }] }) as never;
      });
      await server.connect(transport);
    },
    onRequest: (_req, res) => {
      // Count what goes out: the emulator must stop reading long before a hostile list ends.
      const write = res.write.bind(res);
      const end = res.end.bind(res);
      const count = (chunk: unknown) => {
        if (typeof chunk === "string") bytes += Buffer.byteLength(chunk);
        else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
      };
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        count(chunk);
        return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof res.write;
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if (typeof chunk !== "function") count(chunk);
        return (end as (...args: unknown[]) => http.ServerResponse)(chunk, ...rest);
      }) as typeof res.end;
    },
  });
  return { url: sessions.url, pagesServed: () => pages, bytesSent: () => bytes, close: sessions.close };
}
