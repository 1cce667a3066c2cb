// Issue 29's cross-key clock case with real sandboxes: on an emulator several keys share, one key's
// move of the test clock expires its own idle environment (its container goes) and never another
// key's (its container and files stay, and its next interaction reads them). The clock per key is also
// tested without Docker (test/integration/clock-per-key.test.ts); this is the same promise on the engine.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { AGENT, type Interaction, resultsOf, runIn, script, writeFile } from "../support/fault-harness.js";

const MOVER = "clock-mover-key";
const NEIGHBOUR = "clock-neighbour-key";
const TTL_SECONDS = 3600;

let emulator: EmulatorProcess;

before(async () => {
  emulator = await startEmulatorProcess({ EMULATOR_POOL_SIZE: "0", EMULATOR_ENVIRONMENT_TTL_SECONDS: String(TTL_SECONDS) });
});

after(async () => {
  await emulator?.destroy();
});

const client = (key: string) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: emulator.url } });

async function environmentWithFile(key: string, content: string): Promise<string> {
  const made = (await client(key).interactions.create({
    agent: AGENT,
    input: script([writeFile("/workspace/keep.txt", content)]),
    environment: "remote",
  } as Parameters<GoogleGenAI["interactions"]["create"]>[0])) as Interaction;
  assert.equal(made.status, "completed", JSON.stringify(made.errors));
  return made.environment_id!;
}

async function status(key: string, id: string): Promise<string | undefined> {
  return ((await client(key).environments.get(id)) as { status?: string }).status;
}

describe("the test clock on a shared emulator, with real sandboxes (issue 29)", () => {
  it("a key's move past the idle TTL expires its own environment and leaves another key's running", { timeout: 180_000 }, async () => {
    const own = await environmentWithFile(MOVER, "the mover's\n");
    const neighbours = await environmentWithFile(NEIGHBOUR, "the neighbour's\n");
    assert.equal(await emulator.sandboxCount(), 2);

    const moved = await fetch(`${emulator.url}/emulator/clock`, {
      method: "POST",
      headers: { "x-goog-api-key": MOVER, "content-type": "application/json" },
      body: JSON.stringify({ advance_seconds: TTL_SECONDS + 100 }),
    });
    assert.equal(moved.status, 200, await moved.clone().text());

    assert.equal(await status(MOVER, own), "expired", "the mover's idle environment expired on its own clock");
    assert.equal(await status(NEIGHBOUR, neighbours), "active", "the neighbour's environment is untouched");
    assert.equal(await emulator.sandboxCount(), 1, "only the mover's container is gone");
    const neighbourClock = (await (await fetch(`${emulator.url}/emulator/clock`, { headers: { "x-goog-api-key": NEIGHBOUR } })).json()) as {
      offset_seconds: number;
    };
    assert.equal(neighbourClock.offset_seconds, 0, "the neighbour's clock did not move");
    const read = await runIn(client(NEIGHBOUR), neighbours, "cat /workspace/keep.txt");
    assert.deepEqual(resultsOf(read), ["the neighbour's\n"]);
  });
});
