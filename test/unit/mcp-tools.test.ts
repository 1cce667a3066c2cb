// The parsing pieces of MCP server tools, without a network: the mcp_server declarations of a request
// (400s naming the field), the allowed_tools rule, how a script and a plain phrasing name an MCP tool,
// how an MCP answer and a failure become a result's text, and that a run of MCP calls alone needs no
// sandbox.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fc from "fast-check";
import { planFromInput, type PlanResult, startScriptedPlanner } from "../../server/planners/scripted/scripted-planner.js";
import { mcpServersOf } from "../../server/api/mcp-server-tools.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { describeMcpFailure } from "../../server/mcp/mcp-failure.js";
import { capResultText, resultText } from "../../server/mcp/mcp-result-text.js";
import { type AllowedToolsEntry, isToolAllowed, type McpServerConfig } from "../../server/mcp/mcp-server-config.js";
import { runs } from "../support/property-runs.js";

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const DOCS = { mcpServers: ["docs"] };

function refusal(tools: unknown[], options = {}): string {
  try {
    mcpServersOf(tools as Array<{ type: string }>, options);
  } catch (error) {
    assert.ok(error instanceof InvalidArgumentError, `a 400, not ${String(error)}`);
    return error.message;
  }
  return assert.fail("expected a 400");
}

describe("mcp_server declarations", () => {
  it("reads name, url, headers and allowed_tools, and ignores the other tools", () => {
    const servers = mcpServersOf([
      { type: "code_execution" },
      {
        type: "mcp_server",
        name: "docs",
        url: "http://127.0.0.1:3000/mcp",
        headers: { Authorization: "Bearer t" },
        allowed_tools: [{ mode: "auto", tools: ["search"] }],
      },
      { type: "mcp_server", name: "other", url: "https://mcp.example.com/mcp" },
    ]);
    assert.deepEqual(servers, [
      {
        name: "docs",
        url: "http://127.0.0.1:3000/mcp",
        headers: { Authorization: "Bearer t" },
        allowedTools: [{ mode: "auto", tools: ["search"] }],
      },
      { name: "other", url: "https://mcp.example.com/mcp", headers: {}, allowedTools: null },
    ]);
    assert.deepEqual(mcpServersOf(undefined), []);
  });

  const cases: Array<[string, unknown, RegExp]> = [
    ["no name", { type: "mcp_server", url: "http://h/mcp" }, /^tools\[0\]\.name: an mcp_server needs a name/],
    ["no url", { type: "mcp_server", name: "a" }, /^tools\[0\]\.url: an mcp_server needs the URL/],
    [
      "not a URL",
      { type: "mcp_server", name: "a", url: "localhost:3000" },
      /^tools\[0\]\.url: MCP servers are reached over streamable HTTP/,
    ],
    ["relative URL", { type: "mcp_server", name: "a", url: "/mcp" }, /^tools\[0\]\.url: "\/mcp" is not a URL/],
    ["ws scheme", { type: "mcp_server", name: "a", url: "ws://h/mcp" }, /must start with http:\/\/ or https:\/\/, not ws:\/\//],
    [
      "headers not an object",
      { type: "mcp_server", name: "a", url: "http://h/", headers: ["x"] },
      /^tools\[0\]\.headers: must be an object/,
    ],
    ["a framing header", { type: "mcp_server", name: "a", url: "http://h/", headers: { Host: "x" } }, /"Host" cannot be sent/],
    [
      "a header with CR LF",
      { type: "mcp_server", name: "a", url: "http://h/", headers: { "X-A": "1\r\nX-B: 2" } },
      /^tools\[0\]\.headers\.X-A: header values may not contain control characters/,
    ],
    [
      "allowed_tools as bare names",
      { type: "mcp_server", name: "a", url: "http://h/", allowed_tools: ["search"] },
      /^tools\[0\]\.allowed_tools\[0\]: "search" is a bare name; .* write \[\{"tools": \["search"\]\}\]/,
    ],
    [
      "allowed_tools.tools not names",
      { type: "mcp_server", name: "a", url: "http://h/", allowed_tools: [{ tools: [1] }] },
      /^tools\[0\]\.allowed_tools\[0\]\.tools: must be a list of tool names/,
    ],
  ];
  for (const [what, tool, expected] of cases) {
    it(`refuses ${what} with a 400 naming the field`, () => assert.match(refusal([tool]), expected));
  }

  it("refuses two servers of one name", () => {
    const message = refusal([
      { type: "mcp_server", name: "a", url: "http://h/1" },
      { type: "mcp_server", name: "a", url: "http://h/2" },
    ]);
    assert.match(message, /^tools\[1\]\.name: another mcp_server is already named "a"/);
  });

  it("keeps MCP servers to the hosts EMULATOR_MCP_HOSTS names, when it is set", () => {
    const hosts = { allowedHosts: ["127.0.0.1", "mcp.internal:8443", "[::1]"] };
    assert.equal(mcpServersOf([{ type: "mcp_server", name: "a", url: "http://127.0.0.1:4000/mcp" }] as never, hosts).length, 1);
    assert.equal(mcpServersOf([{ type: "mcp_server", name: "a", url: "https://MCP.internal:8443/x" }] as never, hosts).length, 1);
    assert.equal(mcpServersOf([{ type: "mcp_server", name: "a", url: "http://[::1]:9/x" }] as never, hosts).length, 1);
    assert.match(
      refusal([{ type: "mcp_server", name: "a", url: "https://mcp.internal/x" }], hosts),
      /^tools\[0\]\.url: this emulator may reach MCP servers only on .* \(EMULATOR_MCP_HOSTS\), not on mcp\.internal/,
    );
    assert.match(refusal([{ type: "mcp_server", name: "a", url: "http://169.254.169.254/" }], hosts), /EMULATOR_MCP_HOSTS/);
    assert.equal(mcpServersOf([{ type: "mcp_server", name: "a", url: "http://anything/" }] as never, { allowedHosts: ["*"] }).length, 1);
  });
});

describe("mcp_server declarations, whatever is sent", () => {
  it("are read or refused with a 400, never another error", () => {
    const anyValue = fc.oneof(fc.anything(), fc.string(), fc.webUrl(), fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.anything())));
    const allowedTools = fc.oneof(
      fc.anything(),
      fc.array(
        fc.oneof(
          fc.string(),
          fc.record(
            { mode: fc.oneof(fc.string(), fc.anything()), tools: fc.oneof(fc.array(fc.string()), fc.anything()) },
            { requiredKeys: [] },
          ),
        ),
      ),
    );
    const tool = fc.record(
      {
        type: fc.constant("mcp_server"),
        name: fc.oneof(fc.string(), anyValue),
        url: fc.oneof(fc.webUrl(), anyValue),
        headers: anyValue,
        allowed_tools: allowedTools,
      },
      { requiredKeys: ["type"] },
    );
    fc.assert(
      fc.property(fc.array(tool, { maxLength: 3 }), fc.option(fc.array(fc.string(), { maxLength: 3 })), (tools, allowedHosts) => {
        try {
          const servers = mcpServersOf(tools as Array<{ type: string }>, { allowedHosts });
          for (const server of servers) assert.ok(["http:", "https:"].includes(new URL(server.url).protocol));
        } catch (error) {
          if (!(error instanceof InvalidArgumentError)) throw error;
        }
      }),
      runs(300),
    );
  });
});

