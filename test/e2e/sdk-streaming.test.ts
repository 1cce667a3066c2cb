// End to end: streaming, resuming, background runs, cancel, delete and store: false, through the
// official SDK (its `for await` over the event stream) and through plain fetch, against the emulator
// started as `npm start` starts it, with real Docker sandboxes.
// covers: interactions.create, interactions.get, interactions.cancel, interactions.delete, CreateAgentInteraction.stream
// covers: CreateAgentInteraction.background, CreateAgentInteraction.store

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { GoogleGenAI } from "@google/genai";
import { foldEvents } from "../../server/interactions/step-accumulator.js";
import type { StreamEvent } from "../../server/interactions/events.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "streaming-e2e-key";
const OTHER_KEY = "streaming-e2e-other-key";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startEmulatorProcess();
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

type Event = Record<string, any> & { event_type: StreamEvent["event_type"]; event_id: string };
interface Received {
  event: Event;
  /** Date.now() when `for await` handed the event over. */
  at: number;
}

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });
const statusOf = (error: unknown) => (error as { status?: number }).status;

async function collect(stream: AsyncIterable<unknown>, onEvent: (received: Received) => void = () => undefined): Promise<Received[]> {
  const received: Received[] = [];
  for await (const event of stream) {
    const item = { event: event as Event, at: Date.now() };
    received.push(item);
    onEvent(item);
  }
  return received;
}

const eventsOf = (received: Received[]): Event[] => received.map((item) => item.event);
/** The steps the events describe, by the accumulation rule the README documents. */
const foldSteps = (events: Event[]) => foldEvents(events as unknown as StreamEvent[]).steps;

/** The stream's shape: created, status_update, then each step as start, deltas, stop, then completed last. */
function assertWellFormed(events: Event[]): void {
  assert.equal(events[0]?.event_type, "interaction.created");
  assert.equal(events[0]?.interaction.status, "in_progress");
  assert.equal(events[1]?.event_type, "interaction.status_update");
  assert.equal(events.at(-1)?.event_type, "interaction.completed");
  // The input's step events are stored but not streamed, so their numbers are skipped.
  const seqs = events.map((event) => Number(/^evt_(\d+)$/.exec(event.event_id)?.[1]));
  assert.deepEqual(
    seqs,
    [...new Set(seqs)].sort((a, b) => a - b),
    "every event has an event_id, unique and in order",
  );
  assert.ok(!events.some((event) => event.event_type === "step.start" && event.step.type === "user_input"), "no user_input step");
  let open: number | null = null;
  let next = 0;
  for (const event of events) {
    if (event.event_type === "step.start") {
      assert.equal(open, null, `step ${event.index} started while step ${open} was open`);
      assert.equal(event.index, next);
      open = event.index;
      next += 1;
    } else if (event.event_type === "step.delta") {
      assert.equal(event.index, open);
    } else if (event.event_type === "step.stop") {
      assert.equal(event.index, open);
      open = null;
    }
  }
  assert.equal(open, null, "a step was left open");
}

