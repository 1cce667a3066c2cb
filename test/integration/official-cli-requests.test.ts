// Issue 30: the requests of the official CLI (google-gemini/gemini-api-cli 0.2.1), sent as it sends them
// (its headers, its request bodies, its streams read to [DONE]) to the emulator as `npm start` wires it,
// with in-memory sandboxes. Our own code; each test names the CLI's end-to-end script it follows
// (tests/e2e/cuj_NN.sh). Found by running the CLI by hand (docs/fidelity.md#the-official-clients-run-by-hand):
// its prompt "Write 'hello world' to test.txt" (cuj_36.sh, and "Write 'hello' to tmp/test.txt" in
// cuj_33.sh) made the scripted agent write an empty file named "hello world" instead of test.txt.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readTar } from "../support/archives.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "official-cli-key";
const AGENT = "antigravity-preview-05-2026";

let emulator: FakeRuntimeEmulator;

before(async () => {
  emulator = await startFakeRuntimeEmulator({});
});
after(() => emulator?.close());

/** The CLI's headers for an interactions call (src/lib/api.ts: apiStreamRequest). */
const CLI_HEADERS = {
  "content-type": "application/json",
  "x-goog-api-key": KEY,
  "x-server-timeout": "30000",
  "api-revision": "2026-05-20",
};

/** `gemini-api run PROMPT --agent …`: a streamed create; the events as the CLI reads them, [DONE] last. */
async function run(body: Record<string, unknown>): Promise<{ events: Array<Record<string, any>>; done: boolean }> {
  const response = await fetch(`${emulator.url}/v1beta/interactions`, { method: "POST", headers: CLI_HEADERS, body: JSON.stringify(body) });
  const text = await response.text();
  assert.equal(response.status, 200, text.slice(0, 500));
  const data = text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim());
  return { events: data.filter((line) => line !== "[DONE]").map((line) => JSON.parse(line)), done: data.at(-1) === "[DONE]" };
}

function finalOf(events: Array<Record<string, any>>): Record<string, any> {
  const completed = events.find((event) => event.event_type === "interaction.completed");
  assert.ok(completed, JSON.stringify(events.map((event) => event.event_type)));
  return completed.interaction;
}

describe("the official CLI's end-to-end scripts", () => {
  it("cuj_36: writes test.txt, then downloads the environment's snapshot holding it", async () => {
    // buildInteractionRequest: an agent without sources gets environment "remote"; run streams.
    const { events, done } = await run({ input: "Write 'hello world' to test.txt", environment: "remote", agent: AGENT, stream: true });
    assert.ok(done, "the stream ends with data: [DONE]");
    const interaction = finalOf(events);
    assert.equal(interaction.status, "completed");
    const envId = events.find((event) => event.interaction?.environment_id)?.interaction.environment_id as string;
    assert.match(envId ?? "", /^env_/);
    assert.equal(emulator.runtime.channels.get(envId)?.files.get("/workspace/test.txt"), "hello world");
    assert.ok(!emulator.runtime.channels.get(envId)?.files.has("/workspace/hello world"), "no file named after the content");

    // src/commands/files/download.ts: GET {base}/files/environment-{id}:download?alt=media, then `tar xf`.
    const snapshot = await fetch(`${emulator.url}/v1beta/files/environment-${envId}:download?alt=media`, {
      headers: { "x-goog-api-key": KEY },
    });
    assert.equal(snapshot.status, 200);
    const entries = await readTar(Buffer.from(await snapshot.arrayBuffer()));
    // tests/e2e/cuj_36.sh looks for snapshot_ENV/test.txt: the archive is the workspace's.
    assert.equal(entries.get("test.txt")?.content, "hello world", [...entries.keys()].join(", "));
  });

  it("cuj_33: writes tmp/test.txt, then continues in the same environment", async () => {
    const first = await run({ input: "Write 'hello' to tmp/test.txt", environment: "remote", agent: AGENT, stream: true });
    const interaction = finalOf(first.events);
    const envId = first.events.find((event) => event.interaction?.environment_id)?.interaction.environment_id as string;
    assert.equal(emulator.runtime.channels.get(envId)?.files.get("/workspace/tmp/test.txt"), "hello");
    // --previous-interaction-id and --environment: the CLI sends the environment ID as a string.
    const second = await run({
      input: "Read tmp/test.txt and tell me what it says",
      environment: envId,
      agent: AGENT,
      previous_interaction_id: interaction.id,
      stream: true,
    });
    assert.ok(second.done);
    const text = second.events
      .filter((event) => event.event_type === "step.delta" && event.delta?.type === "text")
      .map((event) => event.delta.text)
      .join("");
    // The report names the call and its result ("Read /workspace/a.txt: event 1").
    assert.match(text, /Read \S*tmp\/test\.txt: hello/, text);
  });

  it("a quoted content sent to no readable file is reported, not written as a file named after it", async () => {
    const { events } = await run({ input: "Write 'hello' to the log", environment: "remote", agent: AGENT, stream: true });
    const interaction = finalOf(events);
    const envId = events.find((event) => event.interaction?.environment_id)?.interaction.environment_id as string;
    const files = [...(emulator.runtime.channels.get(envId)?.files.keys() ?? [])];
    assert.ok(!files.includes("/workspace/hello"), files.join(", "));
    const answer = events
      .filter((event) => event.event_type === "step.delta" && event.delta?.type === "text")
      .map((event) => event.delta.text)
      .join("");
    assert.match(answer, /could not tell which file to write/, JSON.stringify(interaction).slice(0, 300));
  });
});
