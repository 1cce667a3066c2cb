// The summaries of the emulator's interaction list are computed twice: in memory for a running
// interaction (interaction-summary.ts) and in SQL for a stored one (interaction-listing.ts), which never
// folds the steps. Both must say the same of the same interaction, whether its steps are stored as steps
// (interactions stored before events were the one copy) or as events, and whatever its hook trace holds
// (MCP calls have no pre trace).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Step } from "../../server/agent/steps.js";
import { EventStore } from "../../server/interactions/event-store.js";
import { withEventId, type InteractionEvent } from "../../server/interactions/events.js";
import type { InteractionRecord } from "../../server/interactions/interaction-store.js";
import { InteractionStore } from "../../server/interactions/interaction-store.js";
import { INPUT_PREVIEW_CHARS, summarizeInteraction } from "../../server/interactions/interaction-summary.js";
import { openMemoryDatabase } from "../../server/store/database.js";

const handler = (decision: string, failOpen: object | null) => ({ decision, fail_open: failOpen, group: "g" });

function record(id: string, overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const steps: Step[] = [
    {
      type: "user_input",
      content: [
        { type: "text", text: "Run\n`ls`" },
        { type: "image", data: "AAAA", mime_type: "image/png" },
        { type: "text", text: "  please " },
      ],
    },
    { type: "code_execution_call", id: "call_1", arguments: { code: "ls", language: "bash" } },
    { type: "code_execution_result", call_id: "call_1", result: "x\n", is_error: false },
    { type: "model_output", content: [{ type: "text", text: "done" }] },
  ];
  return {
    id,
    owner: "owner-a",
    status: "completed",
    environmentId: null,
    previousInteractionId: null,
    echo: { agent: "antigravity-preview-05-2026" },
    errors: [],
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:02Z",
    steps,
    hookTraces: [
      {
        call_id: "call_1",
        pre: { decision: "allow", handlers: [handler("allow", { code: "nonzero_exit" }), handler("allow", null)] },
        post: null,
      },
      {
        call_id: "call_2",
        pre: { decision: "deny", handlers: [handler("allow", { code: "timeout" }), handler("deny", null)] },
        post: null,
      },
      { call_id: "call_3", pre: null, post: null, hooks_not_run: { code: "not_a_sandbox_tool" } },
    ],
    usage: { total_tokens: 42 } as InteractionRecord["usage"],
    ...overrides,
  };
}

describe("interaction summaries", () => {
  it("are the same from the store (steps stored as steps) as from the record", () => {
    const store = new InteractionStore(openMemoryDatabase());
    const whole = record("int_a");
    store.save(whole);
    const [listed] = store.listPage("owner-a", {}, 10, null);
    assert.deepEqual(listed?.summary, summarizeInteraction(whole));
    assert.equal(listed?.summary.input_preview, "Run `ls` please");
    assert.deepEqual([listed?.summary.tool_calls, listed?.summary.denied_calls, listed?.summary.failed_open_hooks], [3, 1, 2]);
  });

  it("are the same from the store (steps stored as events) as from the record", () => {
    const db = openMemoryDatabase();
    const store = new InteractionStore(db);
    const events = new EventStore(db);
    const whole = record("int_b", { errors: [{ code: "service_unavailable", message: "the sandbox went away" }], status: "failed" });
    store.save({ ...whole, steps: [] });
    const opening: InteractionEvent[] = [
      { event_type: "interaction.created", interaction: { id: whole.id, status: "in_progress" } },
      { event_type: "interaction.status_update", interaction_id: whole.id, status: "in_progress" },
    ];
    const stepEvents: InteractionEvent[] = whole.steps.flatMap((step, index): InteractionEvent[] => [
      { event_type: "step.start", index, step },
      { event_type: "step.stop", index },
    ]);
    for (const [index, event] of [...opening, ...stepEvents].entries()) events.append(whole.id, index + 1, withEventId(index + 1, event));
    store.save(whole, { stepsInEvents: true });
    const [listed] = store.listPage("owner-a", {}, 10, null);
    assert.deepEqual(listed?.summary, summarizeInteraction(whole));
    assert.equal(listed?.summary.error, "the sandbox went away");
  });

  it("cut a long input to INPUT_PREVIEW_CHARS, and say nothing for an input without text", () => {
    const store = new InteractionStore(openMemoryDatabase());
    const long = record("int_c", { steps: [{ type: "user_input", content: [{ type: "text", text: "word ".repeat(1000) }] }] });
    const none = record("int_d", { steps: [{ type: "function_result", call_id: "c", name: "f", result: "r", is_error: false }] });
    store.save(long);
    store.save(none);
    const listed = new Map(store.listPage("owner-a", {}, 10, null).map(({ summary }) => [summary.id, summary]));
    assert.equal(listed.get("int_c")?.input_preview.length, INPUT_PREVIEW_CHARS);
    assert.ok(listed.get("int_c")?.input_preview.endsWith("…"));
    assert.deepEqual(listed.get("int_c"), summarizeInteraction(long));
    assert.equal(listed.get("int_d")?.input_preview, "");
    assert.deepEqual(listed.get("int_d"), summarizeInteraction(none));
  });

  it("list only the owner's, newest first, ties in the order they were stored", () => {
    const store = new InteractionStore(openMemoryDatabase());
    for (const id of ["int_1", "int_2", "int_3"]) store.save(record(id));
    store.save(record("int_x", { owner: "owner-b" }));
    assert.deepEqual(
      store.listPage("owner-a", {}, 10, null).map(({ summary }) => summary.id),
      ["int_3", "int_2", "int_1"],
    );
    const [first] = store.listPage("owner-a", {}, 1, null);
    assert.deepEqual(
      store.listPage("owner-a", {}, 10, first!.position).map(({ summary }) => summary.id),
      ["int_2", "int_1"],
    );
  });
});
