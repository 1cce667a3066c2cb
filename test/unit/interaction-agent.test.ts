// How an interaction runs its agent, without Docker: the run's endings as interaction statuses (a
// planner that asks the client, one that never answers), and the planner's state kept with the
// interaction and resumed by the next one (previous_interaction_id), in the store or, for store:
// false, only in memory.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Planner } from "../../server/agent/planner.js";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";
import { InteractionRun } from "../../server/interactions/interaction-runner.js";
import type { InteractionService } from "../../server/interactions/interaction-service.js";
import type { InteractionRecord } from "../../server/interactions/interaction-store.js";
import { renderInteraction } from "../../server/interactions/interaction-view.js";
import type { StreamEvent } from "../../server/interactions/events.js";
import { serviceWithFakeSandbox } from "../support/fake-interaction-service.js";
import { FakePlanner, movesInOrder } from "../support/fake-planners.js";

const OWNER = "owner-agent-test";
const AGENT = "antigravity-preview-05-2026";
const LIMITS = { timeoutMs: 5_000, maxOutputBytes: 1024 * 1024 };

function newRecord(): InteractionRecord {
  return {
    id: "int_agent_test",
    owner: OWNER,
    status: "in_progress",
    environmentId: null,
    previousInteractionId: null,
    echo: {},
    errors: [],
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:00Z",
    steps: [],
    hookTraces: [],
  };
}

/** Runs `planner` in an interaction without an environment; resolves with the record and its events. */
async function runWithoutEnvironment(planner: Planner, maxTurns?: number): Promise<{ record: InteractionRecord; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  const run = new InteractionRun(
    {
      record: newRecord(),
      inputText: "hi",
      planner,
      environment: null,
      channel: null,
      codeExecutionEnabled: true,
      limits: LIMITS,
      ...(maxTurns ? { maxTurns } : {}),
    },
    {
      persistEvent: (event) => events.push(event),
      persistFinal: () => undefined,
      atomically: (work) => work(),
      using: (_id, work) => work(),
      onFinished: () => undefined,
    },
  );
  run.start();
  return { record: await run.done, events };
}

describe("interaction: how the agent's run ends", () => {
  it("a planner that asks the client leaves the interaction in requires_action with the function_call steps", async () => {
    const { record, events } = await runWithoutEnvironment(
      movesInOrder({ kind: "ask_client", calls: [{ name: "get_weather", arguments: { city: "Paris" } }] }),
    );
    assert.equal(record.status, "requires_action");
    assert.deepEqual(record.errors, []);
    assert.equal(record.steps.length, 2);
    assert.deepEqual(record.steps[0], { type: "user_input", content: [{ type: "text", text: "hi" }] });
    const call = record.steps[1];
    assert.ok(call?.type === "function_call");
    assert.match(call.id, /^call_/);
    assert.deepEqual({ name: call.name, arguments: call.arguments }, { name: "get_weather", arguments: { city: "Paris" } });
    const last = events[events.length - 1];
    assert.equal(last?.event_type, "interaction.completed");
    assert.equal(last?.event_type === "interaction.completed" && last.interaction.status, "requires_action");
    assert.equal(
      events.some((event) => event.event_type === "error"),
      false,
    );
    assert.deepEqual(record.plannerState, { planner: "fake", data: { turns: 1 } });
  });

  it("a planner that never answers fails the interaction with the turn limit's text as its answer and error", async () => {
    const planner = new FakePlanner(() => ({ kind: "call_tools", calls: [] }));
    const { record } = await runWithoutEnvironment(planner, 4);
    assert.equal(planner.shown.length, 4);
    assert.equal(record.status, "failed");
    assert.equal(record.errors[0]?.code, "quota_exceeded");
    assert.match(record.errors[0]?.message ?? "", /stopped after 4 turns without reaching an answer/);
    const answer = record.steps[record.steps.length - 1];
    assert.deepEqual(answer, { type: "model_output", content: [{ type: "text", text: record.errors[0]?.message }] });
  });

  it("a planner's own failure fails the interaction as api_error", async (t) => {
    t.mock.method(console, "error", () => undefined); // the runner logs the failure
    const { record } = await runWithoutEnvironment(
      new FakePlanner(() => {
        throw new Error("planner bug");
      }),
    );
    assert.equal(record.status, "failed");
    assert.equal(record.errors[0]?.code, "api_error");
    assert.match(record.errors[0]?.message ?? "", /planner bug/);
  });
});

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

