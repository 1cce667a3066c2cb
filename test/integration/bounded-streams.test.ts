// Issue 17, cases 3 and 4, against the emulator as `npm start` wires it (fake sandboxes, in this
// process, so the event loop is measured too): a completed interaction of many calls each printing a
// lot, read by stream readers that never read, by one that reads at full speed, by GET and by the
// official SDK. Memory stays bounded, /health answers within the stall bounds (HOSTILE_INPUT_BOUNDS) throughout, and the interaction is
// readable whole. Before the fix, each silent reader had the whole interaction written into its socket's
// buffer at once (RSS grew by the interaction's size per reader) and GET built the interaction as one
// string on the event loop.

import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "bounded-streams-key";
const AGENT = "antigravity-preview-05-2026";
const MiB = 1024 * 1024;
/** The output bound for this file (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES), and calls that go past it. */
const BOUND = 20 * MiB;
const CALLS = 24;
const PRINTED = MiB;
const BOUNDS = HOSTILE_INPUT_BOUNDS;

let emulator: FakeRuntimeEmulator;
let interactionId: string;
let environmentId: string;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: await response.json() };
}

/** Polls the (small) list until the interaction has ended. */
async function waitUntilEnded(id: string): Promise<string> {
  for (;;) {
    const { json } = await call("GET", "/emulator/interactions?page_size=10");
    const summary = (json.interactions as Array<{ id: string; status: string }>).find((item) => item.id === id);
    if (summary && summary.status !== "in_progress") return summary.status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A GET …?stream=true on a raw socket that is paused at once and never read. */
function silentReader(path: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(emulator.port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: ${KEY}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

function rssMiB(): number {
  return process.memoryUsage().rss / MiB;
}

before(async () => {
  // The memory of the emulator as users run it: the contract check (on in npm test) parses and checks
  // every event again for every reader, which is the test harness's memory, not the emulator's.
  emulator = await startFakeRuntimeEmulator({
    EMULATOR_MAX_INTERACTION_OUTPUT_BYTES: String(BOUND),
    EMULATOR_POOL_SIZE: "0",
    EMULATOR_CONTRACT_CHECK: "false",
  });
  const environment = await call("POST", "/v1beta/environments", { sources: [] });
  assert.equal(environment.status, 200, JSON.stringify(environment.json));
  environmentId = environment.json.id;
  const channel = emulator.runtime.channels.get(environment.json.id);
  assert.ok(channel);
  let printed = 0;
  channel.onRun = async () => ({ stdout: `${String(printed++).padStart(8, "0")}${"o".repeat(PRINTED - 8)}` });
  const calls = Array.from({ length: CALLS }, () => ({ name: "code_execution", args: { code: "print a lot" } }));
  const created = await call("POST", "/v1beta/interactions", {
    agent: AGENT,
    background: true,
    environment: environment.json.id,
    input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``,
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  interactionId = created.json.id;
  assert.equal(await waitUntilEnded(interactionId), "completed");
});
after(async () => {
  await emulator?.close();
});

describe("a completed interaction of many large results", () => {
  it("stores no more than its output bound, every result past it cut with a note", async () => {
    const { status, json } = await call("GET", `/v1beta/interactions/${interactionId}`);
    assert.equal(status, 200);
    const results = (json.steps as Array<{ type: string; result?: string }>).filter((step) => step.type === "code_execution_result");
    assert.equal(results.length, CALLS);
    const kept = results.reduce((sum, step) => sum + Buffer.byteLength((step.result ?? "").replace(/\n\[truncated: [^\]]*\]$/, "")), 0);
    assert.equal(kept, BOUND, "the results together hold exactly the bound");
    const cut = results.findIndex((step) => step.result?.includes("(EMULATOR_MAX_INTERACTION_OUTPUT_BYTES)"));
    assert.equal(cut, BOUND / PRINTED, "the first result past the bound is not the one cut");
    assert.match(
      results.at(-1)?.result ?? "",
      new RegExp(`^\\n\\[truncated: kept 0 of 1048576 bytes; this interaction's results reached ${BOUND} bytes in all`),
    );
  });

  it("30 stream readers that read nothing leave memory bounded and /health answering", async () => {
    const before = rssMiB();
    let peak = before;
    const sockets: net.Socket[] = [];
    await withoutStalls(
      emulator.url,
      BOUNDS,
      async () => {
        for (let index = 0; index < 30; index++) sockets.push(await silentReader(`/v1beta/interactions/${interactionId}?stream=true`));
        for (let tick = 0; tick < 30; tick++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          peak = Math.max(peak, rssMiB());
        }
      },
      { inProcess: true, what: "30 silent stream readers" },
    );
    for (const socket of sockets) socket.destroy();
    // Before the fix each reader had the whole interaction in its socket's buffer: 30 times its size,
    // 600 MiB. Now each holds one page of events, here one event of a 1 MiB result in its forms (the row
    // read, its parse, its escape, the chunk the socket holds): 147-187 MiB for the 30, measured with this
    // test alone, and up to 277 MiB beside other test files on two busy cores (garbage the collector has
    // not reached yet). The bound sits between that and the defect.
    assert.ok(peak - before < 350, `RSS grew by ${Math.round(peak - before)} MiB with 30 silent readers (from ${Math.round(before)} MiB)`);
  });

  it("one stream reader at full speed gets every event, and /health answers meanwhile", async () => {
    const { result } = await withoutStalls(
      emulator.url,
      BOUNDS,
      async () => {
        const response = await fetch(`${emulator.url}/v1beta/interactions/${interactionId}?stream=true`, {
          headers: { "x-goog-api-key": KEY },
        });
        assert.equal(response.status, 200);
        let bytes = 0;
        let tail = "";
        const frames = new Set<string>();
        const decoder = new TextDecoder();
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
          bytes += chunk.length;
          // The frame headers seen, with a carry-over so one split across chunks is still seen.
          tail = (tail + decoder.decode(chunk, { stream: true })).slice(-64 * 1024);
          for (const match of tail.matchAll(/\nevent: ([a-z_.]+)\n/g)) frames.add(match[1] ?? "");
        }
        return { bytes, tail, frames };
      },
      { inProcess: true, what: "a full-speed stream reader" },
    );
    // The results, in their deltas (interaction.completed carries no steps, as documented).
    assert.ok(result.bytes > BOUND, `the stream held ${result.bytes} bytes`);
    assert.deepEqual([...result.frames].sort(), [
      "interaction.completed",
      "interaction.status_update",
      "step.delta",
      "step.start",
      "step.stop",
    ]);
    // The stream ends with interaction.completed's last bytes (its usage, then the end of the frame), then the sentinel.
    assert.match(result.tail, /"usage":\{[^}]*"total_tokens":\d+.*\}\}\}\n\ndata: \[DONE\]\n\n$/s);
  });

  it("is readable by GET, with /health answering meanwhile, and by the SDK's interactions.get", async () => {
    // The body is only gathered while the watch runs: parsing tens of MiB of JSON here would hold this
    // process's event loop, which the emulator shares (the e2e tier reads it with the SDK under the watch).
    const { result: body } = await withoutStalls(
      emulator.url,
      BOUNDS,
      async () => {
        const response = await fetch(`${emulator.url}/v1beta/interactions/${interactionId}`, { headers: { "x-goog-api-key": KEY } });
        assert.equal(response.status, 200);
        assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
        const chunks: Buffer[] = [];
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
        return Buffer.concat(chunks).toString("utf8");
      },
      { inProcess: true, what: "GET of the interaction" },
    );
    const raw = JSON.parse(body);
    const sdk = await new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } }).interactions.get(interactionId);
    assert.equal(sdk.id, interactionId);
    assert.equal(sdk.status, "completed");
    assert.deepEqual(sdk.steps, raw.steps);
    const first = raw.steps.find((step: { type: string }) => step.type === "code_execution_result");
    assert.equal(first.result, `00000000${"o".repeat(PRINTED - 8)}`);
  });
});

