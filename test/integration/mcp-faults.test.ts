// Faults at MCP tool calls (docs/faults.md#mcp-servers) against the real MCP test server on loopback:
// each injected failure reads as the real one (compared with a real failing server where the test can
// make one), the server never sees the call it stood in for, and through the SDK the result step ends
// with the mark and the MCP call's trace entry carries injected_fault.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { ownerOf } from "../../server/common/ids.js";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import type { McpServerConfig } from "../../server/mcp/mcp-server-config.js";
import { sdkMcpServers } from "../../server/mcp/sdk-mcp-servers.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { startMcpTestServer, type McpTestServer } from "../support/mcp-test-server.js";

const OWNER = "owner-mcp-faults";
const TIMEOUT_MS = 600;

describe("MCP faults", () => {
  let fixture: McpTestServer;
  const plan = new FaultPlan();
  const config = (url: string, name = "local"): McpServerConfig => ({ name, url, headers: {}, allowedTools: null });
  const call = async (url: string, tool: string, args: Record<string, unknown> = {}) => {
    const servers = sdkMcpServers([config(url)], {
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 1024 * 1024,
      maxResultBytes: 64 * 1024,
      faults: { plan, owner: OWNER, environmentId: () => "env_mcp" },
    });
    try {
      return await servers.call("local", tool, args);
    } finally {
      await servers.close();
    }
  };
  const addRule = (rule: unknown, owner = OWNER) => {
    const added = plan.add(owner, faultRuleSchema.parse(rule));
    assert.ok(added);
    return added;
  };

  before(async () => {
    fixture = await startMcpTestServer();
  });
  after(async () => {
    await fixture.close();
  });

  it("error is the tool's own error result, as the server's failing tool gives one; the server never sees the call", async () => {
    const real = await call(fixture.url, "fail");
    const rule = addRule({
      target: { kind: "mcp", server: "local", tool: "echo" },
      effect: { kind: "error", message: "failed on purpose" },
      times: 1,
    });
    const callsBefore = fixture.calls.length;
    const injected = await call(fixture.url, "echo", { text: "hi" });
    assert.equal(real.isError, true);
    assert.deepEqual({ text: injected.text, isError: injected.isError }, { text: real.text, isError: true });
    assert.equal(injected.injectedFault?.rule_id, rule.id);
    assert.equal(fixture.calls.length, callsBefore, "the tool was not called");
    // Spent: the next call is real.
    assert.deepEqual(await call(fixture.url, "echo", { text: "hi" }), { text: "echo: hi", isError: false });
  });

  it("http_status reads as a real server's HTTP error; refuse as a refused connection", async () => {
    addRule({ target: { kind: "mcp", server: "local" }, effect: { kind: "http_status", status: 503 }, times: 1 });
    const injected = await call(fixture.url, "echo", { text: "x" });
    assert.equal(injected.isError, true);
    assert.match(
      injected.text,
      /^The call of tool "echo" on the MCP server "local" at http:\/\/127\.0\.0\.1:\d+\/mcp failed: HTTP 503: Error POSTing to endpoint: 503 Service Unavailable\.$/,
    );

    // A real server whose every request is a 503 page reads the same way (at connect, its first request).
    const down = http.createServer((_req, res) => res.writeHead(503).end("503 Service Unavailable"));
    await new Promise<void>((resolve) => down.listen(0, "127.0.0.1", resolve));
    try {
      const real = await call(`http://127.0.0.1:${(down.address() as AddressInfo).port}/mcp`, "echo");
      assert.match(real.text, /: HTTP 503: Error POSTing to endpoint: 503 Service Unavailable\.$/);
    } finally {
      down.closeAllConnections();
      await new Promise<void>((resolve) => down.close(() => resolve()));
    }

    addRule({ target: { kind: "mcp", server: "local" }, effect: { kind: "refuse" }, times: 1 });
    const refused = await call(fixture.url, "echo", { text: "x" });
    assert.match(refused.text, /failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\.$/);
  });

  it("timeout gives the MCP timeout's own sentence after EMULATOR_MCP_TIMEOUT_SECONDS; latency delays a real call", async () => {
    addRule({ target: { kind: "mcp", server: "local" }, effect: { kind: "timeout" }, times: 1 });
    const started = Date.now();
    const timedOut = await call(fixture.url, "echo", { text: "x" });
    assert.ok(Date.now() - started >= TIMEOUT_MS);
    assert.match(timedOut.text, /failed: no answer within 0\.6 s \(EMULATOR_MCP_TIMEOUT_SECONDS\)\.$/);

    // The real thing, for comparison: the test server's "wait" tool outlasting the timeout.
    const real = await call(fixture.url, "wait", { ms: TIMEOUT_MS * 3 });
    assert.match(real.text, /failed: no answer within 0\.6 s \(EMULATOR_MCP_TIMEOUT_SECONDS\)/);

    addRule({ target: { kind: "mcp", server: "local" }, effect: { kind: "latency", ms: 300 }, times: 1 });
    const slowStart = Date.now();
    const slow = await call(fixture.url, "echo", { text: "late" });
    assert.ok(Date.now() - slowStart >= 300);
    assert.equal(slow.text, "echo: late");
    assert.equal(slow.injectedFault?.effect.kind, "latency");
  });

  it("only the owner's rules, only the named server and tool", async () => {
    addRule({ target: { kind: "mcp", server: "local" }, effect: { kind: "error", message: "other key" }, times: 1 }, "someone-else");
    addRule({ target: { kind: "mcp", server: "other" }, effect: { kind: "error", message: "other server" }, times: 1 });
    addRule({ target: { kind: "mcp", server: "local", tool: "add" }, effect: { kind: "error", message: "other tool" }, times: 1 });
    assert.deepEqual(await call(fixture.url, "echo", { text: "ok" }), { text: "echo: ok", isError: false });
    plan.clear(OWNER);
  });

  describe("through the SDK", () => {
    const KEY = "mcp-faults-key";
    let emulator: FakeRuntimeEmulator;
    let ai: GoogleGenAI;
    const sdkPlan = new FaultPlan();
    before(async () => {
      emulator = await startFakeRuntimeEmulator({}, { faults: sdkPlan });
      ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
    });
    after(async () => {
      await emulator.close();
    });

    it("the result step is the real error plus the mark, and the MCP call's trace entry carries injected_fault", async () => {
      const rule = sdkPlan.add(
        ownerOf(KEY),
        faultRuleSchema.parse({
          target: { kind: "mcp", server: "local", tool: "echo" },
          effect: { kind: "error", message: "injected failure" },
          times: 1,
        }),
      );
      assert.ok(rule);
      const interaction = await ai.interactions.create({
        agent: "antigravity-preview-05-2026",
        input: `\`\`\`tool_calls\n${JSON.stringify([{ server: "local", name: "echo", args: { text: "hi" } }])}\n\`\`\``,
        tools: [{ type: "mcp_server", name: "local", url: fixture.url }],
      });
      const result = (interaction.steps as Array<Record<string, any>>).find((step) => step.type === "mcp_server_tool_result");
      assert.equal(result?.is_error, true);
      assert.equal(result?.result, `injected failure (injected by fault rule ${rule.id})`);
      const response = await fetch(`${emulator.url}/emulator/interactions/${interaction.id}/hooks`, { headers: { "x-goog-api-key": KEY } });
      const { tool_calls } = (await response.json()) as { tool_calls: Array<Record<string, any>> };
      assert.deepEqual(tool_calls[0]?.injected_fault, { rule_id: rule.id, effect: { kind: "error", message: "injected failure" } });
    });
  });
});