async function create(service: InteractionService, request: Partial<CreateInteractionRequest>): Promise<InteractionRecord> {
  const run = await service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest);
  return run.done;
}

describe("interaction: the planner's state is kept and resumed", () => {
  it("is saved with the interaction and resumed by the next one that names it", async () => {
    const { service, interactions, channel } = serviceWithFakeSandbox(OWNER);
    const first = await create(service, { input: script([{ name: "write_file", args: { path: "/workspace/a.txt", content: "a" } }]) });
    assert.equal(first.status, "completed");
    assert.equal(channel.files.get("/workspace/a.txt"), "a");
    const firstCallId = first.steps[1]?.type === "function_call" ? first.steps[1].id : "?";
    assert.deepEqual(interactions.get(first.id, OWNER)?.plannerState, {
      planner: "scripted",
      data: { runs: [{ read: "script", calls: [{ name: "write_file", call_id: firstCallId, status: "ok" }] }] },
    });

    const second = await create(service, { input: "read `/workspace/a.txt`", previous_interaction_id: first.id });
    assert.equal(second.status, "completed");
    assert.equal(second.environmentId, "env_fake");
    const stored = interactions.get(second.id, OWNER);
    const secondCallId = second.steps[1]?.type === "function_call" ? second.steps[1].id : "?";
    assert.deepEqual(stored?.plannerState, {
      planner: "scripted",
      data: {
        runs: [
          { read: "script", calls: [{ name: "write_file", call_id: firstCallId, status: "ok" }] },
          { read: "phrasing", calls: [{ name: "read_file", call_id: secondCallId, status: "ok" }] },
        ],
      },
    });
    // The resumed planner behaves for the new input exactly as a fresh one.
    assert.deepEqual(stored?.steps[stored.steps.length - 1], {
      type: "model_output",
      content: [{ type: "text", text: "Read /workspace/a.txt: a" }],
    });
  });

  it("is never part of the public Interaction", async () => {
    const { service } = serviceWithFakeSandbox(OWNER);
    const record = await create(service, { input: "Hello" });
    assert.ok(record.plannerState);
    assert.equal(JSON.stringify(renderInteraction(record)).includes("planner"), false);
  });

  it("with store: false, lives only in memory with the rest of the interaction", async () => {
    const { service, interactions, db } = serviceWithFakeSandbox(OWNER);
    const record = await create(service, { input: "Hello", store: false });
    assert.deepEqual(record.plannerState, { planner: "scripted", data: { runs: [{ read: "none", calls: [] }] } });
    assert.equal(interactions.get(record.id, OWNER), null);
    assert.deepEqual(db.prepare("SELECT COUNT(*) AS n FROM interactions WHERE planner_state IS NOT NULL").get(), { n: 0 });
  });

  it("events the store refuses at the end of a turn fail the run, saying why", async (t) => {
    t.mock.method(console, "error", () => undefined); // the runner logs the refusal and its unrecorded end
    const planner = new FakePlanner(async (_conversation, _turn, signal) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      signal?.throwIfAborted();
      return { kind: "answer", text: "never written" };
    });
    const run = new InteractionRun(
      { record: newRecord(), inputText: "hi", planner, environment: null, channel: null, codeExecutionEnabled: true, limits: LIMITS },
      {
        persistEvent: () => {
          throw new Error("disk full");
        },
        deferWrite: (write, settled) =>
          setImmediate(() => {
            try {
              write();
            } catch (error) {
              return settled(error);
            }
            settled();
          }),
        persistFinal: () => undefined,
        atomically: (work) => work(),
        using: (_id, work) => work(),
        onFinished: () => undefined,
      },
    );
    const seen: StreamEvent[] = [];
    run.log.subscribe(0, { event: (event) => seen.push(event), end: () => undefined });
    run.start();
    const record = await run.done;
    assert.equal(record.status, "failed");
    assert.equal(record.errors[0]?.code, "api_error");
    assert.match(record.errors[0]?.message ?? "", /could not store this interaction's events \(disk full\)/);
    assert.deepEqual(seen, [], "nothing unstored was shown to a subscriber");
    assert.equal(planner.shown.length, 1);
  });
});
