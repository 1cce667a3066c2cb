import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { objectKeysInFileOrder, parseHooksFile, type HookGroup } from "../../server/hooks/hooks-file.js";
import type { HookDiagnostic } from "../../server/hooks/trace.js";

const FILE = "/.agents/hooks.json";

const parse = (document: unknown) => parseHooksFile(JSON.stringify(document), FILE);

/** A valid command handler, to surround a broken element with valid neighbours. */
const gate = (command = "gate.sh") => ({ type: "command", command });

function handlersOf(group: HookGroup | undefined, event: "pre_tool_execution" | "post_tool_execution" = "pre_tool_execution") {
  return group?.events[event].flatMap((rule) => rule.handlers.map(({ index, handler }) => ({ rule: rule.index, index, handler })));
}

const codes = (diagnostics: HookDiagnostic[]) => diagnostics.map((diagnostic) => diagnostic.code);

describe("hooks.json: the documented schema", () => {
  it("reads the documentation's example with its defaults filled in", () => {
    const parsed = parse({
      "security-gate": {
        enabled: true,
        pre_tool_execution: [
          { matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] },
        ],
      },
      "auto-format": {
        post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/auto_lint.py" }] }],
      },
      audit: {
        post_tool_execution: [
          {
            matcher: "read_file|write_file",
            hooks: [{ type: "http", url: "https://telemetry.example.com/e", headers: { "X-Event-Source": "agent-sandbox" } }],
          },
        ],
      },
    });
    assert.equal(parsed.status, "loaded");
    assert.deepEqual(parsed.diagnostics, []);
    assert.deepEqual(
      parsed.groups.map((group) => [group.name, group.enabled]),
      [
        ["security-gate", true],
        ["auto-format", true],
        ["audit", true],
      ],
    );
    assert.deepEqual(handlersOf(parsed.groups[0])?.[0]?.handler, {
      type: "command",
      command: "python3 /.agents/hooks-scripts/gate.py",
      timeoutS: 10,
    });
    assert.deepEqual(handlersOf(parsed.groups[1], "post_tool_execution")?.[0]?.handler, {
      type: "command",
      command: "python3 /.agents/hooks-scripts/auto_lint.py",
      timeoutS: 30,
    });
    assert.deepEqual(handlersOf(parsed.groups[2], "post_tool_execution")?.[0]?.handler, {
      type: "http",
      url: "https://telemetry.example.com/e",
      headers: { "X-Event-Source": "agent-sandbox" },
      timeoutS: 30,
    });
  });

  it("keeps groups in file order, even groups whose names look like numbers", () => {
    const text =
      '{"zeta": {"pre_tool_execution": []}, "10": {"pre_tool_execution": []}, "alpha": {"pre_tool_execution": []}, "2": {"pre_tool_execution": []}}';
    assert.deepEqual(
      parseHooksFile(text, FILE).groups.map((group) => group.name),
      ["zeta", "10", "alpha", "2"],
    );
  });

  it("reads enabled: false and keeps the disabled group's rules", () => {
    const parsed = parse({ off: { enabled: false, pre_tool_execution: [{ matcher: "*", hooks: [gate()] }] } });
    assert.equal(parsed.groups[0]?.enabled, false);
    assert.equal(handlersOf(parsed.groups[0])?.length, 1);
  });

  it("accepts null for optional fields as if they were absent", () => {
    const parsed = parse({
      g: { enabled: null, pre_tool_execution: [{ matcher: "*", hooks: [{ ...gate(), timeout: null }] }], post_tool_execution: null },
    });
    assert.deepEqual(parsed.diagnostics, []);
    assert.equal(parsed.groups[0]?.enabled, true);
    assert.equal(handlersOf(parsed.groups[0])?.[0]?.handler.timeoutS, 30);
  });

  it("accepts fractional timeouts in seconds", () => {
    assert.equal(
      handlersOf(parse({ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ ...gate(), timeout: 0.5 }] }] } }).groups[0])?.[0]?.handler
        .timeoutS,
      0.5,
    );
  });

  it('treats a rule without a matcher as the catch-all "" and says so', () => {
    const parsed = parse({ g: { pre_tool_execution: [{ hooks: [gate()] }] } });
    assert.equal(parsed.groups[0]?.events.pre_tool_execution[0]?.matcher.kind, "catch_all");
    assert.deepEqual(codes(parsed.diagnostics), ["rule_without_matcher"]);
    assert.equal(parsed.diagnostics[0]?.severity, "warning");
  });
});

