// The pure parts of streaming: event IDs, the event log's sequencing and resume, step events and how
// they fold back into steps, and the SSE frame encoding.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { encodeSseFrame, SSE_HEARTBEAT } from "../../server/http/sse-writer.js";
import { EventLog } from "../../server/interactions/event-log.js";
import { eventSeq, parseLastEventId, withEventId, type InteractionEvent, type StreamEvent } from "../../server/interactions/events.js";
import { applyEvent, foldEvents } from "../../server/interactions/step-accumulator.js";
import { StepWriter } from "../../server/interactions/step-writer.js";
import type { Step } from "../../server/agent/steps.js";

const stop = (index: number): InteractionEvent => ({ event_type: "step.stop", index });

function collector(): { events: StreamEvent[]; ended: number; subscriber: { event(e: StreamEvent): void; end(): void } } {
  const state = {
    events: [] as StreamEvent[],
    ended: 0,
    subscriber: {
      event: (event: StreamEvent) => void state.events.push(event),
      end: () => {
        state.ended += 1;
      },
    },
  };
  return state;
}

describe("event IDs and last_event_id", () => {
  it("are evt_<n>, with event_id right after event_type", () => {
    const event = withEventId(7, stop(2));
    assert.deepEqual(Object.keys(event), ["event_type", "event_id", "index"]);
    assert.equal(event.event_id, "evt_7");
    assert.equal(eventSeq("evt_7"), 7);
    assert.equal(eventSeq("evt_07"), null);
    assert.equal(eventSeq("evt_0"), null);
    assert.equal(eventSeq("7"), null);
  });

  it("an absent last_event_id means every event", () => {
    assert.equal(parseLastEventId(undefined), 0);
    assert.equal(parseLastEventId(""), 0);
    assert.equal(parseLastEventId("evt_12"), 12);
  });

  it("refuse anything this emulator could not have issued, with a 400 naming the form", () => {
    for (const bad of ["12", "evt_", "evt_-1", "evt_1x", "EVT_1", "evt_99999999999999999999"]) {
      assert.throws(
        () => parseLastEventId(bad),
        (error: { httpStatus?: number; message: string }) => error.httpStatus === 400 && /evt_<number>/.test(error.message),
        bad,
      );
    }
    assert.throws(
      () => parseLastEventId(["evt_1", "evt_2"]),
      (error: { httpStatus?: number }) => error.httpStatus === 400,
    );
  });
});

