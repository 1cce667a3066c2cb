// Scripted and structured answers (docs/api.md#scripted-answers, docs/api.md#structured-answers): the
// ```response block, response_format as the SDK types it, the check of a scripted JSON answer against
// its schema, and how they combine with tool calls in an interaction: refusals come before anything
// runs (nothing is stored, no sandbox is used), and the scripted answer is given after the tools ran.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixedAnswerFor } from "../../server/planners/scripted/fixed-answer.js";
import { readResponseBlock } from "../../server/planners/scripted/response-block.js";
import { readResponseFormat } from "../../server/agent/response-format.js";
import { contentText } from "../../server/agent/steps.js";
import { startScriptedPlanner } from "../../server/planners/scripted/scripted-planner.js";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import type { InteractionService } from "../../server/interactions/interaction-service.js";
import type { InteractionRecord } from "../../server/interactions/interaction-store.js";
import { serviceWithFakeSandbox } from "../support/fake-interaction-service.js";

const OWNER = "owner-answers-test";
const AGENT = "antigravity-preview-05-2026";
const fence = (info: string, body: string, ticks = "```") => `${ticks}${info}\n${body}\n${ticks}`;

const PERSON = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2 },
    age: { type: "integer", minimum: 0 },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["name", "age"],
  additionalProperties: false,
};
const jsonFormat = (schema: unknown) => ({ type: "text", mime_type: "application/json", schema });

async function create(service: InteractionService, request: Partial<CreateInteractionRequest>): Promise<InteractionRecord> {
  const run = await service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest);
  return run.done;
}

function outputText(record: InteractionRecord): string {
  const last = record.steps.at(-1);
  assert.equal(last?.type, "model_output");
  return last.type === "model_output" ? contentText(last.content) : "";
}

async function refusal(service: InteractionService, request: Partial<CreateInteractionRequest>): Promise<string> {
  try {
    await create(service, request);
  } catch (error) {
    assert.ok(error instanceof InvalidArgumentError, `expected a 400, got ${String(error)}`);
    return error.message;
  }
  assert.fail("expected the request to be refused");
}