describe("hooks.json: a file that is not a usable document", () => {
  it("contributes nothing when it is not JSON, with a diagnostic", () => {
    const parsed = parseHooksFile('{"g": {"pre_tool_execution": [}', FILE);
    assert.equal(parsed.status, "invalid_json");
    assert.deepEqual(parsed.groups, []);
    assert.deepEqual(codes(parsed.diagnostics), ["invalid_json"]);
    assert.deepEqual(parsed.diagnostics[0]?.location, { file: FILE });
    assert.match(parsed.diagnostics[0]?.message ?? "", /not valid JSON/);
  });

  it("points at a byte order mark", () => {
    const parsed = parseHooksFile('\uFEFF{"g": {}}', FILE);
    assert.equal(parsed.status, "invalid_json");
    assert.match(parsed.diagnostics[0]?.message ?? "", /byte order mark/);
  });

  for (const [label, text] of [
    ["an array", "[]"],
    ["a string", '"hooks"'],
    ["null", "null"],
  ] as const) {
    it(`contributes nothing when the top level is ${label}`, () => {
      const parsed = parseHooksFile(text, FILE);
      assert.deepEqual(parsed.groups, []);
      assert.deepEqual(codes(parsed.diagnostics), ["top_level_not_object"]);
    });
  }
});