async function rawGet(id: string, query = "", key = KEY): Promise<Response> {
  return fetch(`${emulator.url}/v1beta/interactions/${id}${query}`, { headers: { "x-goog-api-key": key } });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Waits until the interaction's result step has started, i.e. its command is running. */
function waitUntilRunning(id: string): Promise<void> {
  return waitFor(`${id} to run its command`, async () => {
    const current = await ai.interactions.get(id);
    assert.equal(current.status, "in_progress");
    return current.steps?.some((step) => step.type === "code_execution_result") ? true : undefined;
  }).then(() => undefined);
}

/** The command lines running in the environment's sandbox, seen by a later interaction. */
async function processesIn(environmentId: string): Promise<string> {
  const listing = await ai.interactions.create({ agent: AGENT, input: script([bash("ps -eo args")]), environment: environmentId });
  return (listing.steps?.[1] as { result: string } | undefined)?.result ?? "";
}

describe("stream: true through the SDK", () => {
  let id: string;
  let events: Event[];

  it("streams every event once, each step started and stopped, output while the command runs, then closes", {
    timeout: 60_000,
  }, async () => {
    const code = "for i in 1 2 3; do echo tick $i $(date +%s%3N); sleep 1; done; echo done $(date +%s%3N)";
    const stream = await ai.interactions.create({
      agent: AGENT,
      input: script([bash(code)]),
      environment: { type: "remote" },
      stream: true,
    });
    // The loop ending at all is the check that the server closes the connection after the last event.
    const received = await collect(stream);
    events = eventsOf(received);
    assertWellFormed(events);
    id = events[0]!.interaction.id;
    assert.match(id, /^int_/);
    assert.match(events[0]!.interaction.environment_id, /^env_/);

    assert.deepEqual(
      events.filter((event) => event.event_type === "step.start").map((event) => event.step.type),
      ["code_execution_call", "code_execution_result", "model_output"],
    );
    const resultStart = events.find((event) => event.event_type === "step.start" && event.step.type === "code_execution_result")!;
    assert.deepEqual(Object.keys(resultStart.step).sort(), ["call_id", "result", "type"]);
    assert.equal(resultStart.step.result, "");
    const outputDeltas = received.filter((item) => item.event.event_type === "step.delta" && item.event.index === resultStart.index);
    assert.ok(outputDeltas.length >= 3, `output came in ${outputDeltas.length} deltas, expected one per line at least`);
    assert.equal(outputDeltas.at(-1)!.event.delta.is_error, false, "the last delta closes the result with is_error");

    // The command stamps its own clock; the first output must reach us before the command printed "done".
    const result = (foldSteps(events)[resultStart.index] as { result: string }).result;
    const doneAt = Number(/done (\d+)/.exec(result)?.[1]);
    assert.ok(doneAt > 0, `no end timestamp in ${JSON.stringify(result)}`);
    const first = outputDeltas[0]!;
    assert.match(first.event.delta.result, /^tick 1 \d+\n$/);
    assert.ok(first.at < doneAt, `the first output arrived at ${first.at}, after the command ended at ${doneAt}`);
  });

  it("ends with a snapshot identical to the stored interaction but for its steps, which the events fold into after the input", async () => {
    const { steps, ...stored } = (await (await rawGet(id)).json()) as Record<string, unknown>;
    assert.deepEqual(events.at(-1)!.interaction, stored, "interaction.completed carries no steps, as documented");
    assert.equal(stored.status, "completed");
    assert.deepEqual(foldSteps(events), (steps as unknown[]).slice(1));
    const viaSdk = await ai.interactions.get(id);
    assert.match(viaSdk.output_text ?? "", /tick 3/);
  });

  it("resumes after any event with exactly the events that followed, from the store", async () => {
    for (const k of [0, 4, 7, events.length - 2]) {
      const resumed = eventsOf(await collect(await ai.interactions.get(id, { stream: true, last_event_id: events[k]!.event_id })));
      assert.deepEqual(resumed, events.slice(k + 1), `after ${events[k]!.event_id}`);
    }
    const all = eventsOf(await collect(await ai.interactions.get(id, { stream: true })));
    assert.deepEqual(all, events, "without last_event_id: every event");
    const none = eventsOf(await collect(await ai.interactions.get(id, { stream: true, last_event_id: events.at(-1)!.event_id })));
    assert.deepEqual(none, [], "after the last event: nothing, and the connection closes");
  });

  it("resumes mid-way while it runs: the replayed events, then the live ones, until the end", { timeout: 60_000 }, async () => {
    const stream = await ai.interactions.create({
      agent: AGENT,
      input: script([bash("for i in 1 2 3; do echo line $i; sleep 1; done")]),
      stream: true,
    });
    let interactionId: string | undefined;
    let resumed: Promise<Received[]> | undefined;
    let resumedAfter = "";
    const originalReceived = await collect(stream, ({ event }) => {
      if (event.event_type === "interaction.created") interactionId = event.interaction.id;
      if (resumed || event.event_type !== "step.delta" || !/line 1/.test(event.delta.result ?? "")) return;
      // Resume from this event while the command still runs (lines 2 and 3 are a second or two away).
      resumedAfter = event.event_id;
      resumed = ai.interactions
        .get(interactionId!, { stream: true, last_event_id: event.event_id })
        .then((resumedStream) => collect(resumedStream));
    });
    const original = eventsOf(originalReceived);
    assert.ok(resumed, "the command's first line never arrived");
    const tailReceived = await resumed!;
    const tail = eventsOf(tailReceived);
    assert.ok(tailReceived[0]!.at <= originalReceived.at(-1)!.at, "the resumed stream was following live before the run ended");
    assert.deepEqual(tail, original.slice(original.findIndex((event) => event.event_id === resumedAfter) + 1));
    assert.ok(
      tail.some((event) => event.event_type === "step.delta" && /line 3/.test(event.delta.result ?? "")),
      "live events followed",
    );
    assert.equal(tail.at(-1)?.event_type, "interaction.completed");
  });
});

describe("background: true", () => {
  it("answers at once with in_progress and the environment, shows the steps so far, then the final state", {
    timeout: 60_000,
  }, async () => {
    const created = await ai.interactions.create({
      agent: AGENT,
      input: script([bash("sleep 2; echo finished")]),
      environment: { type: "remote" },
      background: true,
    });
    assert.equal(created.status, "in_progress");
    assert.match(created.environment_id ?? "", /^env_/);
    let sawRunning = false;
    const final = await waitFor("the background interaction to end", async () => {
      const current = await ai.interactions.get(created.id!);
      if (current.status === "in_progress") {
        sawRunning ||= current.steps?.some((step) => step.type === "code_execution_call") === true;
        return undefined;
      }
      return current;
    });
    assert.ok(sawRunning, "a poll while it ran showed the call step");
    assert.equal(final.status, "completed");
    assert.equal(final.environment_id, created.environment_id);
    assert.equal((final.steps?.[2] as { result: string } | undefined)?.result, "finished\n");
    assert.match(final.output_text ?? "", /finished/);
  });

  it("with store: false is a 400 that says why", async () => {
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: "hi", background: true, store: false }),
      (error: unknown) => statusOf(error) === 400 && /store/.test((error as Error).message) && /background/.test((error as Error).message),
    );
  });
});