describe("the response block", () => {
  it("takes the block's text exactly and leaves the rest of the input to the other readers", () => {
    const input = `Run \`ls\`\n${fence("response", "All done.\n\n  Indented line, `code`, trailing space ")}\nthen read \`/a\``;
    const reading = readResponseBlock(input);
    assert.equal(reading.kind, "found");
    if (reading.kind !== "found") return;
    assert.equal(reading.text, "All done.\n\n  Indented line, `code`, trailing space ");
    // The block's place becomes a line break of its own.
    assert.equal(reading.rest, "Run `ls`\n\n\nthen read `/a`");
  });

  it("keeps fences inside a longer fence, and reads Windows line endings as \\n", () => {
    const markdown = "Here:\n```bash\nls\n```";
    const longer = readResponseBlock(fence("response", markdown, "````"));
    assert.deepEqual(longer.kind === "found" ? longer.text : longer, markdown);
    const windows = readResponseBlock("```response\r\nline 1\r\nline 2\r\n```");
    assert.deepEqual(windows.kind === "found" ? windows.text : windows, "line 1\nline 2");
  });

  it("refuses two blocks, a block left open, and words after the opener", () => {
    const message = (input: string) => {
      const reading = readResponseBlock(input);
      return reading.kind === "invalid" ? reading.message : `not refused: ${reading.kind}`;
    };
    assert.match(message(`${fence("response", "a")}\n${fence("response", "b")}`), /found 2 response blocks/);
    assert.match(message("```response\nnever closed"), /not closed/);
    assert.match(message(fence("response json", "{}")), /nothing may follow ```response/);
    assert.equal(readResponseBlock("no block here ```python\nx\n```").kind, "absent");
  });
});

describe("response_format as the SDK types it", () => {
  it("reads text, JSON with and without a schema, the older schema-only form and response_mime_type", () => {
    assert.deepEqual(readResponseFormat({}), { kind: "text" });
    assert.deepEqual(readResponseFormat({ response_format: { type: "text", mime_type: "text/plain" } }), { kind: "text" });
    assert.deepEqual(readResponseFormat({ response_format: jsonFormat(PERSON) }), {
      kind: "json",
      schema: PERSON,
      where: "response_format.schema",
    });
    assert.deepEqual(readResponseFormat({ response_format: { type: "text", schema: PERSON } }), {
      kind: "json",
      schema: PERSON,
      where: "response_format.schema",
    });
    assert.deepEqual(readResponseFormat({ response_format: { type: "text", mime_type: "application/json" } }), {
      kind: "json",
      where: "response_format.schema",
    });
    assert.deepEqual(readResponseFormat({ response_format: PERSON, response_mime_type: "application/json" }), {
      kind: "json",
      schema: PERSON,
      where: "response_format",
    });
    assert.deepEqual(readResponseFormat({ response_mime_type: "application/json" }), { kind: "json", where: "response_mime_type" });
    assert.deepEqual(readResponseFormat({ response_format: [jsonFormat(PERSON)] }), {
      kind: "json",
      schema: PERSON,
      where: "response_format[0].schema",
    });
  });

  it("refuses audio, image and video output, and contradictions, saying what to send instead", () => {
    const message = (request: Record<string, unknown>) => {
      const read = readResponseFormat(request);
      return read.kind === "invalid" ? read.message : `not refused: ${read.kind}`;
    };
    assert.match(
      message({ response_format: { type: "audio", mime_type: "audio/wav" } }),
      /^response_format asks for audio output: .*text only/,
    );
    assert.match(message({ response_format: [{ type: "text" }, { type: "image" }] }), /^response_format\[1\] asks for image output/);
    assert.match(message({ response_format: { type: "video" } }), /video/);
    assert.match(message({ response_modalities: ["text", "audio"] }), /^response_modalities asks for "audio"/);
    assert.match(message({ response_format: [jsonFormat({}), jsonFormat({})] }), /2 text entries/);
    assert.match(
      message({ response_format: { type: "text", mime_type: "text/plain", schema: PERSON } }),
      /a schema needs mime_type "application\/json"/,
    );
    assert.match(message({ response_mime_type: "text/x.enum" }), /not supported/);
    assert.match(
      message({ response_format: jsonFormat(PERSON), response_mime_type: "text/plain" }),
      /but response_mime_type is "text\/plain"/,
    );
    assert.match(message({ response_format: "json" }), /must be an object/);
  });
});

describe("the fixed answer", () => {
  const format = { kind: "json" as const, schema: PERSON, where: "response_format.schema" };

  it("gives a scripted JSON answer exactly as written when it fits the schema", () => {
    const scripted = '{ "name": "Ada",\n  "age": 36 }';
    assert.deepEqual(fixedAnswerFor(scripted, format), { kind: "fixed", text: scripted });
  });

  it("refuses a scripted answer that does not fit, naming each path and what is wrong", () => {
    const answer = fixedAnswerFor('{"name": "Ada", "age": "old", "tags": [1], "extra": true}', format);
    assert.equal(answer.kind, "invalid");
    if (answer.kind !== "invalid") return;
    assert.equal(answer.field, "input");
    assert.match(answer.message, /\/age must be integer/);
    assert.match(answer.message, /\/tags\/0 must be string/);
    assert.match(answer.message, /\(root\) must NOT have additional properties \("extra"\)/);
    const notJson = fixedAnswerFor("Ada is 36.", format);
    assert.match(notJson.kind === "invalid" ? notJson.message : "", /does not parse as JSON/);
  });

  it("holds a scripted answer only to the keywords the service enforces, and its own answer to all of them", () => {
    // minLength is documented as not enforced: a test may script an answer that breaks it.
    assert.deepEqual(fixedAnswerFor('{"name": "A", "age": 1}', format), { kind: "fixed", text: '{"name": "A", "age": 1}' });
    assert.deepEqual(fixedAnswerFor(undefined, format), { kind: "fixed", text: '{"name":"aa","age":0}' });
  });

  it("answers {} for JSON without a schema, and the text as is for plain text", () => {
    assert.deepEqual(fixedAnswerFor(undefined, { kind: "json", where: "response_mime_type" }), { kind: "fixed", text: "{}" });
    assert.deepEqual(fixedAnswerFor(undefined, { kind: "text" }), { kind: "none" });
    assert.deepEqual(fixedAnswerFor("not JSON at all", { kind: "text" }), { kind: "fixed", text: "not JSON at all" });
  });

  it("refuses a schema Ajv cannot compile, or one it cannot build an answer for, suggesting a scripted answer", () => {
    const bad = fixedAnswerFor(undefined, { kind: "json", schema: { type: "OBJECT" }, where: "response_format.schema" });
    assert.equal(bad.kind === "invalid" && bad.field, "response_format.schema");
    assert.match(bad.kind === "invalid" ? bad.message : "", /not a JSON Schema the emulator can use/);
    const pattern = fixedAnswerFor(undefined, {
      kind: "json",
      schema: { type: "string", pattern: "^[a-f]{4}-[0-9]$" },
      where: "response_format.schema",
    });
    assert.match(
      pattern.kind === "invalid" ? pattern.message : "",
      /cannot build an answer .* put JSON that fits the schema in a ```response block/,
    );
    const lookahead = fixedAnswerFor('"x"', {
      kind: "json",
      schema: { type: "string", pattern: "(?=x)x" },
      where: "response_format.schema",
    });
    assert.match(lookahead.kind === "invalid" ? lookahead.message : "", /not an RE2 expression/);
  });
});