describe("allowed_tools", () => {
  const table: Array<[AllowedToolsEntry[] | null, string, boolean]> = [
    [null, "anything", true],
    [[], "search", false],
    [[{ tools: ["search"] }], "search", true],
    [[{ tools: ["search"] }], "delete", false],
    [
      [
        { mode: "auto", tools: ["a"] },
        { mode: "any", tools: ["b"] },
      ],
      "b",
      true,
    ],
    [[{ mode: "auto" }], "whatever", true],
    [[{ mode: "none" }], "search", false],
    [[{ mode: "auto" }, { mode: "none", tools: ["delete"] }], "delete", false],
    [[{ mode: "auto" }, { mode: "none", tools: ["delete"] }], "search", true],
    [[{ mode: "none", tools: ["search"] }], "search", false],
  ];
  for (const [allowed, tool, expected] of table) {
    it(`${JSON.stringify(allowed)} ${expected ? "allows" : "refuses"} ${tool}`, () => assert.equal(isToolAllowed(allowed, tool), expected));
  }
});

describe("MCP calls in a tool_calls script", () => {
  it("reads an item with a server key as an MCP call, in order with sandbox calls", () => {
    const plan = planFromInput(
      script([
        { server: "docs", name: "search", args: { q: "hooks" } },
        { name: "read_file", args: { path: "/a" } },
        { server: "docs", name: "ping" },
      ]),
      undefined,
      DOCS,
    );
    assert.deepEqual(plan, {
      kind: "calls",
      source: "script",
      calls: [
        { server: "docs", name: "search", args: { q: "hooks" } },
        { name: "read_file", args: { path: "/a" } },
        { server: "docs", name: "ping", args: {} },
      ],
    });
  });

  const invalid: Array<[string, unknown, string, string[]]> = [
    [
      "a server the request does not declare",
      { server: "wiki", name: "search" },
      'tool_calls item 1: no mcp_server named "wiki" in the request\'s tools; declared: "docs"',
      ["docs"],
    ],
    [
      "an MCP call with no server declared at all",
      { server: "wiki", name: "search" },
      'tool_calls item 1: the request declares no mcp_server tools, so there is no server "wiki"; add {"type": "mcp_server", "name": "wiki", "url": "…"} to tools',
      [],
    ],
    [
      "no tool name",
      { server: "docs" },
      'tool_calls item 1: an MCP call needs "name", the tool\'s name as server "docs" lists it (a string), got undefined; e.g. {"server": "docs", "name": "search", "args": {"q": "hooks"}}',
      ["docs"],
    ],
    [
      "args not an object",
      { server: "docs", name: "s", args: [1] },
      'tool_calls item 1: "args" of the MCP tool "s" must be an object, got an array',
      ["docs"],
    ],
    [
      "a dotted name instead of a server key",
      { name: "docs.search", args: {} },
      'tool_calls item 1: unknown tool "docs.search"; emulated tools are code_execution, read_file, write_file, list_files, delete_file; no function is declared (to call your own, add {"type": "function", "name": "…", "parameters": {…}} to tools); to call the tool "search" of the MCP server "docs", write {"server": "docs", "name": "search", "args": {…}}',
      ["docs"],
    ],
    [
      "an unknown key",
      { server: "docs", name: "s", id: 1 },
      'tool_calls item 1: unknown key "id"; an item has only "name" and "args" (and "server", for an MCP tool)',
      ["docs"],
    ],
  ];
  for (const [what, item, message, servers] of invalid) {
    it(`refuses ${what}`, () =>
      assert.deepEqual(planFromInput(script([item]), undefined, { mcpServers: servers }), { kind: "invalid", message }));
  }

  it("keeps the old message for an unknown key when no MCP server is declared", () => {
    assert.deepEqual(planFromInput(script([{ name: "read_file", id: 1 }])), {
      kind: "invalid",
      message: 'tool_calls item 1: unknown key "id"; an item has only "name" and "args"',
    });
  });
});

