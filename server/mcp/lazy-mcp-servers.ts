// The MCP client for a run, loaded the first time a run calls or lists an MCP tool: the MCP SDK (and
// the zod 3 it brings) is a third of the server's module load time at start, which every `npm start`
// paid although most interactions declare no MCP server (docs/setup.md#a-warm-start).

import type { McpServerConfig } from "./mcp-server-config.js";
import type { McpServers } from "./mcp-servers.js";
import type { McpClientOptions } from "./sdk-mcp-servers.js";

export function lazyMcpServers(servers: readonly McpServerConfig[], options: McpClientOptions): McpServers {
  const names = new Set(servers.map((server) => server.name));
  let loaded: Promise<McpServers> | null = null;
  const client = () => {
    loaded ??= import("./sdk-mcp-servers.js").then((module) => module.sdkMcpServers(servers, options));
    return loaded;
  };
  return {
    has: (server) => names.has(server),
    call: async (server, tool, args, signal) => (await client()).call(server, tool, args, signal),
    tools: async (server, signal) => (await client()).tools(server, signal),
    // Nothing to end when no call loaded the client.
    close: async () => {
      if (loaded) await (await loaded).close();
    },
  };
}