describe("the scripted planner with a fixed answer", () => {
  it("asks for the script's calls first and gives the scripted answer after them", async () => {
    const input = `${fence("tool_calls", '[{"name": "list_files", "args": {"path": "/workspace"}}]')}\n${fence("response", "Listed it.")}`;
    const started = startScriptedPlanner(input);
    assert.equal(started.kind, "ready");
    if (started.kind !== "ready") return;
    assert.equal(started.planner.needsSandbox, true);
    const first = await started.planner.next({ input: { text: input }, turns: [] });
    assert.equal(first.kind, "call_tools");
    const second = await started.planner.next({ input: { text: input }, turns: [{ kind: "tool_calls", outcomes: [] }] });
    assert.deepEqual(second, { kind: "answer", text: "Listed it." });
  });

  it("needs no sandbox for a response block alone", async () => {
    const started = startScriptedPlanner(fence("response", "Hello."));
    assert.equal(started.kind === "ready" && started.planner.needsSandbox, false);
  });
});

describe("scripted and structured answers in interactions", () => {
  it("ends with the response block's text after the script's calls ran", async () => {
    const { service, channel } = serviceWithFakeSandbox(OWNER);
    const input = `${fence("tool_calls", '[{"name": "write_file", "args": {"path": "/workspace/a.txt", "content": "x"}}]')}\n${fence("response", "I wrote the file.")}`;
    const record = await create(service, { input });
    assert.equal(record.status, "completed");
    assert.deepEqual(
      record.steps.map((step) => step.type),
      ["user_input", "function_call", "function_result", "model_output"],
    );
    assert.equal(outputText(record), "I wrote the file.");
    assert.ok(channel.files.has("/workspace/a.txt"));
  });

  it("answers a JSON response_format with the schema's minimal instance when nothing is scripted", async () => {
    const { service } = serviceWithFakeSandbox(OWNER);
    const record = await create(service, {
      input: "Describe a person.",
      response_format: jsonFormat(PERSON),
    } as Partial<CreateInteractionRequest>);
    assert.equal(outputText(record), '{"name":"aa","age":0}');
    assert.deepEqual((record.echo as { response_format?: unknown }).response_format, jsonFormat(PERSON));
  });

  it("refuses before anything runs: nothing is stored and no tool is called", async () => {
    const { service, channel, db } = serviceWithFakeSandbox(OWNER);
    const input = `${fence("tool_calls", '[{"name": "write_file", "args": {"path": "/workspace/b.txt", "content": "x"}}]')}\n${fence("response", '{"name": 7}')}`;
    const message = await refusal(service, { input, response_format: jsonFormat(PERSON) } as Partial<CreateInteractionRequest>);
    assert.match(message, /^input: the response block does not match the schema in response_format\.schema: /);
    assert.match(message, /\/name must be string/);
    assert.match(message, /\(root\) must have required property 'age'/);
    assert.equal(channel.files.has("/workspace/b.txt"), false);
    assert.equal((db.prepare("SELECT COUNT(*) AS n FROM interactions").get() as { n: number }).n, 0);
    assert.match(
      await refusal(service, { input: "hi", response_format: { type: "audio" } } as Partial<CreateInteractionRequest>),
      /^response_format asks for audio output/,
    );
    assert.match(
      await refusal(service, {
        input: "hi",
        response_format: jsonFormat({ type: "string", pattern: "^[a-f]{4}-[0-9]$" }),
      } as Partial<CreateInteractionRequest>),
      /^response_format\.schema: the emulator cannot build an answer/,
    );
  });
});