describe("hooks.json: a broken element is skipped and its neighbours still apply", () => {
  const table: Array<{
    name: string;
    group: unknown;
    code: string;
    location: Record<string, unknown>;
    /** Handlers that survive, as [rule index, handler index]. */
    survivors: Array<[number, number]>;
    mentions?: RegExp;
  }> = [
    {
      name: "a rule that is not an object",
      group: { pre_tool_execution: ["code_execution", { matcher: "*", hooks: [gate()] }] },
      code: "rule_not_object",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0 },
      survivors: [[1, 0]],
    },
    {
      name: "a rule without hooks",
      group: { pre_tool_execution: [{ matcher: "*" }, { matcher: "*", hooks: [gate()] }] },
      code: "rule_invalid",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0 },
      survivors: [[1, 0]],
      mentions: /"hooks" must be an array/,
    },
    {
      name: "a matcher that is not a string",
      group: {
        pre_tool_execution: [
          { matcher: ["read_file"], hooks: [gate()] },
          { matcher: "*", hooks: [gate()] },
        ],
      },
      code: "rule_invalid",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0 },
      survivors: [[1, 0]],
      mentions: /"matcher" must be a string/,
    },
    {
      name: "a handler that is not an object",
      group: { pre_tool_execution: [{ matcher: "*", hooks: ["gate.sh", gate()] }] },
      code: "handler_not_object",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0 },
      survivors: [[0, 1]],
    },
    {
      name: "a handler without a type",
      group: { pre_tool_execution: [{ matcher: "*", hooks: [{ command: "gate.sh" }, gate()] }] },
      code: "handler_type_missing",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0, field: "type" },
      survivors: [[0, 1]],
      mentions: /add "type": "command"/,
    },
    {
      name: "a handler of another hook system's type",
      group: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "prompt", prompt: "is it safe?" }, gate()] }] },
      code: "handler_type_unknown",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0, field: "type" },
      survivors: [[0, 1]],
      mentions: /only "command" and "http"/,
    },
    {
      name: "a handler type in the wrong case",
      group: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "Command", command: "x" }, gate()] }] },
      code: "handler_type_unknown",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0, field: "type" },
      survivors: [[0, 1]],
      mentions: /lower case/,
    },
    {
      name: "an empty command",
      group: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "  " }, gate()] }] },
      code: "handler_invalid",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0 },
      survivors: [[0, 1]],
      mentions: /"command" must not be empty/,
    },
    ...[0, -5, "10", true].map((timeout) => ({
      name: `a timeout of ${JSON.stringify(timeout)}`,
      group: { post_tool_execution: [{ matcher: "*", hooks: [{ ...gate(), timeout }, gate()] }] },
      code: "handler_invalid",
      location: { group: "g", event: "post_tool_execution", rule_index: 0, handler_index: 0 },
      survivors: [[0, 1]] as Array<[number, number]>,
      mentions: /"timeout"/,
    })),
    ...["ftp://example.com/hook", "example.com/hook", "file:///etc/passwd", 42].map((url) => ({
      name: `an http url of ${JSON.stringify(url)}`,
      group: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url }, gate()] }] },
      code: "handler_invalid",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0 },
      survivors: [[0, 1]] as Array<[number, number]>,
      mentions: /"url"/,
    })),
    ...[{ "X-Count": 3 }, { "Bad Name": "x" }, { "@file": "x" }, { "X-Split": "a\r\nX-Injected: 1" }, ["X-A: b"]].map((headers) => ({
      name: `headers ${JSON.stringify(headers)}`,
      group: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://hooks.example.com/", headers }, gate()] }] },
      code: "handler_invalid",
      location: { group: "g", event: "pre_tool_execution", rule_index: 0, handler_index: 0 },
      survivors: [[0, 1]] as Array<[number, number]>,
      mentions: /"headers/,
    })),
  ];

  for (const { name, group, code, location, survivors, mentions } of table) {
    it(`skips ${name}`, () => {
      const parsed = parse({ g: group, other: { pre_tool_execution: [{ matcher: "*", hooks: [gate("other.sh")] }] } });
      const problem = parsed.diagnostics.find((diagnostic) => diagnostic.code === code);
      assert.ok(problem, `no ${code} in ${JSON.stringify(parsed.diagnostics)}`);
      assert.equal(problem.severity, "error");
      assert.deepEqual(problem.location, { file: FILE, ...location });
      if (mentions) assert.match(problem.message, mentions);
      const event = (location["event"] as "pre_tool_execution" | "post_tool_execution") ?? "pre_tool_execution";
      assert.deepEqual(
        handlersOf(parsed.groups[0], event)?.map(({ rule, index }) => [rule, index]),
        survivors,
      );
      assert.equal(parsed.groups[1]?.name, "other", "the neighbouring group still applies");
    });
  }

  it("skips a group that is not an object", () => {
    const parsed = parse({ broken: [1, 2], ok: { pre_tool_execution: [] } });
    assert.deepEqual(
      parsed.groups.map((group) => group.name),
      ["ok"],
    );
    assert.deepEqual(codes(parsed.diagnostics), ["group_not_object"]);
    assert.deepEqual(parsed.diagnostics[0]?.location, { file: FILE, group: "broken" });
  });

  it("skips a group whose enabled is not a boolean, since its intent is unknown", () => {
    const parsed = parse({ maybe: { enabled: "false", pre_tool_execution: [{ matcher: "*", hooks: [gate()] }] }, ok: {} });
    assert.deepEqual(
      parsed.groups.map((group) => group.name),
      ["ok"],
    );
    assert.equal(parsed.diagnostics[0]?.code, "group_invalid");
    assert.match(parsed.diagnostics[0]?.message ?? "", /true or false/);
  });

  it("skips an event that is not an array and keeps the group's other event", () => {
    const parsed = parse({
      g: { pre_tool_execution: { matcher: "*", hooks: [gate()] }, post_tool_execution: [{ matcher: "*", hooks: [gate()] }] },
    });
    assert.deepEqual(codes(parsed.diagnostics), ["event_not_array"]);
    assert.equal(parsed.groups[0]?.events.pre_tool_execution.length, 0);
    assert.equal(parsed.groups[0]?.events.post_tool_execution.length, 1);
  });

  it("keeps a rule with an invalid matcher (it matches nothing) and says why", () => {
    const parsed = parse({ g: { pre_tool_execution: [{ matcher: "*_file", hooks: [gate()] }] } });
    assert.equal(parsed.groups[0]?.events.pre_tool_execution[0]?.matcher.kind, "invalid");
    assert.deepEqual(codes(parsed.diagnostics), ["matcher_invalid_regex"]);
    assert.deepEqual(parsed.diagnostics[0]?.location, {
      file: FILE,
      group: "g",
      event: "pre_tool_execution",
      rule_index: 0,
      field: "matcher",
    });
    assert.match(parsed.diagnostics[0]?.message ?? "", /"\.\*_file"/);
  });

  // Found by the property test (hooks-file.property.test.ts): the header went missing with no diagnostic.
  it('keeps a header named "__proto__" (a valid header name) rather than dropping it silently', () => {
    const text =
      '{"g": {"pre_tool_execution": [{"matcher": "*", "hooks": [' +
      '{"type": "http", "url": "https://hooks.example.com/", "headers": {"__proto__": "v", "X-A": "b"}}]}]}}';
    const parsed = parseHooksFile(text, FILE);
    assert.deepEqual(codes(parsed.diagnostics), []);
    const handler = parsed.groups[0]?.events.pre_tool_execution[0]?.handlers[0]?.handler;
    assert.equal(handler?.type, "http");
    assert.deepEqual(handler?.type === "http" ? Object.entries(handler.headers) : [], [
      ["__proto__", "v"],
      ["X-A", "b"],
    ]);
  });

  it('checks the value of a header named "__proto__" like any other', () => {
    for (const value of ['"a\\r\\nX-Injected: 1"', '"nul\\u0000"', "3"]) {
      const text =
        '{"g": {"pre_tool_execution": [{"matcher": "*", "hooks": [' +
        `{"type": "http", "url": "https://hooks.example.com/", "headers": {"__proto__": ${value}}}]}]}}`;
      const parsed = parseHooksFile(text, FILE);
      assert.deepEqual(codes(parsed.diagnostics), ["handler_invalid"], value);
      assert.match(parsed.diagnostics[0]?.message ?? "", /"headers\.__proto__"/);
      assert.deepEqual(parsed.groups[0]?.events.pre_tool_execution[0]?.handlers, []);
    }
  });
});

