// The token counting rule (docs/api.md#usage) and how an interaction carries it: on the record, in GET,
// in the events of its stream (status updates and step stops), in a replay, and after the recovery of
// an interrupted run. The expected numbers are computed here from the documented rule, independently of
// the code under test.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";
import { EventStore } from "../../server/interactions/event-store.js";
import { withEventId, type StreamEvent } from "../../server/interactions/events.js";
import { recoverInterrupted } from "../../server/interactions/interaction-recovery.js";
import type { InteractionService } from "../../server/interactions/interaction-service.js";
import { InteractionStore, type InteractionRecord } from "../../server/interactions/interaction-store.js";
import { renderInteraction } from "../../server/interactions/interaction-view.js";
import {
  countRequestInput,
  countRunStep,
  emptyTally,
  MEDIA_PART_TOKENS,
  textTokens,
  usageOf,
  type Usage,
} from "../../server/interactions/usage.js";
import { UsageMeter } from "../../server/interactions/usage-meter.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { serviceWithFakeSandbox } from "../support/fake-interaction-service.js";
import { readFeed } from "../support/read-feed.js";

const OWNER = "owner-usage-test";
const AGENT = "antigravity-preview-05-2026";

/** The documented rule, written out again: ceil(length / 4) per text. */
const tokens = (text: string) => Math.ceil(text.length / 4);

async function create(service: InteractionService, request: Partial<CreateInteractionRequest>): Promise<InteractionRecord> {
  const run = await service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest);
  return run.done;
}

async function replay(service: InteractionService, id: string): Promise<StreamEvent[]> {
  return (await readFeed(service.openEvents(id, OWNER, undefined))).events;
}

describe("the counting rule", () => {
  it("counts a text as ceil(length / 4): 0 for empty, 1 for one to four characters", () => {
    assert.deepEqual(["", "a", "abcd", "abcde", "x".repeat(400)].map(textTokens), [0, 1, 1, 2, 100]);
    // UTF-16 code units, as JavaScript's length counts them: an emoji is two.
    assert.equal(textTokens("😀😀😀"), 2);
  });

  it("counts the system instruction and every text and media part of the input, whatever its form", () => {
    const asString = countRequestInput({ input: "hello world", system_instruction: "be brief" });
    assert.equal(usageOf(asString).total_input_tokens, tokens("hello world") + tokens("be brief"));

    const parts = countRequestInput({
      input: [
        { type: "text", text: "describe these" },
        { type: "image", data: "aGVsbG8=", mime_type: "image/png" },
        { type: "document", uri: "gs://b/report.pdf" },
      ],
    });
    const usage = usageOf(parts);
    assert.deepEqual(usage.input_tokens_by_modality, [
      { modality: "text", tokens: tokens("describe these") },
      { modality: "image", tokens: MEDIA_PART_TOKENS },
      { modality: "document", tokens: MEDIA_PART_TOKENS },
    ]);
    assert.equal(usage.total_input_tokens, tokens("describe these") + 2 * MEDIA_PART_TOKENS);

    // A list of steps: each step by its content, arguments or result.
    const steps = countRequestInput({
      input: [
        { type: "user_input", content: [{ type: "text", text: "first question" }] },
        { type: "model_output", content: [{ type: "text", text: "first answer" }] },
        { type: "function_call", id: "c1", name: "f", arguments: { a: 1 } },
        { type: "function_result", call_id: "c1", name: "f", result: "42" },
      ],
    });
    assert.equal(
      usageOf(steps).total_input_tokens,
      tokens("first question") + tokens("first answer") + tokens(JSON.stringify({ a: 1 })) + tokens("42"),
    );
  });

  it("counts model output and call arguments as output, results as tool use, each text on its own", () => {
    const output = countRunStep({ type: "model_output", content: [{ type: "text", text: "done!" }] });
    assert.equal(usageOf(output).total_output_tokens, tokens("done!"));
    const call = countRunStep({ type: "code_execution_call", id: "c", arguments: { code: "ls -la", language: "bash" } });
    assert.equal(usageOf(call).total_output_tokens, tokens('{"code":"ls -la","language":"bash"}'));
    const result = countRunStep({ type: "code_execution_result", call_id: "c", result: "a.txt\nb.txt\n", is_error: false });
    assert.equal(usageOf(result).total_tool_use_tokens, tokens("a.txt\nb.txt\n"));
    assert.equal(usageOf(result).total_output_tokens, 0);
    // A step type of the other tools (MCP, …) is counted by the same suffix rule.
    const mcp = countRunStep({ type: "mcp_server_tool_result", call_id: "c", result: [{ type: "text", text: "ok" }] });
    assert.equal(usageOf(mcp).total_tool_use_tokens, 1);
  });

  it("makes total_tokens the sum of input, output, tool use and thought, and lists only modalities with tokens", () => {
    const tally = emptyTally();
    tally.input.text = 5;
    tally.output.text = 7;
    tally.toolUse.text = 11;
    const usage = usageOf(tally);
    assert.deepEqual(usage, {
      total_tokens: 23,
      total_input_tokens: 5,
      input_tokens_by_modality: [{ modality: "text", tokens: 5 }],
      initial_input_tokens: 5,
      total_cached_tokens: 0,
      total_output_tokens: 7,
      output_tokens_by_modality: [{ modality: "text", tokens: 7 }],
      total_tool_use_tokens: 11,
      tool_use_tokens_by_modality: [{ modality: "text", tokens: 11 }],
      total_thought_tokens: 0,
    } satisfies Usage);
    assert.deepEqual(usageOf(emptyTally()).tool_use_tokens_by_modality, []);
  });
});

