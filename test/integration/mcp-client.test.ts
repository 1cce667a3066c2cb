// The emulator's MCP client (server/mcp/sdk-mcp-servers.ts) against a real MCP server built with the
// same SDK on loopback: what a call returns, what reaches the server and what does not, and that every
// way a server can fail (down, not MCP, too slow, too much, a tool error) is an error result in bounded
// time, never a rejection.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { McpServerConfig } from "../../server/mcp/mcp-server-config.js";
import type { McpServers } from "../../server/mcp/mcp-servers.js";
import { sdkMcpServers } from "../../server/mcp/sdk-mcp-servers.js";
import { closedLoopbackPort, type McpTestServer, startMcpTestServer, TEST_TOOL_NAMES } from "../support/mcp-test-server.js";

const OPTIONS = { timeoutMs: 5000, maxResponseBytes: 1024 * 1024, maxResultBytes: 64 * 1024 };

let fixture: McpTestServer;
before(async () => {
  fixture = await startMcpTestServer();
});
after(async () => {
  await fixture?.close();
});

function server(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: "local", url: fixture.url, headers: {}, allowedTools: null, ...overrides };
}

/** Runs `work` with a fresh set of servers and always closes them. */
async function withServers<T>(
  configs: McpServerConfig[],
  work: (servers: McpServers) => Promise<T>,
  options: Partial<typeof OPTIONS> = {},
): Promise<T> {
  const servers = sdkMcpServers(configs, { ...OPTIONS, ...options });
  try {
    return await work(servers);
  } finally {
    await servers.close();
  }
}

