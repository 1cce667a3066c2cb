// Stored events: the store keeps them in order and deletes them with their interaction; at start-up an
// interaction that was running is closed as failed, its stream ended properly; an interaction stored
// without events gets them rebuilt from its steps.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withEventId, type InteractionEvent } from "../../server/interactions/events.js";
import { INTERRUPTED_ERROR, recoverInterrupted } from "../../server/interactions/interaction-recovery.js";
import { renderCompletedSnapshot } from "../../server/interactions/interaction-view.js";
import { eventsOfStoredRecord, withSnapshots } from "../../server/interactions/replay-events.js";
import { foldEvents } from "../../server/interactions/step-accumulator.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { EventStore } from "../../server/interactions/event-store.js";
import { LONG_STRING_CHARS } from "../../server/common/escaped-json.js";
import { InteractionStore, type InteractionRecord } from "../../server/interactions/interaction-store.js";

function running(id: string): InteractionRecord {
  return {
    id,
    owner: "owner-a",
    status: "in_progress",
    environmentId: null,
    previousInteractionId: null,
    echo: { agent: "antigravity-preview-05-2026" },
    errors: [],
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:00Z",
    steps: [],
    hookTraces: [],
  };
}

const liveEvents: InteractionEvent[] = [
  { event_type: "interaction.created", interaction: { id: "int_r", status: "in_progress" } },
  { event_type: "interaction.status_update", interaction_id: "int_r", status: "in_progress" },
  { event_type: "step.start", index: 0, step: { type: "user_input", content: [{ type: "text", text: "Run `sleep 60`" }] } },
  { event_type: "step.stop", index: 0 },
  { event_type: "step.start", index: 1, step: { type: "code_execution_call", id: "c", arguments: { code: "sleep 60", language: "bash" } } },
  { event_type: "step.stop", index: 1 },
  { event_type: "step.start", index: 2, step: { type: "code_execution_result", call_id: "c", result: "" } },
  { event_type: "step.delta", index: 2, delta: { type: "code_execution_result", result: "started\n" } },
];

/** A store in memory, its interactions and events, holding one running interaction. */
function storesWithRunning(id: string) {
  const db = openMemoryDatabase();
  const interactions = new InteractionStore(db);
  const events = new EventStore(db);
  interactions.save(running(id));
  return { db, interactions, events };
}

describe("stored events", () => {
  it("are listed in order after a given event, and deleted with their interaction", () => {
    const { interactions, events } = storesWithRunning("int_r");
    for (const [index, event] of liveEvents.entries()) events.append("int_r", index + 1, withEventId(index + 1, event));
    assert.equal(events.lastSeq("int_r"), liveEvents.length);
    assert.deepEqual(
      events.list("int_r", 6).map((event) => event.event_id),
      ["evt_7", "evt_8"],
    );
    assert.equal(interactions.delete("int_r", "owner-b"), false, "another owner cannot delete it");
    assert.equal(interactions.delete("int_r", "owner-a"), true);
    assert.equal(events.lastSeq("int_r"), 0);
    assert.equal(interactions.get("int_r", "owner-a"), null);
  });
});

describe("stored events with a long string", () => {
  it("are stored as the same JSON text, whatever characters the string holds, and read back equal", () => {
    const { db, events } = storesWithRunning("int_long");
    // Past LONG_STRING_CHARS, so the event is written from pieces (escaped-json.ts): ASCII, escapes,
    // two- to four-byte characters and a lone surrogate, which JSON.stringify writes as \udXXX.
    const result = `${'line "quoted"\n\t'.repeat(5000)}é€😀\ud800 end`;
    assert.ok(result.length >= LONG_STRING_CHARS);
    const event = withEventId(1, { event_type: "step.delta", index: 2, delta: { type: "code_execution_result", result, is_error: false } });
    const stored = events.append("int_long", 1, event);
    assert.equal(stored, Buffer.byteLength(JSON.stringify(event)), "the bytes of the JSON stored");
    const row = db.prepare("SELECT typeof(event) AS type, event FROM interaction_events WHERE interaction_id = ?").get("int_long") as {
      type: string;
      event: string;
    };
    assert.equal(row.type, "text", "stored as TEXT, as every other event");
    assert.equal(row.event, JSON.stringify(event));
    assert.deepEqual(events.list("int_long"), [event]);
  });
});

describe("interactions interrupted by a restart", () => {
  it("end as failed with an error saying why, keeping their steps, and their stream ends properly", () => {
    const { interactions, events } = storesWithRunning("int_r");
    for (const [index, event] of liveEvents.entries()) events.append("int_r", index + 1, withEventId(index + 1, event));
    interactions.save({ ...running("int_done"), status: "completed" });

    const told: Array<[string, string]> = [];
    assert.equal(
      recoverInterrupted(interactions, events, (ended) => told.push([ended.id, ended.status])),
      1,
    );
    assert.deepEqual(told, [["int_r", "failed"]], "the end is told once it is saved (webhooks deliver it)");
    const record = interactions.get("int_r", "owner-a")!;
    assert.equal(record.status, "failed");
    assert.deepEqual(record.errors, [INTERRUPTED_ERROR]);
    assert.match(INTERRUPTED_ERROR.message, /emulator stopped/);
    assert.deepEqual(record.steps[2], { type: "code_execution_result", call_id: "c", result: "started\n\n[interrupted]", is_error: true });

    const stream = withSnapshots(events.list("int_r"), record);
    assert.deepEqual(
      stream.slice(liveEvents.length).map((event) => event.event_type),
      ["step.delta", "step.stop", "error", "interaction.completed"],
    );
    assert.deepEqual(
      stream.map((event) => event.event_id),
      stream.map((_, index) => `evt_${index + 1}`),
    );
    assert.deepEqual(foldEvents(stream).steps, record.steps);
    assert.deepEqual(
      stream.at(-1),
      withEventId(stream.length, { event_type: "interaction.completed", interaction: renderCompletedSnapshot(record) }),
    );
    assert.equal(interactions.get("int_done", "owner-a")?.status, "completed", "finished interactions are left alone");
    assert.equal(recoverInterrupted(interactions, events), 0, "a second start finds nothing to recover");
  });
});

describe("an interaction stored without events", () => {
  it("gets them rebuilt from its steps, folding back to the same steps", () => {
    const record: InteractionRecord = {
      ...running("int_old"),
      status: "completed",
      steps: [
        { type: "user_input", content: [{ type: "text", text: "Run `echo hi`" }] },
        { type: "code_execution_call", id: "c", arguments: { code: "echo hi", language: "bash" } },
        { type: "code_execution_result", call_id: "c", result: "hi\n", is_error: false },
        { type: "model_output", content: [{ type: "text", text: "Ran it." }] },
      ],
    };
    const events = eventsOfStoredRecord(record);
    assert.equal(events[0]?.event_type, "interaction.created");
    assert.equal(events.at(-1)?.event_type, "interaction.completed");
    assert.deepEqual(
      events.map((event) => event.event_id),
      events.map((_, index) => `evt_${index + 1}`),
    );
    assert.deepEqual(foldEvents(events).steps, record.steps);
  });
});