describe("MCP calls in plain phrasings", () => {
  const calls = (plan: PlanResult) => (plan.kind === "calls" ? plan.calls : assert.fail(`no calls: ${JSON.stringify(plan)}`));

  const readings: Array<[string, unknown[]]> = [
    [
      'call the MCP tool `search` on `docs` with {"q": "hooks", "limit": 2}',
      [{ server: "docs", name: "search", args: { q: "hooks", limit: 2 } }],
    ],
    [
      'Call the MCP tool "search" on the MCP server "docs" with `{"q": "a; b. then c"}`.',
      [{ server: "docs", name: "search", args: { q: "a; b. then c" } }],
    ],
    ["call the mcp tool `ping` of `docs`", [{ server: "docs", name: "ping", args: {} }]],
    ["call the MCP tool ping on docs with arguments: {}", [{ server: "docs", name: "ping", args: {} }]],
    [
      'Run `ls`, then call the MCP tool `search` on `docs` with {"q": "x"}; read `/a`',
      [
        { name: "code_execution", args: { code: "ls", language: "bash" } },
        { server: "docs", name: "search", args: { q: "x" } },
        { name: "read_file", args: { path: "/a" } },
      ],
    ],
    [
      'call the MCP tool `search` on `docs` with:\n```json\n{"q": "fenced"}\n```',
      [{ server: "docs", name: "search", args: { q: "fenced" } }],
    ],
  ];
  for (const [input, expected] of readings) {
    it(`reads ${JSON.stringify(input)}`, () => assert.deepEqual(calls(planFromInput(input, undefined, DOCS)), expected));
  }

  it("names an MCP phrasing it cannot read in the answer instead of guessing", () => {
    const plan = planFromInput("call the MCP tool `search` on `docs` with {q: hooks}. Run `ls`", undefined, DOCS);
    assert.equal(plan.kind, "calls");
    if (plan.kind !== "calls") return;
    assert.deepEqual(plan.calls, [{ name: "code_execution", args: { code: "ls", language: "bash" } }]);
    assert.match(plan.notes?.[0] ?? "", /as a request to call an MCP tool, but its arguments are not one JSON object/);
  });

  it("skips, with a note, a phrased call to a server the request does not declare", () => {
    const plan = planFromInput("call the MCP tool `search` on `wiki`. Run `ls`", undefined, DOCS);
    assert.equal(plan.kind, "calls");
    if (plan.kind !== "calls") return;
    assert.deepEqual(plan.calls, [{ name: "code_execution", args: { code: "ls", language: "bash" } }]);
    assert.match(
      plan.notes?.[0] ?? "",
      /I skipped the call of the MCP tool "search" on "wiki": no mcp_server of that name .*declares "docs"/,
    );
  });

  it('reads "call" in prose exactly as before: no request unless "MCP tool" follows', () => {
    for (const input of ["I'll call you later to read `/workspace/a.txt`", "Please call the function, then list `/tmp`"]) {
      assert.deepEqual(planFromInput(input, undefined, DOCS), planFromInput(input));
      assert.ok(calls(planFromInput(input, undefined, DOCS)).every((call) => !("server" in call)));
    }
    assert.deepEqual(calls(planFromInput("I'll call you later to read `/workspace/a.txt`")), [
      { name: "read_file", args: { path: "/workspace/a.txt" } },
    ]);
  });
});