/** A loopback HTTP server that answers every request with `handler`; closed by the test. */
async function plainServer(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the MCP client", () => {
  it("calls a listed tool and returns its text, sending the declared headers on every request", async () => {
    const before = fixture.requests.length;
    const outcome = await withServers([server({ headers: { "X-Api-Token": "s3cret" } })], (servers) =>
      servers.call("local", "echo", { text: "hi" }),
    );
    assert.deepEqual(outcome, { text: "echo: hi", isError: false });
    const sent = fixture.requests.slice(before);
    assert.ok(sent.length >= 3, "initialize, initialized, tools/list, tools/call (and the DELETE at close)");
    assert.ok(
      sent.every((request) => request.headers["x-api-token"] === "s3cret"),
      "every request carried the header",
    );
    assert.ok(
      sent.some((request) => request.method === "DELETE"),
      "close() ended the session",
    );
    assert.deepEqual(fixture.calls.at(-1), { name: "echo", args: { text: "hi" } });
  });

  it("lets a tool see the declared header, and reuses one session for the calls of a run", async () => {
    await withServers([server({ headers: { Authorization: "Bearer abc" } })], async (servers) => {
      assert.deepEqual(await servers.call("local", "header", { name: "authorization" }), { text: "Bearer abc", isError: false });
      assert.deepEqual(await servers.call("local", "add", { a: 2, b: 3 }), { text: "5", isError: false });
      assert.equal(fixture.openSessions(), 1, "one session for both calls");
    });
    await waitFor(() => fixture.openSessions() === 0, "the session is ended");
  });

  it("refuses a tool outside allowed_tools without contacting the server", async () => {
    const before = fixture.requests.length;
    const outcome = await withServers([server({ allowedTools: [{ mode: "auto", tools: ["echo"] }] })], (servers) =>
      servers.call("local", "add", { a: 1, b: 1 }),
    );
    assert.equal(outcome.isError, true);
    assert.equal(
      outcome.text,
      'The tool "add" of the MCP server "local" is not in its allowed_tools (allowed: echo), so it was not called.',
    );
    assert.equal(fixture.requests.length, before, "nothing reached the server");
  });

  it("returns a tool's error result, and a throwing tool's message, as errors", async () => {
    await withServers([server()], async (servers) => {
      assert.deepEqual(await servers.call("local", "fail", {}), { text: "failed on purpose", isError: true });
      assert.deepEqual(await servers.call("local", "throws", {}), { text: "boom", isError: true });
      const invalid = await servers.call("local", "add", { a: "one" });
      assert.equal(invalid.isError, true, "arguments the tool's schema refuses");
      assert.match(invalid.text, /Input validation error/);
    });
  });

  it("says which tools a server lists when asked for one it does not have", async () => {
    const outcome = await withServers([server()], (servers) => servers.call("local", "nope", {}));
    assert.deepEqual(outcome, {
      text: `The MCP server "local" has no tool "nope"; it lists ${TEST_TOOL_NAMES.join(", ")}.`,
      isError: true,
    });
  });

  it("describes non-text content and caps a long result", async () => {
    await withServers(
      [server()],
      async (servers) => {
        assert.deepEqual(await servers.call("local", "picture", {}), { text: "[image: image/png, 16 bytes]\na caption", isError: false });
        const big = await servers.call("local", "big", { bytes: 5000 });
        assert.equal(big.isError, false);
        assert.equal(big.text, `${"x".repeat(1000)}\n[truncated: kept 1000 of 5000 bytes]`);
      },
      { maxResultBytes: 1000 },
    );
  });

  it("turns a server that is down into an error result at once", async () => {
    const port = await closedLoopbackPort();
    const started = Date.now();
    const outcome = await withServers([server({ url: `http://127.0.0.1:${port}/mcp` })], (servers) =>
      servers.call("local", "echo", { text: "x" }),
    );
    assert.equal(outcome.isError, true);
    assert.equal(
      outcome.text,
      `Could not connect to the MCP server "local" at http://127.0.0.1:${port}/mcp: connect ECONNREFUSED 127.0.0.1:${port}.`,
    );
    assert.ok(Date.now() - started < 4000, "no waiting for a timeout");
  });

  it("does not try a server again in the same run once it could not be connected", async () => {
    let hits = 0;
    const notMcp = await plainServer((_req, res) => {
      hits += 1;
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>no MCP here</h1>");
    });
    try {
      await withServers([server({ url: notMcp.url })], async (servers) => {
        const first = await servers.call("local", "echo", { text: "a" });
        assert.equal(first.isError, true);
        assert.match(first.text, /^Could not connect to the MCP server "local" at http:\/\/127\.0\.0\.1:\d+\/mcp: HTTP 404: /);
        const second = await servers.call("local", "echo", { text: "b" });
        assert.equal(second.text, first.text);
      });
      assert.equal(hits, 1, "the second call did not knock again");
    } finally {
      await notMcp.close();
    }
  });

  it("bounds a server that accepts the connection and never answers", async () => {
    const silent = await plainServer(() => undefined);
    try {
      const started = Date.now();
      const outcome = await withServers([server({ url: silent.url })], (servers) => servers.call("local", "echo", { text: "x" }), {
        timeoutMs: 300,
      });
      assert.equal(outcome.isError, true);
      assert.match(
        outcome.text,
        /^Could not connect to the MCP server "local" at .*: no answer within 0\.3 s \(EMULATOR_MCP_TIMEOUT_SECONDS\)\.$/,
      );
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    } finally {
      await silent.close();
    }
  });

  it("bounds a tool that never answers, and tells the server the call was given up", async () => {
    const started = Date.now();
    const outcome = await withServers([server()], (servers) => servers.call("local", "wait", {}), { timeoutMs: 400 });
    assert.equal(outcome.isError, true);
    assert.match(
      outcome.text,
      /^The call of tool "wait" on the MCP server "local" at .*: no answer within 0\.4 s \(EMULATOR_MCP_TIMEOUT_SECONDS\)\.$/,
    );
    assert.ok(Date.now() - started < 3000);
  });

  it("stops reading an answer larger than the response bound, and fails the call at once", async () => {
    const started = Date.now();
    const outcome = await withServers([server()], (servers) => servers.call("local", "big", { bytes: 200_000 }), {
      maxResponseBytes: 100_000,
      timeoutMs: 20_000,
    });
    assert.equal(outcome.isError, true);
    assert.match(
      outcome.text,
      /^The call of tool "big" on the MCP server "local" at .*: the server's answer was larger than 100000 bytes \(EMULATOR_MCP_RESPONSE_BYTES\), so it was cut off\.$/,
    );
    assert.ok(Date.now() - started < 10_000, "not left to the timeout");
  });

  it("returns at once when the run is cancelled during a call", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const call = withServers([server()], (servers) => servers.call("local", "wait", {}, controller.signal));
    await waitFor(() => fixture.calls.at(-1)?.name === "wait", "the tool runs");
    controller.abort();
    const outcome = await call;
    assert.equal(outcome.isError, true);
    assert.match(outcome.text, /failed: the interaction was cancelled\.$/);
    assert.ok(Date.now() - started < 3000);
  });

  it("refuses calls after close, and ends every session it opened", async () => {
    const servers = sdkMcpServers([server(), server({ name: "other" })], OPTIONS);
    await servers.call("local", "echo", { text: "1" });
    await servers.call("other", "echo", { text: "2" });
    assert.equal(fixture.openSessions(), 2);
    await servers.close();
    await waitFor(() => fixture.openSessions() === 0, "both sessions are ended");
    const late = await servers.call("local", "echo", { text: "3" });
    assert.equal(late.isError, true);
    assert.match(late.text, /closed/);
  });
});
