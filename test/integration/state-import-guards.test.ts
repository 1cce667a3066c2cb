// Hand-made state files against a whole emulator with fake sandboxes (issue 29): a record whose JSON
// names another key's trigger (or another identity than its row's) is refused and the other key's
// trigger is untouched; a small file that expands into millions of rows is refused naming the bound,
// without holding the event loop; passphrase sealing runs off the event loop.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { createGzip } from "node:zlib";
import { pack } from "tar-stream";
import { readTar, tarGz } from "../support/archives.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const AGENT = "antigravity-preview-05-2026";
const VICTIM = "victim-key";
const ATTACKER = "attacker-key";

let emulator: FakeRuntimeEmulator;

type Tables = Record<string, Array<Record<string, string | number | null>>>;

async function call(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : JSON.parse(text) };
}

async function exportState(key: string, passphrase?: string): Promise<Buffer> {
  const response = await fetch(`${emulator.url}/emulator/state${passphrase ? "?include_secrets=true" : ""}`, {
    headers: { "x-goog-api-key": key, ...(passphrase ? { "x-emulator-passphrase": passphrase } : {}) },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return Buffer.from(await response.arrayBuffer());
}

async function importState(key: string, file: Buffer): Promise<{ status: number; body: any }> {
  const response = await fetch(`${emulator.url}/emulator/state`, {
    method: "POST",
    headers: { "x-goog-api-key": key, "content-type": "application/gzip" },
    body: new Uint8Array(file),
  });
  return { status: response.status, body: await response.json() };
}

/** The file with its records.json changed by `edit` (the other entries as they were). */
async function edited(file: Buffer, edit: (tables: Tables) => void): Promise<Buffer> {
  const entries = await readTar(gunzipSync(file));
  const records = JSON.parse(entries.get("records.json")!.content) as { tables: Tables };
  edit(records.tables);
  return tarGz([...entries].map(([name, entry]) => ({ name, content: name === "records.json" ? JSON.stringify(records) : entry.content })));
}

before(async () => {
  emulator = await startFakeRuntimeEmulator();
});

after(async () => {
  await emulator?.close();
});

describe("state import: identities", () => {
  it("refuses a trigger record naming another key's trigger, and that trigger stays its owner's", async () => {
    const victim = await call("POST", "/v1beta/triggers", VICTIM, {
      schedule: "*/5 * * * *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "the victim's tick" },
    });
    assert.equal(victim.status, 200, JSON.stringify(victim.body));
    const victimId = String(victim.body.id);
    const own = await call("POST", "/v1beta/triggers", ATTACKER, {
      schedule: "* * * * *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "the attacker's tick" },
    });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    const file = await exportState(ATTACKER);
    const hostile = await edited(file, (tables) => {
      const row = tables.triggers![0]!;
      // A fresh row ID (so the ID check passes) whose record names the victim's trigger.
      row.id = `${String(row.id)}0`;
      row.record = JSON.stringify({ ...JSON.parse(String(row.record)), id: victimId });
    });
    const imported = await importState(ATTACKER, hostile);
    assert.equal(imported.status, 400, JSON.stringify(imported.body));
    assert.match(imported.body.error.message, /triggers row .* its record says id .*a record's identity must be the row's own/);
    assert.match(imported.body.error.message, /Nothing was imported/);

    const read = await call("GET", `/v1beta/triggers/${victimId}`, VICTIM);
    assert.equal(read.status, 200, `the victim's trigger is still the victim's: ${JSON.stringify(read.body)}`);
    assert.equal(read.body.interaction.input, "the victim's tick");
    assert.equal((await call("GET", `/v1beta/triggers/${victimId}`, ATTACKER)).status, 404);
  });

  it("refuses agents and credentials whose JSON names another identity than their row", async () => {
    const agent = await call("POST", "/v1beta/agents", ATTACKER, { id: "helper", base_agent: AGENT, system_instruction: "be brief" });
    assert.equal(agent.status, 200, JSON.stringify(agent.body));
    const credential = await call("POST", "/v1beta/credentials", ATTACKER, { id: "gh", type: "bearer_token", token: "t-1" });
    assert.equal(credential.status, 200, JSON.stringify(credential.body));
    const file = await exportState(ATTACKER);
    const cases: Array<[string, (tables: Tables) => void, RegExp]> = [
      [
        "agent",
        (tables) => {
          const row = tables.agents!.find((candidate) => candidate.id === "helper")!;
          row.id = "helper2";
        },
        /agents row "helper2" says id "helper2" but its definition says id "helper"/,
      ],
      [
        "credential",
        (tables) => {
          const row = tables.credentials!.find((candidate) => candidate.id === "gh")!;
          row.id = "gh2";
        },
        /credentials row "gh2" says id "gh2" but its config says id "gh"/,
      ],
    ];
    for (const [what, edit, message] of cases) {
      // Under a fresh key, without the triggers (their IDs are global), so that no ID of the file is taken.
      const hostile = await edited(file, (tables) => {
        tables.triggers = [];
        tables.trigger_executions = [];
        edit(tables);
      });
      const refused = await importState(`fresh-key-${what}`, hostile);
      assert.equal(refused.status, 400, `${what}: ${JSON.stringify(refused.body)}`);
      assert.match(refused.body.error.message, message);
    }
  });
});

describe("state import: the key's own bounds", () => {
  it("refuses webhooks that would take a key past EMULATOR_MAX_WEBHOOKS_PER_KEY, as creates would", async () => {
    const hook = (index: number) => ({ uri: `http://127.0.0.1:9/hook-${index}`, subscribed_events: ["interaction.completed"] });
    for (const key of ["webhooks-exporter", "webhooks-holder"]) {
      for (let index = 0; index < 12; index += 1) {
        const made = await call("POST", "/v1beta/webhooks", key, hook(index));
        assert.equal(made.status, 200, JSON.stringify(made.body));
      }
    }
    const file = await exportState("webhooks-exporter");
    // 12 held and 12 brought: past the default 20.
    const refused = await importState("webhooks-holder", file);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(
      refused.body.error.message,
      /holds 12 webhooks and this API key already has 12: .*EMULATOR_MAX_WEBHOOKS_PER_KEY.*Nothing was imported/,
    );
    assert.equal((await call("GET", "/v1beta/webhooks?page_size=100", "webhooks-holder")).body.webhooks.length, 12);
    // A key with room takes them.
    assert.equal((await importState("webhooks-fresh", file)).status, 200);
    assert.equal((await call("GET", "/v1beta/webhooks?page_size=100", "webhooks-fresh")).body.webhooks.length, 12);
  });
});

describe("state import: record bounds", () => {
  /** A file whose records.json holds `count` empty step rows: tens of KB compressed. */
  /**
   * A file whose records.json holds `count` empty step rows: tens of KB compressed. Packed and gzip'd
   * as a stream of 64 KiB pieces, so the test itself never holds the 30 MB text nor gzips it at once.
   */
  const emptyRows = async (count: number): Promise<Buffer> => {
    const tables = ["environments", "interactions", "agents", "agent_uses", "credentials", "triggers", "trigger_executions"]
      .concat(["hook_traces", "interaction_events", "webhooks", "webhook_secrets"])
      .map((table) => `"${table}":[]`);
    const head = `{"tables":{${tables.join(",")},"steps":[`;
    const tail = "{}]}}";
    const manifest = JSON.stringify({
      format: "interactions-emulator-state",
      version: 1,
      created: "2026-01-01T00:00:00Z",
      secrets: "left_out",
      environments: [],
    });
    const archive = pack();
    const gzipped = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of archive.pipe(createGzip())) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    })();
    archive.entry({ name: "manifest.json" }, manifest);
    const entry = archive.entry({ name: "records.json", size: head.length + 3 * (count - 1) + tail.length });
    const piece = "{},".repeat(64 * 1024);
    const write = (text: string) =>
      entry.write(text) ? Promise.resolve() : new Promise<void>((resolve) => entry.once("drain", () => resolve()));
    await write(head);
    for (let left = count - 1; left > 0; left -= 64 * 1024) await write(left >= 64 * 1024 ? piece : "{},".repeat(left));
    await write(tail);
    entry.end("");
    archive.finalize();
    return gzipped;
  };

  it("refuses ten million empty rows at once, naming the bound, with /health answering", async () => {
    const file = await emptyRows(10_000_000);
    assert.ok(file.length < 100_000, `the file is ${file.length} bytes`);
    const { result: refused } = await withoutStalls(emulator.url, HOSTILE_INPUT_BOUNDS, () => importState("rows-key", file), {
      inProcess: true,
      what: "a state file of ten million rows",
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(
      refused.body.error.message,
      /passes a bound of this emulator: it holds more than 200000 records in all \(EMULATOR_STATE_MAX_RECORDS\)/,
    );
  });

  it("reads 200,000 rows (the bound) in slices, then refuses them for what they lack", async () => {
    const { result: refused } = await withoutStalls(
      emulator.url,
      HOSTILE_INPUT_BOUNDS,
      async () => importState("rows-key", await emptyRows(200_000)),
      {
        inProcess: true,
        what: "a state file of 200,000 rows",
      },
    );
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(refused.body.error.message, /steps name interaction_id undefined, which the file does not hold/);
  });
});

describe("state export: passphrase sealing", () => {
  it("64 sealed exports at once keep /health answering: two derive at once, 32 wait, the rest are refused", async () => {
    const key = "sealing-key";
    assert.equal((await call("POST", "/v1beta/credentials", key, { id: "gh", type: "bearer_token", token: "t-1" })).status, 200);
    const { result: statuses } = await withoutStalls(
      emulator.url,
      HOSTILE_INPUT_BOUNDS,
      async () =>
        Promise.all(
          Array.from({ length: 64 }, async () => {
            const response = await fetch(`${emulator.url}/emulator/state?include_secrets=true`, {
              headers: { "x-goog-api-key": key, "x-emulator-passphrase": "a long passphrase" },
            });
            await response.arrayBuffer();
            return response.status;
          }),
        ),
      { inProcess: true, what: "64 sealed exports" },
    );
    // Before the fix each derived its key on the event loop, one after another: /health waited for all
    // of them (1.8 s for 32). Two derive at once and 32 wait (EMULATOR_STATE_KEY_DERIVATIONS = 2).
    const served = statuses.filter((status) => status === 200).length;
    assert.ok(served >= 34, `only ${served} of 64 exports were served`);
    assert.deepEqual(
      statuses.filter((status) => status !== 200),
      Array.from({ length: 64 - served }, () => 429),
    );
  });
});