describe("a live stream whose reader stops reading", () => {
  it("is cut off after 16 MiB more of the run with an error event saying how to resume, after whole frames only", async () => {
    // Each call takes a moment, as a real one does, so the reader takes the first events before it stops.
    const channel = emulator.runtime.channels.get(environmentId);
    assert.ok(channel);
    const printing = channel.onRun;
    channel.onRun = async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return printing(request);
    };
    const calls = Array.from({ length: 28 }, () => ({ name: "code_execution", args: { code: "print a lot" } }));
    const body = JSON.stringify({
      agent: AGENT,
      stream: true,
      environment: environmentId,
      input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``,
    });
    // The response is paused as soon as it starts: the client's buffers fill, then the socket's.
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(`${emulator.url}/v1beta/interactions`, {
        method: "POST",
        headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
      });
      request.on("response", (answer) => {
        answer.pause();
        resolve(answer);
      });
      request.on("error", reject);
      request.end(body);
    });
    assert.equal(response.statusCode, 200);
    const { json: list } = await call("GET", "/emulator/interactions?page_size=1");
    const id = list.interactions[0].id as string;
    assert.notEqual(id, interactionId);
    assert.equal(await waitUntilEnded(id), "completed", "the run goes on without its reader");

    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const frames = text.split("\n\n").filter((frame) => frame !== "");
    assert.equal(frames.pop(), "data: [DONE]", "a cut-off stream ends with the sentinel too");
    const last = frames.pop() ?? "";
    assert.match(last, /^event: error\ndata: /);
    const cutOff = JSON.parse(last.slice(last.indexOf("data: ") + 6));
    assert.equal(cutOff.error.code, "aborted");
    assert.match(cutOff.error.message, new RegExp(`fell more than 16777216 bytes behind interaction ${id}`));
    const resumeAt = /\?stream=true&last_event_id=(evt_\d+)\.$/.exec(cutOff.error.message)?.[1];
    assert.ok(resumeAt, cutOff.error.message);
    // Every frame before it is whole, and the last of them is the event the message says to resume after.
    const events = frames.map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)));
    assert.equal(events.at(-1)?.event_id, resumeAt);
    assert.ok(text.length < 20 * MiB, `${text.length} chars were sent before the cut`);

    const resumed = await fetch(`${emulator.url}/v1beta/interactions/${id}?stream=true&last_event_id=${resumeAt}`, {
      headers: { "x-goog-api-key": KEY },
    });
    const rest = await resumed.text();
    const ids = [...rest.matchAll(/\nid: evt_(\d+)\n/g)].map((match) => Number(match[1]));
    assert.equal(ids[0], Number(resumeAt.slice(4)) + 1, "the resumed stream does not go on right after the event named");
    assert.match(rest, /event: interaction.completed\n/);
  });
});
