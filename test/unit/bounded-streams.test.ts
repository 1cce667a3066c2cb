// Streams and readbacks in bounded memory (issue 17, item 2), below HTTP: a reader follows the event
// log one event at a time and is told when it falls too far behind the run; the store is paged; and one
// interaction's results share a budget (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES), past which each result
// is cut with a note, in the stored steps and the stored events alike.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";
import { EventLog } from "../../server/interactions/event-log.js";
import { EventStore } from "../../server/interactions/event-store.js";
import type { InteractionEvent, StreamEvent } from "../../server/interactions/events.js";
import type { InteractionService } from "../../server/interactions/interaction-service.js";
import { InteractionStore } from "../../server/interactions/interaction-store.js";
import { foldEvents } from "../../server/interactions/step-accumulator.js";
import { StepWriter } from "../../server/interactions/step-writer.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { serviceWithFakeSandbox } from "../support/fake-interaction-service.js";
import { readFeed } from "../support/read-feed.js";

const OWNER = "owner-bounded-streams";
const AGENT = "antigravity-preview-05-2026";
const KiB = 1024;

const delta = (index: number, text: string): InteractionEvent => ({ event_type: "step.delta", index, delta: { type: "text", text } });

describe("following the event log", () => {
  it("hands over the backlog, then live events, each when asked for, and ends with the log", async () => {
    const log = new EventLog();
    log.append(delta(0, "a"));
    log.append(delta(0, "b"));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of log.follow(1, { maxLagBytes: 1e9, onTooFarBehind: () => assert.fail("not behind") }))
        seen.push(event.event_id);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    log.append(delta(0, "c"));
    log.end();
    await reading;
    assert.deepEqual(seen, ["evt_2", "evt_3"]);
  });

  it("tells a reader that stopped reading once the run got more than the bound ahead of it, not for the backlog it joined with", async () => {
    const log = new EventLog();
    for (let index = 0; index < 10; index++) log.append(delta(0, "x".repeat(10 * KiB)));
    let behindAt: number | null = null;
    const follower = log.follow(0, { maxLagBytes: 50 * KiB, onTooFarBehind: (taken) => (behindAt = taken) });
    // The reader takes one event and then stops (its socket does not drain).
    assert.equal((await follower.next()).value?.event_id, "evt_1");
    await follower.next();
    // 100 KiB of backlog waiting: not counted. The run goes on: the new events are.
    for (let index = 0; index < 4; index++) log.append(delta(0, "y".repeat(10 * KiB)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(behindAt, null, "the backlog the reader joined with counted as falling behind");
    for (let index = 0; index < 3; index++) log.append(delta(0, "z".repeat(10 * KiB)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(behindAt, 1, "the reader was not told it fell behind, or not where it stopped");
    await follower.return();
  });
});

describe("paging through stored events", () => {
  it("reads every event in order, a page at a time, whatever their sizes", async () => {
    const db = openMemoryDatabase();
    new InteractionStore(db).save({
      id: "int_paged",
      owner: OWNER,
      status: "completed",
      environmentId: null,
      previousInteractionId: null,
      echo: {},
      errors: [],
      created: "t",
      updated: "t",
      steps: [],
      hookTraces: [],
    });
    const store = new EventStore(db);
    const sizes = [10, 300 * KiB, 5, 5, 1 * KiB, 700 * KiB, 3, 3, 3];
    for (let index = 0; index < 40; index++) {
      const seq = index + 1;
      store.append("int_paged", seq, { ...delta(0, "p".repeat(sizes[index % sizes.length] ?? 1)), event_id: `evt_${seq}` } as StreamEvent);
    }
    const read: number[] = [];
    for await (const { seq } of store.read("int_paged", 7)) read.push(seq);
    assert.deepEqual(
      read,
      Array.from({ length: 33 }, (_, index) => index + 8),
    );
    assert.deepEqual(
      store.list("int_paged", 7).map((event) => event.event_id),
      read.map((seq) => `evt_${seq}`),
    );
  });
});

describe("the output bound of one interaction", () => {
  it("cuts the results past it, with a note of what was kept, and never half a character", () => {
    const events: InteractionEvent[] = [];
    const writer = new StepWriter((event) => events.push(event), { maxResultBytes: 1000 });
    const result = (text: string, tail = "") => {
      const open = writer.startResult({ type: "code_execution_result", call_id: "c", result: "" });
      open.append(text);
      open.finish(tail, false);
    };
    result("a".repeat(600));
    result("é".repeat(300), "\n[exit status 0]"); // 600 bytes of two-byte characters: 400 fit
    result("b".repeat(50));
    const steps = foldEvents(events).steps as Array<{ result: string }>;
    assert.equal(steps[0]?.result, "a".repeat(600));
    assert.equal(
      steps[1]?.result,
      `${"é".repeat(200)}\n[truncated: kept 400 of 616 bytes; this interaction's results reached 1000 bytes in all (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES)]`,
    );
    assert.equal(
      steps[2]?.result,
      "\n[truncated: kept 0 of 50 bytes; this interaction's results reached 1000 bytes in all (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES)]",
    );
  });

  it("holds for what an interaction stores: its steps and its events", async () => {
    const bound = 256 * KiB;
    const { service, channel, db } = serviceWithFakeSandbox(OWNER, { maxInteractionOutputBytes: bound });
    channel.onRun = async () => ({ stdout: "o".repeat(100 * KiB) });
    const calls = Array.from({ length: 6 }, () => ({ name: "code_execution", args: { code: "print" } }));
    const record = await create(service, { input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\`` });
    assert.equal(record.status, "completed");

    const results = record.steps.filter((step) => step.type === "code_execution_result") as Array<{ result: string }>;
    assert.equal(results.length, 6, "every call still ran and has its result");
    assert.deepEqual(
      results.slice(0, 2).map((step) => step.result),
      ["o".repeat(100 * KiB), "o".repeat(100 * KiB)],
    );
    assert.match(
      results[2]?.result ?? "",
      /^o{57344}\n\[truncated: kept 57344 of 102400 bytes; this interaction's results reached 262144 bytes/,
    );
    assert.match(results[5]?.result ?? "", /^\n\[truncated: kept 0 of 102400 bytes/);

    const storedEvents = (
      db.prepare("SELECT SUM(LENGTH(event)) AS bytes FROM interaction_events WHERE interaction_id = ?").get(record.id) as {
        bytes: number;
      }
    ).bytes;
    // The bound, plus what the events add around the results (call steps, notes, the answer): well under 64 KiB here.
    assert.ok(storedEvents < bound + 64 * KiB, `the interaction's events hold ${storedEvents} bytes for a bound of ${bound}`);
    assert.deepEqual(service.get(record.id, OWNER).steps, record.steps, "the stored steps are the cut ones");
    const { events } = await readFeed(service.openEvents(record.id, OWNER, undefined));
    // The stream leaves the input's step out (docs/fidelity.md#streams).
    assert.deepEqual(foldEvents(events).steps, record.steps.slice(1), "the stored events are the cut ones");
  });
});

async function create(service: InteractionService, request: Partial<CreateInteractionRequest>) {
  const run = await service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest);
  return run.done;
}
