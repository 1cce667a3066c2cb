// Reading calls of declared functions from an input: a tool_calls item naming a declared function, and
// the phrasing "call the function `NAME` with {json}", in order with the sandbox calls around them;
// every call that does not fit its declaration refuses the input with a message naming the call and the
// failing path, and the phrasings that worked before read exactly as before.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FunctionDeclaration } from "../../server/agent/declared-functions.js";
import { FunctionCallChecker } from "../../server/agent/function-calls.js";
import { planFromInput } from "../../server/planners/scripted/scripted-planner.js";
import { declaredFunctions } from "../../server/api/function-tools.js";

const WEATHER: FunctionDeclaration = {
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  toolIndex: 1,
};
const PING: FunctionDeclaration = { name: "ping", toolIndex: 2 };
const functions = () => new FunctionCallChecker([WEATHER, PING]);
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const weather = (city: string) => ({ kind: "function", name: "get_weather", args: { city } });

function invalidMessage(input: string, checker = functions()): string {
  const plan = planFromInput(input, checker);
  assert.equal(plan.kind, "invalid", JSON.stringify(plan));
  return plan.kind === "invalid" ? plan.message : "";
}

describe("a tool_calls script may call the declared functions", () => {
  it("reads a declared function's item as a call for the client, in order with the sandbox calls", () => {
    const plan = planFromInput(
      script([
        { name: "write_file", args: { path: "/workspace/a.txt", content: "x" } },
        { name: "get_weather", args: { city: "Paris" } },
        { name: "ping" },
        { name: "read_file", args: { path: "/workspace/a.txt" } },
      ]),
      functions(),
    );
    assert.deepEqual(plan, {
      kind: "calls",
      source: "script",
      calls: [
        { name: "write_file", args: { path: "/workspace/a.txt", content: "x" } },
        weather("Paris"),
        { kind: "function", name: "ping", args: {} },
        { name: "read_file", args: { path: "/workspace/a.txt" } },
      ],
    });
  });

  it("refuses arguments that do not fit the declared parameters, naming the item and the path", () => {
    const message = invalidMessage(
      script([
        { name: "get_weather", args: { city: "Paris" } },
        { name: "get_weather", args: { town: "Rome" } },
      ]),
    );
    assert.equal(message, "tool_calls item 2: function get_weather: arguments.city is missing (the declared parameters require it)");
  });

  it("refuses an undeclared name, listing the sandbox tools and the declared functions", () => {
    assert.equal(
      invalidMessage(script([{ name: "get_wether", args: {} }])),
      'tool_calls item 1: unknown tool "get_wether"; emulated tools are code_execution, read_file, write_file, list_files, delete_file; the functions declared in tools are get_weather, ping',
    );
  });

  it("says how to declare a function when none is", () => {
    assert.match(
      invalidMessage(script([{ name: "get_weather", args: {} }]), new FunctionCallChecker()),
      /unknown tool "get_weather"; emulated tools are .*; no function is declared \(to call your own, add \{"type": "function"/,
    );
  });

  it("refuses a function declared twice, naming both declarations", () => {
    const twice = new FunctionCallChecker([WEATHER, { ...WEATHER, toolIndex: 4 }]);
    assert.equal(
      invalidMessage(script([{ name: "get_weather", args: { city: "x" } }]), twice),
      "tool_calls item 1: function get_weather is declared 2 times (tools[1], tools[4]); declare each function once",
    );
  });

  it("refuses arguments that are not an object", () => {
    assert.equal(
      invalidMessage(script([{ name: "get_weather", args: ["Paris"] }])),
      "tool_calls item 1: the arguments of function get_weather must be an object, got an array",
    );
  });

  it("keeps a sandbox tool's name for the sandbox tool, even when a function of that name is declared", () => {
    const shadowing = new FunctionCallChecker([{ name: "read_file", parameters: { type: "object" }, toolIndex: 0 }]);
    const plan = planFromInput(script([{ name: "read_file", args: { path: "/a" } }]), shadowing);
    assert.deepEqual(plan, { kind: "calls", source: "script", calls: [{ name: "read_file", args: { path: "/a" } }] });
  });
});

describe('the phrasing "call the function `NAME` with {json}"', () => {
  const cases: [string, string, unknown[]][] = [
    ["backticked name, bare JSON", 'Call the function `get_weather` with {"city": "Paris"}.', [weather("Paris")]],
    ["bare name", 'call function get_weather with {"city":"Paris"}', [weather("Paris")]],
    ["name before the word function", 'call the `get_weather` function with arguments {"city": "Paris"}', [weather("Paris")]],
    ["JSON in backticks", 'call the function `get_weather` with `{"city": "Paris; then Rome"}`', [weather("Paris; then Rome")]],
    ["JSON in a fenced block", 'call the function `get_weather` with:\n```json\n{"city": "Paris"}\n```', [weather("Paris")]],
    ["no arguments", "call the function `ping`", [{ kind: "function", name: "ping", args: {} }]],
    [
      "in order with sandbox steps",
      'create `/workspace/a.txt` containing "x", then call the function `get_weather` with {"city": "Paris"}, then read it back',
      [
        { name: "write_file", args: { path: "/workspace/a.txt", content: "x" } },
        weather("Paris"),
        { name: "read_file", args: { path: "/workspace/a.txt" } },
      ],
    ],
    [
      "a separator inside the JSON's strings splits nothing",
      'call the function `get_weather` with {"city": "A. then B; C"} and read `/b`',
      [weather("A. then B; C"), { name: "read_file", args: { path: "/b" } }],
    ],
  ];
  for (const [behaviour, input, calls] of cases) {
    it(behaviour, () => assert.deepEqual(planFromInput(input, functions()), { kind: "calls", source: "phrasing", calls }));
  }

  it("refuses arguments that do not fit, quoting the step", () => {
    assert.equal(
      invalidMessage('call the function `get_weather` with {"city": 7}'),
      '"call the function `get_weather` with {"city": 7}": function get_weather: arguments.city must be a string, got a number',
    );
  });

  it("refuses a function that is not declared, listing those that are", () => {
    assert.match(
      invalidMessage("call the function `get_wether`"),
      /^"call the function `get_wether`": no function "get_wether" is declared; emulated tools are .*the functions declared in tools are get_weather, ping$/,
    );
  });

  it("refuses arguments that are not JSON, showing how to write them", () => {
    assert.match(
      invalidMessage('call the function `get_weather` with {"city": Paris}'),
      /calls function get_weather, but its arguments are not valid JSON \(.*\); write them like: call the function `get_weather` with \{"city": "Paris"\}$/,
    );
    assert.match(invalidMessage("call the function `get_weather` with Paris"), /write its arguments as a JSON object after "with"/);
  });

  it('leaves "call" alone when no function is named, so earlier phrasings read as before', () => {
    assert.deepEqual(planFromInput("I'd call this a test: read `/workspace/a.txt`", functions()), {
      kind: "calls",
      source: "phrasing",
      calls: [{ name: "read_file", args: { path: "/workspace/a.txt" } }],
    });
    assert.equal(planFromInput("Call me when it is done.", functions()).kind, "none");
  });
});

describe("declaredFunctions (the request's tools)", () => {
  it("keeps the function tools with their index, and nothing else", () => {
    assert.deepEqual(
      declaredFunctions([
        { type: "code_execution" },
        { type: "function", name: "get_weather", description: "d", parameters: { type: "object" } },
        { type: "function" },
        { type: "mcp_server", name: "x" },
        { type: "function", name: "ping" },
      ]),
      [
        { name: "get_weather", description: "d", parameters: { type: "object" }, toolIndex: 1 },
        { name: "ping", toolIndex: 4 },
      ],
    );
    assert.deepEqual(declaredFunctions(undefined), []);
  });
});