describe("cancel", () => {
  it("kills the running command's process tree and ends the interaction as cancelled", { timeout: 60_000 }, async () => {
    const created = await ai.interactions.create({
      agent: AGENT,
      input: script([bash("echo started; sleep 3600 | cat")]),
      environment: { type: "remote" },
      background: true,
    });
    await waitUntilRunning(created.id!);
    assert.match(await processesIn(created.environment_id!), /sleep 3600/, "the command runs before the cancel");

    const started = Date.now();
    const cancelled = await ai.interactions.cancel(created.id!);
    assert.equal(cancelled.status, "cancelled");
    assert.ok(Date.now() - started < 10_000, "cancel waited for the command instead of killing it");
    const result = cancelled.steps?.[2] as { result: string; is_error: boolean };
    assert.match(result.result, /^started\n[\s\S]*\[cancelled\]$/);
    assert.equal(result.is_error, true);
    assert.equal(cancelled.steps?.length, 3, "a cancelled run gets no final answer");

    assert.doesNotMatch(await processesIn(created.environment_id!), /sleep 3600/, "the process tree is gone");
    const stored = await ai.interactions.get(created.id!);
    assert.equal(stored.status, "cancelled");
    const events = eventsOf(await collect(await ai.interactions.get(created.id!, { stream: true })));
    assertWellFormed(events);
    assert.equal(events.at(-1)!.interaction.status, "cancelled");
  });

  it("kills a pre_tool_execution hook that is still deciding", { timeout: 60_000 }, async () => {
    // The hook holds while /workspace/hold exists; the probes use file tools, which it does not match.
    const hooks = {
      gate: {
        pre_tool_execution: [
          {
            matcher: "code_execution",
            hooks: [{ type: "command", command: "if [ -f /workspace/hold ]; then echo $$ > /tmp/hook.pid; sleep 3600; fi" }],
          },
        ],
      },
    };
    const created = await ai.interactions.create({
      agent: AGENT,
      input: script([bash("echo never")]),
      environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) },
          { type: "inline", target: "workspace/hold", content: "" },
        ],
      },
      background: true,
    });
    const readInSandbox = async (path: string) => {
      const read = await ai.interactions.create({
        agent: AGENT,
        input: script([{ name: "read_file", args: { path } }]),
        environment: created.environment_id!,
      });
      return read.steps?.[1] as { result: string; is_error: boolean };
    };
    const pid = await waitFor("the hook to start", async () => {
      const file = await readInSandbox("/tmp/hook.pid");
      return file.is_error ? undefined : file.result.trim();
    });
    assert.match(pid, /^\d+$/);

    const cancelled = await ai.interactions.cancel(created.id!);
    assert.equal(cancelled.status, "cancelled");
    assert.deepEqual(cancelled.steps?.[2], {
      type: "code_execution_result",
      call_id: (cancelled.steps?.[1] as { id: string } | undefined)?.id,
      result: "[cancelled]",
      is_error: true,
    });
    assert.equal((await readInSandbox(`/proc/${pid}/cmdline`)).is_error, true, "the hook's process is gone");
  });

  it("returns a finished interaction unchanged", async () => {
    const done = await ai.interactions.create({ agent: AGENT, input: "Hello" });
    const again = await ai.interactions.cancel(done.id!);
    assert.equal(again.status, "completed");
    assert.equal(again.updated, done.updated);
    // The cancel answer is the whole timeline (as GET); the create answer held the run's steps only.
    assert.deepEqual(again.steps?.slice(1), done.steps);
    assert.equal(again.steps?.[0]?.type, "user_input");
  });
});

