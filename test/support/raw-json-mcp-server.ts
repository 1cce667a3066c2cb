// A minimal MCP server on 127.0.0.1 that writes its JSON-RPC answers itself (streamable HTTP, a plain
// application/json answer per request, no sessions), for tests of what the emulator keeps of an
// answer byte for byte. The official SDK's McpServer parses every tool result with zod before it sends
// it, which drops a "__proto__" key; this server sends the tool's answer exactly as the test gives it.
//
// One tool, "json": its answer is `{content: [], structuredContent: <args.value>}`, so what the tool
// sends back is whatever the script's call passed in.

import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RawJsonMcpServer {
  /** The endpoint, http://127.0.0.1:PORT/mcp. */
  url: string;
  close(): Promise<void>;
}

export async function startRawJsonMcpServer(): Promise<RawJsonMcpServer> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST") {
        response.writeHead(405).end();
        return;
      }
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown; method?: string; params?: any };
      if (message.id === undefined) {
        response.writeHead(202).end();
        return;
      }
      const result = answer(message.method, message.params);
      response.writeHead(200, { "content-type": "application/json" });
      // JSON.stringify writes an own "__proto__" key like any other.
      response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(method: string | undefined, params: any): unknown {
  switch (method) {
    case "initialize":
      return {
        protocolVersion: params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "raw-json-mcp-server", version: "1.0.0" },
      };
    case "tools/list":
      return { tools: [{ name: "json", description: "answers its value as structuredContent", inputSchema: { type: "object" } }] };
    case "tools/call":
      return { content: [], structuredContent: params?.arguments?.value };
    default:
      return {};
  }
}