describe("hooks.json: keys from other hook systems and typos", () => {
  const table: Array<{ name: string; document: unknown; code: string; field: string; mentions: RegExp }> = [
    { name: "PreToolUse", document: { g: { PreToolUse: [] } }, code: "likely_typo", field: "PreToolUse", mentions: /"pre_tool_execution"/ },
    {
      name: "pre_tool_use",
      document: { g: { pre_tool_use: [] } },
      code: "likely_typo",
      field: "pre_tool_use",
      mentions: /"pre_tool_execution"/,
    },
    {
      name: "PostToolUse",
      document: { g: { PostToolUse: [] } },
      code: "likely_typo",
      field: "PostToolUse",
      mentions: /"post_tool_execution"/,
    },
    {
      name: "enable",
      document: { g: { enable: false, pre_tool_execution: [] } },
      code: "likely_typo",
      field: "enable",
      mentions: /"enabled"/,
    },
    {
      name: "matchers",
      document: { g: { pre_tool_execution: [{ matchers: "read_file", hooks: [gate()] }] } },
      code: "likely_typo",
      field: "matchers",
      mentions: /"matcher"/,
    },
    {
      name: "hook",
      document: { g: { pre_tool_execution: [{ matcher: "*", hook: [gate()] }] } },
      code: "likely_typo",
      field: "hook",
      mentions: /"hooks"/,
    },
    {
      name: "timeout_ms",
      document: { g: { pre_tool_execution: [{ matcher: "*", hooks: [{ ...gate(), timeout_ms: 5000 }] }] } },
      code: "likely_typo",
      field: "timeout_ms",
      mentions: /"timeout" \(in seconds\)/,
    },
    {
      name: "Claude Code's nesting",
      document: { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [gate()] }] } },
      code: "likely_typo",
      field: "PreToolUse",
      mentions: /"pre_tool_execution"/,
    },
    {
      name: "a matcher at group level",
      document: { g: { matcher: "*", pre_tool_execution: [] } },
      code: "misplaced_key",
      field: "matcher",
      mentions: /another level/,
    },
    {
      name: "headers on a command handler",
      document: { g: { pre_tool_execution: [{ matcher: "*", hooks: [{ ...gate(), headers: {} }] }] } },
      code: "misplaced_key",
      field: "headers",
      mentions: /only read for "type": "http"/,
    },
    {
      name: "cmd in a handler without a type",
      document: { g: { pre_tool_execution: [{ matcher: "*", hooks: [{ cmd: "gate.sh" }] }] } },
      code: "likely_typo",
      field: "cmd",
      mentions: /"command"/,
    },
    {
      name: "a url on a command handler",
      document: { g: { pre_tool_execution: [{ matcher: "*", hooks: [{ ...gate(), url: "https://x.example.com" }] }] } },
      code: "misplaced_key",
      field: "url",
      mentions: /only read for "type": "http"/,
    },
    {
      name: "a command on an http handler",
      document: { g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://x.example.com", command: "x" }] }] } },
      code: "misplaced_key",
      field: "command",
      mentions: /only read for "type": "command"/,
    },
    {
      name: "an unknown key",
      document: { g: { pre_tool_execution: [], description: "x" } },
      code: "unknown_key",
      field: "description",
      mentions: /ignored/,
    },
  ];
  for (const { name, document, code, field, mentions } of table) {
    it(`points out ${name}`, () => {
      const parsed = parse(document);
      const problem = parsed.diagnostics.find((diagnostic) => diagnostic.code === code);
      assert.ok(problem, `no ${code} in ${JSON.stringify(parsed.diagnostics)}`);
      assert.equal(problem.location?.field, field);
      assert.match(problem.message, mentions);
    });
  }

  it("warns about a group with no events, a rule with no handlers, and a group defined twice", () => {
    const text = '{"a": {}, "b": {"pre_tool_execution": [{"matcher": "*", "hooks": []}]}, "a": {"enabled": false}}';
    const parsed = parseHooksFile(text, FILE);
    assert.deepEqual(codes(parsed.diagnostics).sort(), ["duplicate_group", "group_has_no_events", "rule_has_no_handlers"]);
    assert.deepEqual(
      parsed.groups.map((group) => [group.name, group.enabled]),
      [
        ["a", false],
        ["b", true],
      ],
    );
  });

  it("notes that the service's proxy refuses a loopback URL", () => {
    const parsed = parse({ g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "http://127.0.0.1:8080/hook" }] }] } });
    assert.deepEqual(codes(parsed.diagnostics), ["http_loopback_url"]);
    assert.equal(parsed.diagnostics[0]?.severity, "info");
    assert.equal(handlersOf(parsed.groups[0])?.length, 1);
  });
});

describe("top-level keys in file order", () => {
  it("ignores braces, commas and quotes inside strings and nested values", () => {
    const text = '{ "a\\"{,": {"x": [1, {"y": "}"}]}, "2": "z,\\"w", "b": [{"c": 1}], "a\\"{,": null }';
    assert.deepEqual(objectKeysInFileOrder(text), ['a"{,', "2", "b", 'a"{,']);
  });
});
