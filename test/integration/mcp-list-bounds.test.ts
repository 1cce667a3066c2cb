// The MCP client's bounds on tool lists (server/mcp/mcp-list-bounds.ts) against a hostile MCP server
// built with the MCP SDK on loopback (test/support/hostile-mcp-server.ts): tools and pages per server,
// bytes per run over all its servers, names longer than the service allows, the length of the message
// that says what a server lists, and a tool's outputSchema that would backtrack for ever. Each bound
// passed is an is_error result that names its setting, and the emulator stops reading at the bound.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { McpListBounds } from "../../server/mcp/mcp-list-bounds.js";
import type { McpServerConfig } from "../../server/mcp/mcp-server-config.js";
import { sdkMcpServers } from "../../server/mcp/sdk-mcp-servers.js";
import { type HostileMcpOptions, type HostileMcpServer, startHostileMcpServer, toolsWithLongNames } from "../support/hostile-mcp-server.js";

const OPTIONS = { timeoutMs: 10_000, maxResponseBytes: 4 * 1024 * 1024, maxResultBytes: 64 * 1024 };
const BOUNDS: McpListBounds = { maxTools: 1000, maxPages: 100, maxBytes: 16 * 1024 * 1024 };

function config(name: string, server: HostileMcpServer): McpServerConfig {
  return { name, url: server.url, headers: {}, allowedTools: null };
}

async function withHostile<T>(options: HostileMcpOptions, work: (server: HostileMcpServer) => Promise<T>): Promise<T> {
  const server = await startHostileMcpServer(options);
  try {
    return await work(server);
  } finally {
    await server.close();
  }
}

/** One run's servers: calls `tool` on each named server in turn and closes them. */
async function callEach(servers: McpServerConfig[], tool: string, bounds: Partial<McpListBounds> = {}) {
  const run = sdkMcpServers(servers, { ...OPTIONS, list: { ...BOUNDS, ...bounds } });
  try {
    const outcomes = [];
    for (const server of servers) outcomes.push(await run.call(server.name, tool, {}));
    return outcomes;
  } finally {
    await run.close();
  }
}

const endless = (nameBytes: number, perPage = 15): HostileMcpOptions => ({
  listPage: (page) => ({ tools: toolsWithLongNames(page, perPage, nameBytes), nextCursor: `page-${page + 1}` }),
});

describe("MCP tool lists are bounded as a whole", () => {
  it("stops reading an endless list of huge names at the run's byte bound, and says so", async () => {
    // 15 names of 64 KiB a page (about 1 MiB, under the per-answer cap) and always a nextCursor.
    await withHostile(endless(64 * 1024), async (server) => {
      const [outcome] = await callEach([config("hostile", server)], "not_listed", { maxBytes: 3 * 1024 * 1024 });
      assert.equal(outcome?.isError, true);
      assert.match(
        outcome?.text ?? "",
        /^Could not list the tools of the MCP server "hostile" at .*: the tool lists of this interaction's MCP servers passed 3145728 bytes together \(EMULATOR_MCP_MAX_LIST_BYTES\)/,
      );
      assert.ok(server.pagesServed() <= 4, `read ${server.pagesServed()} pages`);
      assert.ok((outcome?.text.length ?? 0) < 2000, "the result is a sentence, not the list");
    });
  });

  it("counts the bytes of every server of the run together", async () => {
    await withHostile(endless(64 * 1024), async (first) =>
      withHostile(endless(64 * 1024), async (second) => {
        const outcomes = await callEach([config("one", first), config("two", second)], "not_listed", { maxBytes: 3 * 1024 * 1024 });
        assert.ok(outcomes.every((outcome) => outcome.isError));
        assert.ok(first.pagesServed() + second.pagesServed() <= 5, `read ${first.pagesServed()} + ${second.pagesServed()} pages`);
      }),
    );
  });

  it("stops at the page bound of one server", async () => {
    await withHostile(endless(10, 1), async (server) => {
      const [outcome] = await callEach([config("pages", server)], "not_listed", { maxPages: 5 });
      assert.equal(outcome?.isError, true);
      assert.match(outcome?.text ?? "", /goes on past 5 pages \(EMULATOR_MCP_MAX_LIST_PAGES\)/);
      assert.equal(server.pagesServed(), 5);
    });
  });

  it("stops at the tool bound of one server, even within one page", async () => {
    const options: HostileMcpOptions = { listPage: (page) => ({ tools: toolsWithLongNames(page, 30, 10) }) };
    await withHostile(options, async (server) => {
      const [outcome] = await callEach([config("many", server)], "not_listed", { maxTools: 20 });
      assert.equal(outcome?.isError, true);
      assert.match(outcome?.text ?? "", /lists more than 20 tools \(EMULATOR_MCP_MAX_TOOLS\)/);
    });
  });

  it("never keeps a name longer than the service allows, and lists at most 20 names in a message", async () => {
    const options: HostileMcpOptions = {
      listPage: () => ({
        tools: [
          ...Array.from({ length: 30 }, (_, index) => ({ name: `tool_${String(index).padStart(2, "0")}` })),
          { name: `long_${"n".repeat(200)}` },
        ],
      }),
    };
    await withHostile(options, async (server) => {
      const [missing] = await callEach([config("named", server)], "not_listed");
      assert.equal(missing?.isError, true);
      assert.match(
        missing?.text ?? "",
        /it lists tool_00, tool_01, .*tool_19, … and 10 more \(and 1 tool whose name is empty or longer than 128 characters, which cannot be called\)\.$/,
      );
      const [long] = await callEach([config("named", server)], `long_${"n".repeat(200)}`);
      assert.equal(long?.isError, true, "a name past 128 characters is not callable");
      const [listed] = await callEach([config("named", server)], "tool_29");
      assert.equal(listed?.isError, false);
    });
  });

  it("neither compiles nor runs a tool's outputSchema (a backtracking pattern would stall the event loop)", async () => {
    const options: HostileMcpOptions = {
      listPage: () => ({
        tools: [{ name: "evil", outputSchema: { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } } }],
      }),
      callAnswer: () => ({ content: [{ type: "text", text: "done" }], structuredContent: { text: `${"a".repeat(40)}!` } }),
    };
    await withHostile(options, async (server) => {
      const started = performance.now();
      const [outcome] = await callEach([config("evil", server)], "evil");
      assert.equal(outcome?.isError, false);
      assert.equal(outcome?.text, "done");
      assert.ok(performance.now() - started < 5000, `took ${Math.round(performance.now() - started)} ms`);
    });
  });
});