describe("the usage meter", () => {
  it("adds usage to status updates and step stops, step_usage only to the run's own steps, and the steps add up", () => {
    const meter = new UsageMeter(countRequestInput({ input: "read it" }));
    const steps = [{ type: "user_input" as const, content: [{ type: "text" as const, text: "read it" }] }];
    const inputStop = meter.observe({ event_type: "step.stop", index: 0 }, steps);
    assert.equal("step_usage" in inputStop, false);
    assert.equal((inputStop as { usage?: Usage }).usage?.total_tokens, tokens("read it"));
    meter.runStepsFrom(1);
    const run = [
      { type: "function_call" as const, id: "c", name: "read_file", arguments: { path: "/workspace/a.txt" } },
      { type: "function_result" as const, call_id: "c", name: "read_file", result: "some content", is_error: false },
      { type: "model_output" as const, content: [{ type: "text" as const, text: "Read /workspace/a.txt: some content" }] },
    ];
    const all = [...steps, ...run];
    let stepSum = 0;
    for (let index = 1; index < all.length; index++) {
      const stop = meter.observe({ event_type: "step.stop", index }, all) as { usage: Usage; step_usage: Usage };
      stepSum += stop.step_usage.total_tokens;
      assert.equal(stop.usage.total_tokens, tokens("read it") + stepSum);
    }
    const status = meter.observe({ event_type: "interaction.status_update", interaction_id: "i", status: "completed" }, all);
    assert.deepEqual((status as { usage?: Usage }).usage, meter.usage);
    assert.equal(meter.usage.total_output_tokens, tokens('{"path":"/workspace/a.txt"}') + tokens("Read /workspace/a.txt: some content"));
    assert.equal(meter.usage.total_tool_use_tokens, tokens("some content"));
  });
});

describe("usage on interactions", () => {
  const script = '```tool_calls\n[{"name": "write_file", "args": {"path": "/workspace/a.txt", "content": "hello there"}}]\n```';

  it("follows the rule, is the same for the same input, and is what GET, the stream and a replay say", async () => {
    const { service } = serviceWithFakeSandbox(OWNER);
    const record = await create(service, { input: script, system_instruction: "You are terse." });
    assert.equal(record.status, "completed");
    const usage = record.usage;
    assert.ok(usage);
    const call = record.steps[1] as { arguments: unknown };
    const result = record.steps[2] as { result: string };
    const answer = record.steps[3] as { content: Array<{ text: string }> };
    assert.equal(usage.total_input_tokens, tokens(script) + tokens("You are terse."));
    assert.equal(usage.total_output_tokens, tokens(JSON.stringify(call.arguments)) + tokens(answer.content[0]?.text ?? ""));
    assert.equal(usage.total_tool_use_tokens, tokens(result.result));
    assert.equal(usage.total_tokens, usage.total_input_tokens + usage.total_output_tokens + usage.total_tool_use_tokens);

    const again = await create(service, { input: script, system_instruction: "You are terse." });
    assert.deepEqual(again.usage, usage);

    assert.deepEqual(renderInteraction(service.get(record.id, OWNER)).usage, usage);
    const events = await replay(service, record.id);
    const completed = events.at(-1) as { interaction: { usage?: Usage } };
    assert.deepEqual(completed.interaction.usage, usage);
    const lastStop = events.filter((event) => event.event_type === "step.stop").at(-1) as { usage?: Usage };
    assert.deepEqual(lastStop.usage, usage);
    const status = events.find((event) => event.event_type === "interaction.status_update") as { usage?: Usage };
    assert.equal(status.usage?.total_tokens, usage.total_input_tokens);
    assert.equal(status.usage?.total_output_tokens, 0);
    // interaction.created carries no usage (it is only final at the end).
    assert.equal("usage" in (events[0] as { interaction: object }).interaction, false);
  });

  it("keeps the usage the events reached when an interrupted interaction is recovered", () => {
    const db = openMemoryDatabase();
    const interactions = new InteractionStore(db);
    const events = new EventStore(db);
    const input = emptyTally();
    input.input.text = 3;
    const reached = usageOf({ ...emptyTally(), input: input.input, output: { ...input.output, text: 9 } });
    interactions.save({
      id: "int_cut",
      owner: OWNER,
      status: "in_progress",
      environmentId: null,
      previousInteractionId: null,
      echo: { agent: AGENT },
      errors: [],
      created: "t",
      updated: "t",
      steps: [],
      hookTraces: [],
      usage: usageOf(input),
    });
    events.append("int_cut", 1, withEventId(1, { event_type: "step.start", index: 0, step: { type: "model_output", content: [] } }));
    events.append("int_cut", 2, withEventId(2, { event_type: "step.stop", index: 0, usage: reached }));
    assert.equal(recoverInterrupted(interactions, events), 1);
    assert.deepEqual(interactions.get("int_cut", OWNER)?.usage, reached);
  });
});