describe("delete", () => {
  it("answers 200 {} and the interaction is gone", async () => {
    const done = await ai.interactions.create({ agent: AGENT, input: "Hello" });
    const response = await fetch(`${emulator.url}/v1/interactions/${done.id}`, { method: "DELETE", headers: { "x-goog-api-key": KEY } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /application\/json/);
    assert.deepEqual(await response.json(), {});
    await assert.rejects(ai.interactions.get(done.id!), (error: unknown) => statusOf(error) === 404);
    await assert.rejects(ai.interactions.delete(done.id!), (error: unknown) => statusOf(error) === 404);
    assert.equal((await rawGet(done.id!, "?stream=true")).status, 404);
  });

  it("cancels a running interaction first, through the SDK", { timeout: 60_000 }, async () => {
    const created = await ai.interactions.create({
      agent: AGENT,
      input: script([bash("sleep 3600")]),
      environment: { type: "remote" },
      background: true,
    });
    await waitUntilRunning(created.id!);
    assert.equal(await ai.interactions.delete(created.id!), undefined);
    await assert.rejects(ai.interactions.get(created.id!), (error: unknown) => statusOf(error) === 404);
    assert.doesNotMatch(await processesIn(created.environment_id!), /sleep 3600/);
  });
});

describe("store: false", () => {
  it("keeps nothing of a unary or streamed interaction", async () => {
    const unary = await ai.interactions.create({ agent: AGENT, input: "Hello", store: false });
    assert.equal(unary.status, "completed");
    await assert.rejects(ai.interactions.get(unary.id!), (error: unknown) => statusOf(error) === 404);

    const events = eventsOf(
      await collect(await ai.interactions.create({ agent: AGENT, input: script([bash("echo hi")]), stream: true, store: false })),
    );
    assertWellFormed(events);
    const id = events[0]!.interaction.id as string;
    assert.equal(events.at(-1)!.interaction.status, "completed");
    await assert.rejects(ai.interactions.get(id), (error: unknown) => statusOf(error) === 404);
    await assert.rejects(ai.interactions.get(id, { stream: true }), (error: unknown) => statusOf(error) === 404);
  });
});

describe("the wire, with plain fetch", () => {
  async function postStream(body: Record<string, unknown>): Promise<Response> {
    return fetch(`${emulator.url}/v1beta/interactions`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ agent: AGENT, stream: true, ...body }),
    });
  }

  /** Frames as an SSE reader splits them: `event:`, `id:` and one `data:` line each, then `data: [DONE]`. */
  function frames(text: string): Array<{ event: string; id: string; data: Event }> {
    assert.ok(text.endsWith("\n\ndata: [DONE]\n\n"), "the body ends with the sentinel after a complete frame");
    return text
      .slice(0, -"\n\ndata: [DONE]\n\n".length)
      .split("\n\n")
      .filter((frame) => !frame.startsWith(":"))
      .map((frame) => {
        const lines = frame.split("\n");
        assert.equal(lines.length, 3, `frame ${JSON.stringify(frame)}`);
        const [event, id, data] = lines as [string, string, string];
        assert.match(event, /^event: /);
        assert.match(id, /^id: /);
        assert.match(data, /^data: \{/);
        return { event: event.slice(7), id: id.slice(4), data: JSON.parse(data.slice(6)) as Event };
      });
  }

  it("frames each event with event, id and JSON data that repeats both, and closes after the last", async () => {
    const response = await postStream({ input: script([bash("echo framed")]) });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const parsed = frames(await response.text());
    for (const frame of parsed) {
      assert.equal(frame.data.event_type, frame.event);
      assert.equal(frame.data.event_id, frame.id);
    }
    assertWellFormed(parsed.map((frame) => frame.data));

    const id = parsed[0]!.data.interaction.id as string;
    const unary = await rawGet(id, "?stream=false");
    assert.equal(unary.status, 200);
    assert.match(unary.headers.get("content-type") ?? "", /application\/json/);
    // ?stream=false is ignored: the JSON Interaction, which is interaction.completed's with the steps.
    const { steps, ...withoutSteps } = (await unary.json()) as Record<string, unknown>;
    assert.ok(Array.isArray(steps));
    assert.deepEqual(withoutSteps, parsed.at(-1)!.data.interaction);
    const replay = await rawGet(id, "?stream=true&last_event_id=evt_2");
    assert.match(replay.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.deepEqual(
      frames(await replay.text()).map((frame) => frame.data),
      parsed.slice(2).map((frame) => frame.data),
    );
  });

  it("refuses a bad stream request with Google error JSON before any event", async () => {
    const done = await ai.interactions.create({ agent: AGENT, input: "Hello" });
    for (const [query, pattern] of [
      ["?stream=true&last_event_id=42", /evt_<number>/],
      ["?stream=true&last_event_id=evt_999", /past the last event/],
    ] as const) {
      const response = await rawGet(done.id!, query);
      assert.equal(response.status, 400, query);
      assert.match(response.headers.get("content-type") ?? "", /application\/json/);
      const body = (await response.json()) as { error: { code: string; status: string; message: string } };
      assert.equal(body.error.code, "invalid_request");
      assert.equal(body.error.status, "INVALID_ARGUMENT");
      assert.match(body.error.message, pattern);
    }
    const refused = await postStream({ input: '```tool_calls\n[{"name": "nope"}]\n```' });
    assert.equal(refused.status, 400);
    assert.match(refused.headers.get("content-type") ?? "", /application\/json/);
  });

  it("answers 404 to another API key for get, stream, cancel and delete", async () => {
    const done = await ai.interactions.create({ agent: AGENT, input: "Hello" });
    const other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
    await assert.rejects(other.interactions.get(done.id!, { stream: true }), (error: unknown) => statusOf(error) === 404);
    await assert.rejects(other.interactions.cancel(done.id!), (error: unknown) => statusOf(error) === 404);
    await assert.rejects(other.interactions.delete(done.id!), (error: unknown) => statusOf(error) === 404);
    assert.equal((await ai.interactions.get(done.id!)).status, "completed");
  });
});