describe("the event log", () => {
  it("numbers events from evt_1 without gaps and persists each before anyone sees it", () => {
    const persisted: string[] = [];
    const log = new EventLog((event, seq) => persisted.push(`${seq}:${event.event_id}`));
    const seen = collector();
    log.subscribe(0, {
      event: (event) => {
        assert.ok(persisted.includes(`${eventSeq(event.event_id)}:${event.event_id}`), "seen before it was persisted");
        seen.subscriber.event(event);
      },
      end: seen.subscriber.end,
    });
    for (let i = 0; i < 5; i++) log.append(stop(i));
    assert.deepEqual(
      seen.events.map((event) => event.event_id),
      ["evt_1", "evt_2", "evt_3", "evt_4", "evt_5"],
    );
    assert.equal(log.length, 5);
  });

  it("gives a late subscriber the exact suffix after its last event, then the live events, then the end", () => {
    const log = new EventLog();
    for (let i = 0; i < 4; i++) log.append(stop(i));
    const late = collector();
    log.subscribe(2, late.subscriber);
    log.append(stop(4));
    log.end();
    assert.deepEqual(
      late.events.map((event) => event.event_id),
      ["evt_3", "evt_4", "evt_5"],
    );
    assert.equal(late.ended, 1);
    const afterEnd = collector();
    log.subscribe(5, afterEnd.subscriber);
    assert.deepEqual([afterEnd.events.length, afterEnd.ended], [0, 1]);
    assert.throws(() => log.append(stop(9)), /after the interaction's log ended/);
  });

  it("drops a subscriber that throws and keeps the others", () => {
    const log = new EventLog();
    const good = collector();
    log.subscribe(0, { event: () => assert.fail("broken connection"), end: () => assert.fail("not ended") });
    log.subscribe(0, good.subscriber);
    log.append(stop(0));
    log.append(stop(1));
    log.end();
    assert.deepEqual([good.events.length, good.ended], [2, 1]);
  });

  it("appends nothing when persisting fails", () => {
    const log = new EventLog(() => {
      throw new Error("disk full");
    });
    assert.throws(() => log.append(stop(0)), /disk full/);
    assert.equal(log.length, 0);
  });
});

/** A deferral as the write-behind does it, by hand: the test says when the turn ends and whether the commit holds. */
function manualDeferral() {
  const queued: Array<{ write: () => void; settled: (error?: unknown) => void }> = [];
  const failures: unknown[] = [];
  return {
    failures,
    persistence: {
      defer: (write: () => void, settled: (error?: unknown) => void) => queued.push({ write, settled }),
      onFailed: (error: unknown) => failures.push(error),
    },
    /** Ends the turn: each deferred write runs, then is told (commitError: the commit failed). */
    endTurn(commitError?: Error) {
      for (const item of queued.splice(0)) {
        let error: unknown = commitError;
        try {
          item.write();
        } catch (thrown) {
          error = thrown;
        }
        item.settled(error);
      }
    },
    get queued() {
      return queued.length;
    },
  };
}

describe("the event log, stored at the end of the turn", () => {
  it("stores a turn's events in one deferred write, in order, and shows them to nobody before", () => {
    const persisted: number[] = [];
    const turn = manualDeferral();
    const log = new EventLog((_event, seq) => persisted.push(seq), turn.persistence);
    const seen = collector();
    log.subscribe(0, seen.subscriber);
    const stamped = [log.append(stop(0)), log.append(stop(1)), log.append(stop(2))];
    assert.deepEqual(
      stamped.map((event) => event.event_id),
      ["evt_1", "evt_2", "evt_3"],
      "numbered as they are appended",
    );
    assert.equal(turn.queued, 1, "one write for the turn");
    assert.deepEqual([persisted, seen.events.length, log.length], [[], 0, 0]);
    turn.endTurn();
    assert.deepEqual(persisted, [1, 2, 3]);
    assert.deepEqual(
      seen.events.map((event) => event.event_id),
      ["evt_1", "evt_2", "evt_3"],
    );
    assert.equal(log.length, 3);
    log.append(stop(3));
    turn.endTurn();
    assert.deepEqual(persisted, [1, 2, 3, 4]);
    assert.equal(seen.events.at(-1)?.event_id, "evt_4");
  });

  it("drops events that could not be stored, tells the run, and numbers the next ones after the last stored", () => {
    const persisted: number[] = [];
    let full = false;
    const turn = manualDeferral();
    const log = new EventLog((_event, seq) => {
      if (full) throw new Error("disk full");
      persisted.push(seq);
    }, turn.persistence);
    const seen = collector();
    log.subscribe(0, seen.subscriber);
    log.append(stop(0));
    turn.endTurn();
    full = true;
    log.append(stop(1));
    log.append(stop(2));
    turn.endTurn();
    assert.equal(turn.failures.length, 1);
    assert.match(String(turn.failures[0]), /disk full/);
    full = false;
    log.append(stop(3));
    // Stored by its write, then the commit failed: still never seen.
    turn.endTurn(new Error("the commit failed"));
    assert.equal(turn.failures.length, 2);
    assert.equal(log.append(stop(4)).event_id, "evt_2", "no gap where the dropped events were");
    turn.endTurn();
    assert.deepEqual(
      seen.events.map((event) => event.event_id),
      ["evt_1", "evt_2"],
    );
  });

  it("flush() stores the pending events now; end() stores them before it ends the log", () => {
    const persisted: number[] = [];
    const turn = manualDeferral();
    const log = new EventLog((_event, seq) => persisted.push(seq), turn.persistence);
    const seen = collector();
    log.subscribe(0, seen.subscriber);
    log.append(stop(0));
    log.flush();
    assert.deepEqual([persisted, seen.events.length], [[1], 1]);
    log.append(stop(1));
    log.end();
    assert.deepEqual([persisted, seen.events.length, seen.ended], [[1, 2], 2, 1]);
    // The turn's write, queued before the flush, finds nothing left to store.
    turn.endTurn();
    assert.deepEqual(persisted, [1, 2]);
    assert.equal(turn.failures.length, 0);
  });
});

describe("step events", () => {
  function record(flushMs = 5): { events: InteractionEvent[]; writer: StepWriter; steps: Step[] } {
    const events: InteractionEvent[] = [];
    const steps: Step[] = [];
    const writer = new StepWriter(
      (event) => {
        events.push(event);
        applyEvent(steps, event);
      },
      { flushMs },
    );
    return { events, writer, steps };
  }
  const shape = (events: InteractionEvent[]) => events.map((event) => `${event.event_type}${"index" in event ? `#${event.index}` : ""}`);

  it("give every step a start and a stop, in order, with content deltas between", () => {
    const { events, writer, steps } = record();
    writer.complete({ type: "user_input", content: [{ type: "text", text: "Run `ls`" }] });
    writer.complete({ type: "code_execution_call", id: "c1", arguments: { code: "ls", language: "bash" } });
    writer.startResult({ type: "code_execution_result", call_id: "c1", result: "" }).finish("a\nb\n", false);
    writer.complete({ type: "function_call", id: "c2", name: "read_file", arguments: { path: "/x" } });
    writer.startResult({ type: "function_result", call_id: "c2", name: "read_file", result: "" }).finish("no such file", true);
    writer.text("Done.");
    assert.deepEqual(shape(events), [
      "step.start#0",
      "step.stop#0",
      "step.start#1",
      "step.stop#1",
      "step.start#2",
      "step.delta#2",
      "step.stop#2",
      "step.start#3",
      "step.delta#3",
      "step.stop#3",
      "step.start#4",
      "step.delta#4",
      "step.stop#4",
      "step.start#5",
      "step.delta#5",
      "step.stop#5",
    ]);
    assert.deepEqual(steps, [
      { type: "user_input", content: [{ type: "text", text: "Run `ls`" }] },
      { type: "code_execution_call", id: "c1", arguments: { code: "ls", language: "bash" } },
      { type: "code_execution_result", call_id: "c1", result: "a\nb\n", is_error: false },
      { type: "function_call", id: "c2", name: "read_file", arguments: { path: "/x" } },
      { type: "function_result", call_id: "c2", name: "read_file", result: "no such file", is_error: true },
      { type: "model_output", content: [{ type: "text", text: "Done." }] },
    ]);
    const start = events[4] as Extract<InteractionEvent, { event_type: "step.start" }>;
    assert.deepEqual(start.step, { type: "code_execution_result", call_id: "c1", result: "" }, "a result starts empty, without is_error");
    // A function call as the streaming page shows it: empty arguments at its start, then their JSON text.
    assert.deepEqual(events.slice(7, 9), [
      { event_type: "step.start", index: 3, step: { type: "function_call", id: "c2", name: "read_file", arguments: {} } },
      { event_type: "step.delta", index: 3, delta: { type: "arguments_delta", arguments: '{"path":"/x"}' } },
    ]);
  });

  it("add up a function call's arguments from arguments_delta pieces, as a client does", () => {
    const steps: Step[] = [];
    applyEvent(steps, { event_type: "step.start", index: 0, step: { type: "function_call", id: "c", name: "get_weather", arguments: {} } });
    for (const piece of ['{"location": ', '"Paris, France"}']) {
      applyEvent(steps, { event_type: "step.delta", index: 0, delta: { type: "arguments_delta", arguments: piece } });
    }
    assert.deepEqual(steps[0], { type: "function_call", id: "c", name: "get_weather", arguments: { location: "Paris, France" } });
  });

  it("coalesce output that arrives close together, send it before the command ends, and end with is_error", async () => {
    const { events, writer, steps } = record(20);
    const result = writer.startResult({ type: "code_execution_result", call_id: "c", result: "" });
    result.append("one\n");
    result.append("two\n");
    await sleep(60);
    const deltasWhileRunning = events.filter((event) => event.event_type === "step.delta");
    assert.deepEqual(
      deltasWhileRunning.map((event) => (event as { delta: unknown }).delta),
      [{ type: "code_execution_result", result: "one\ntwo\n" }],
    );
    result.append("three\n");
    result.finish("\n[exit status 1]", true);
    await sleep(40);
    const deltas = events.filter((event) => event.event_type === "step.delta").map((event) => (event as { delta: unknown }).delta);
    assert.deepEqual(deltas, [
      { type: "code_execution_result", result: "one\ntwo\n" },
      { type: "code_execution_result", result: "three\n\n[exit status 1]", is_error: true },
    ]);
    assert.deepEqual(steps[0], {
      type: "code_execution_result",
      call_id: "c",
      result: "one\ntwo\nthree\n\n[exit status 1]",
      is_error: true,
    });
    assert.throws(() => result.append("late"), /after the result step finished/);
  });

  it("close a result left open, and refuse a new step while one is open", () => {
    const { events, writer, steps } = record();
    const result = writer.startResult({ type: "code_execution_result", call_id: "c", result: "" });
    result.append("partial");
    assert.throws(() => writer.text("too early"), /still open/);
    writer.closeOpen("\n[cancelled]");
    assert.equal(result.finished, true);
    assert.deepEqual(steps[0], { type: "code_execution_result", call_id: "c", result: "partial\n[cancelled]", is_error: true });
    assert.equal(events.at(-1)?.event_type, "step.stop");
  });

  it("fold back into steps, and say which step is still open", () => {
    const events: InteractionEvent[] = [
      { event_type: "step.start", index: 0, step: { type: "model_output", content: [] } },
      { event_type: "step.delta", index: 0, delta: { type: "text", text: "The answer " } },
      { event_type: "step.delta", index: 0, delta: { type: "text", text: "is 42." } },
      stop(0),
      { event_type: "step.start", index: 1, step: { type: "code_execution_result", call_id: "c", result: "" } },
      { event_type: "step.delta", index: 1, delta: { type: "code_execution_result", result: "4" } },
    ];
    const folded = foldEvents(events);
    assert.deepEqual(folded.steps[0], { type: "model_output", content: [{ type: "text", text: "The answer is 42." }] });
    assert.equal(folded.openIndex, 1);
    assert.throws(() => foldEvents([{ event_type: "step.delta", index: 3, delta: { type: "text", text: "x" } }]), /has not started/);
  });
});

describe("SSE frames", () => {
  it("carry event, id and one data line of JSON with event_type and event_id inside", () => {
    const event = withEventId(3, {
      event_type: "step.delta",
      index: 2,
      delta: { type: "code_execution_result", result: "line 1\r\nline 2\n\u2028end" },
    });
    const frame = encodeSseFrame(event);
    assert.ok(frame.endsWith("\n\n"));
    const lines = frame.slice(0, -2).split("\n");
    assert.deepEqual(lines.slice(0, 2), ["event: step.delta", "id: evt_3"]);
    assert.equal(lines.length, 3, "the data must be a single line");
    assert.ok(lines[2]!.startsWith("data: "));
    assert.deepEqual(JSON.parse(lines[2]!.slice("data: ".length)), event);
    assert.ok(!/[\r\n]/.test(lines[2]!));
  });

  it("send keep-alives as comments, which SSE parsers skip", () => {
    assert.match(SSE_HEARTBEAT, /^:[^\n]*\n\n$/);
  });
});