describe("the sandbox an MCP run needs", () => {
  const needs = (input: string) => {
    const started = startScriptedPlanner(input, null, DOCS);
    return started.kind === "ready" ? started.planner.needsSandbox : assert.fail(started.message);
  };
  it("is none for MCP calls alone, and a sandbox as soon as one sandbox tool is called", () => {
    assert.equal(
      needs(
        script([
          { server: "docs", name: "a" },
          { server: "docs", name: "b" },
        ]),
      ),
      false,
    );
    assert.equal(needs(script([{ server: "docs", name: "a" }, { name: "list_files" }])), true);
    assert.equal(needs("call the MCP tool `a` on `docs`"), false);
  });
});

describe("MCP results as text", () => {
  it("joins text blocks, names other content, and falls back to structured content", () => {
    assert.equal(
      resultText({
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      }),
      "one\ntwo",
    );
    assert.equal(
      resultText({
        content: [
          { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
          { type: "audio", data: "", mimeType: "audio/wav" },
          { type: "resource_link", name: "spec", uri: "file:///spec.md" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inline text" } },
          { type: "resource", resource: { uri: "file:///b.bin", blob: "AAEC", mimeType: "application/octet-stream" } },
        ],
      }),
      "[image: image/png, 5 bytes]\n[audio: audio/wav, 0 bytes]\n[resource link: spec file:///spec.md]\ninline text\n[resource: file:///b.bin, application/octet-stream, 3 bytes]",
    );
    assert.equal(resultText({ content: [], structuredContent: { temperature: 21 } }), '{"temperature":21}');
    assert.equal(resultText({ content: [] }), "");
  });

  it("caps a long text without cutting a character in half", () => {
    assert.equal(capResultText("short", 10), "short");
    assert.equal(capResultText("ééé", 3), "é\n[truncated: kept 2 of 6 bytes]");
  });
});

describe("MCP failures as sentences", () => {
  const server: McpServerConfig = { name: "docs", url: "http://user:pw@127.0.0.1:3000/mcp?token=t", headers: {}, allowedTools: null };
  const context = { timeoutMs: 60_000 };

  it("names the socket error that fetch hides in its cause, and never the URL's credentials or query", () => {
    const error = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:3000") });
    assert.equal(
      describeMcpFailure(server, { kind: "connect" }, error, context),
      'Could not connect to the MCP server "docs" at http://127.0.0.1:3000/mcp: connect ECONNREFUSED 127.0.0.1:3000.',
    );
  });

  it("says which setting bounds a timeout, and reports an HTTP status", () => {
    const timeout = Object.assign(new Error("MCP error -32001: Request timed out"), { code: -32001, data: { timeout: 60_000 } });
    assert.equal(
      describeMcpFailure(server, { kind: "call", tool: "search" }, timeout, context),
      'The call of tool "search" on the MCP server "docs" at http://127.0.0.1:3000/mcp failed: no answer within 60 s (EMULATOR_MCP_TIMEOUT_SECONDS).',
    );
    const http = new StreamableHTTPError(401, "Error POSTing to endpoint: unauthorized");
    assert.equal(
      describeMcpFailure(server, { kind: "list" }, http, context),
      'Could not list the tools of the MCP server "docs" at http://127.0.0.1:3000/mcp: HTTP 401: Error POSTing to endpoint: unauthorized.',
    );
  });

  it("keeps a server's long error page to one line's worth", () => {
    const text = describeMcpFailure(server, { kind: "connect" }, new Error("x".repeat(10_000)), context);
    assert.ok(text.length < 700, `${text.length} characters`);
  });
});