describe("interactions running when the emulator stops", () => {
  for (const [how, pattern] of [
    ["a shutdown (SIGTERM)", /shut down/],
    ["a crash (SIGKILL)", /emulator stopped/],
  ] as const) {
    it(`are failed after ${how}, with an error saying why and their steps so far`, { timeout: 90_000 }, async () => {
      const own = await startEmulatorProcess();
      let current = own;
      try {
        const sdk = () => new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: current.url } });
        const created = await sdk().interactions.create({
          agent: AGENT,
          input: script([bash("echo started; sleep 3600")]),
          environment: { type: "remote" },
          background: true,
        });
        await waitFor("the command to start", async () => {
          const now = await sdk().interactions.get(created.id!);
          return /started/.test((now.steps?.[2] as { result?: string } | undefined)?.result ?? "") ? true : undefined;
        });
        if (how.includes("SIGKILL")) await current.crash();
        else await current.stop();
        current = await startEmulatorProcess({}, own);
        const after = await sdk().interactions.get(created.id!);
        assert.equal(after.status, "failed");
        const errors = (after as { errors?: Array<{ code: string; message: string }> }).errors ?? [];
        assert.equal(errors[0]?.code, "aborted");
        assert.match(errors[0]?.message ?? "", pattern);
        assert.match((after.steps?.[2] as { result: string } | undefined)?.result ?? "", /^started\n/);
        const events = eventsOf(await collect(await sdk().interactions.get(created.id!, { stream: true })));
        assertWellFormed(events);
        assert.deepEqual(
          events.slice(-2).map((event) => event.event_type),
          ["error", "interaction.completed"],
        );
        assert.deepEqual(foldSteps(events), after.steps?.slice(1), "the stream's steps are the stored ones after the input");
      } finally {
        await current.destroy();
      }
    });
  }
});
