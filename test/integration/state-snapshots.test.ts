// State snapshots (docs/state-snapshots.md) through the real HTTP API of two emulators in this process
// with in-memory sandboxes, each on its own data folder: one key's interactions, environment (with its
// sandbox's files), agent, webhook, trigger and credential exported from the first and imported into
// the second under the same IDs and read back with the official SDK; secrets left out (the credential
// waits for its secret, the webhook gets a new one shown once) unless sealed with a passphrase; a wrong
// passphrase, a second import of the same IDs and a file that is not a state file refused with nothing
// changed; the CLI's export and import.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { runCli } from "../../server/cli/run.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "state-key";
const PASSPHRASE = "correct horse battery";

let source: FakeRuntimeEmulator;
let target: FakeRuntimeEmulator;
let folder: string;
let interactionId: string;
let environmentId: string;

const sdk = (emulator: FakeRuntimeEmulator, apiKey = KEY) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: emulator.url } });

async function exportState(emulator: FakeRuntimeEmulator, passphrase?: string): Promise<Buffer> {
  const response = await fetch(`${emulator.url}/emulator/state${passphrase ? "?include_secrets=true" : ""}`, {
    headers: { "x-goog-api-key": KEY, ...(passphrase ? { "x-emulator-passphrase": passphrase } : {}) },
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("content-type"), "application/gzip");
  return Buffer.from(await response.arrayBuffer());
}

async function importState(emulator: FakeRuntimeEmulator, file: Buffer, passphrase?: string, apiKey = KEY) {
  const response = await fetch(`${emulator.url}/emulator/state`, {
    method: "POST",
    headers: {
      "x-goog-api-key": apiKey,
      "content-type": "application/gzip",
      ...(passphrase ? { "x-emulator-passphrase": passphrase } : {}),
    },
    body: new Uint8Array(file),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function countEnvironments(emulator: FakeRuntimeEmulator): Promise<number> {
  const response = await fetch(`${emulator.url}/v1beta/environments`, { headers: { "x-goog-api-key": KEY } });
  return (((await response.json()) as { environments?: unknown[] }).environments ?? []).length;
}

before(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "emu-state-test-"));
  source = await startFakeRuntimeEmulator();
  const ai = sdk(source);
  const interaction = (await ai.interactions.create({
    agent: AGENT,
    input: "hello",
    environment: { type: "remote", sources: [{ type: "inline", target: "workspace/notes/plan.md", content: "# the plan" }] },
  } as never)) as unknown as { id: string; status: string; environment_id: string };
  assert.equal(interaction.status, "completed");
  interactionId = interaction.id;
  environmentId = interaction.environment_id;
  await ai.credentials.create({ id: "gh", type: "bearer_token", token: "tok-very-secret-1" } as never);
  await ai.webhooks.create({ uri: "http://127.0.0.1:9/in", subscribed_events: ["interaction.completed"] } as never);
  await ai.triggers.create({ schedule: "*/5 * * * *", time_zone: "UTC", interaction: { agent: AGENT, input: "tick" } } as never);
  // A file the sandbox wrote after creation, in the sandbox user's home: saved too.
  source.runtime.channels.get(environmentId)!.files.set("/home/sandbox/.local/lib/mod.py", "X = 1\n");
});

after(async () => {
  await source?.close();
  await target?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe("state snapshots with fake sandboxes", () => {
  it("exports a versioned file without secrets and imports it into a fresh emulator with the same IDs", async () => {
    const file = await exportState(source);
    const tarText = gunzipSync(file).toString("latin1");
    assert.ok(tarText.startsWith("manifest.json"), "the manifest is the first entry");
    assert.match(tarText, /"format": "interactions-emulator-state"/);
    assert.match(tarText, /"version": 1/);
    assert.doesNotMatch(tarText, /tok-very-secret-1/, "the credential's token is left out");
    assert.doesNotMatch(tarText, /whsec_/, "the webhook's signing secret is left out");

    target = await startFakeRuntimeEmulator();
    const imported = await importState(target, file);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.deepEqual(imported.body.environments, [environmentId]);
    assert.deepEqual(imported.body.credentials, [{ id: "gh", status: "needs_secret" }]);
    assert.match(imported.body.webhooks[0].new_signing_secret, /^whsec_/);

    const ai = sdk(target);
    const read = (await ai.interactions.get(interactionId)) as unknown as { status: string; environment_id: string; outputs?: unknown };
    assert.equal(read.status, "completed");
    assert.equal(read.environment_id, environmentId, "the imported interaction still names its environment");
    const files = target.runtime.channels.get(environmentId)!.files;
    assert.equal(files.get("/workspace/notes/plan.md"), "# the plan");
    assert.equal(files.get("/home/sandbox/.local/lib/mod.py"), "X = 1\n");
    // The document's statuses are active and revoked: one without its secret reads as revoked, and says why.
    const credential = (await ai.credentials.get("gh")) as unknown as { status: string; needs_secret?: boolean };
    assert.equal(credential.status, "revoked");
    assert.equal(credential.needs_secret, true);
    assert.equal((await ai.webhooks.list()).webhooks?.length, 1);
    const triggers = (await ai.triggers.list()) as unknown as { triggers: Array<{ status: string }> };
    assert.equal(triggers.triggers.length, 1);
    assert.equal(triggers.triggers[0]!.status, "active");
    // The imported environment runs like any other: a continuation uses it.
    const next = (await ai.interactions.create({
      agent: AGENT,
      input: "again",
      environment: environmentId,
      previous_interaction_id: interactionId,
    } as never)) as unknown as { status: string };
    assert.equal(next.status, "completed");
    // Setting the secret again makes the credential usable.
    await ai.credentials.update("gh", { type: "bearer_token", token: "tok-new" } as never);
    assert.equal(((await ai.credentials.get("gh")) as unknown as { status: string }).status, "active");
  });

  it("refuses a second import of the same IDs, for this key or another, changing nothing", async () => {
    const file = await exportState(source);
    const before = await countEnvironments(target);
    const sandboxes = target.runtime.channels.size;
    for (const apiKey of [KEY, "another-key"]) {
      const again = await importState(target, file, undefined, apiKey);
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.match(again.body.error.message, new RegExp(`already has .*${environmentId}`));
      assert.match(again.body.error.message, /Nothing was imported/);
    }
    assert.equal(await countEnvironments(target), before);
    assert.equal(target.runtime.channels.size, sandboxes, "no sandbox was made");
  });

  it("carries the secrets only sealed with a passphrase, and refuses a wrong one", async () => {
    const file = await exportState(source, PASSPHRASE);
    assert.doesNotMatch(gunzipSync(file).toString("latin1"), /tok-very-secret-1/, "sealed, not in the clear");
    const third = await startFakeRuntimeEmulator();
    try {
      const wrong = await importState(third, file, "not the passphrase");
      assert.equal(wrong.status, 400);
      assert.match(wrong.body.error.message, /passphrase does not open/);
      const none = await importState(third, file);
      assert.equal(none.status, 400);
      assert.match(none.body.error.message, /sealed with a passphrase/);
      assert.equal(third.runtime.channels.size, 0, "nothing was made");
      const right = await importState(third, file, PASSPHRASE);
      assert.equal(right.status, 200, JSON.stringify(right.body));
      assert.deepEqual(right.body.credentials, [{ id: "gh", status: "active" }]);
      assert.equal(right.body.webhooks[0].new_signing_secret, undefined, "the webhook keeps its own secret");
    } finally {
      await third.close();
    }
  });

  it("refuses a file that is not a state file, or cut short, with a 400 saying so", async () => {
    const file = await exportState(source);
    const fresh = await startFakeRuntimeEmulator();
    try {
      for (const bad of [Buffer.from("not a state file"), file.subarray(0, Math.floor(file.length / 2))]) {
        const refused = await importState(fresh, bad);
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.match(refused.body.error.message, /not a state file this emulator can read/);
      }
      assert.equal(await countEnvironments(fresh), 0);
    } finally {
      await fresh.close();
    }
  });

  it("exports and imports from the command line", async () => {
    const out = path.join(folder, "cli.tar.gz");
    const lines: string[] = [];
    const io = { out: (text: string) => lines.push(text), err: (text: string) => lines.push(text) };
    assert.equal(await runCli(["state", "export", "--emulator", source.url, "--key", KEY, "--out", out], io), 0, lines.join(""));
    assert.ok(fs.statSync(out).size > 0);
    assert.equal(await runCli(["state", "export", "--emulator", source.url, "--key", KEY, "--out", out, "--include-secrets"], io), 64);
    const fresh = await startFakeRuntimeEmulator();
    try {
      lines.length = 0;
      assert.equal(await runCli(["state", "import", "--emulator", fresh.url, "--key", KEY, "--in", out], io), 0, lines.join(""));
      assert.match(lines.join(""), /imported 1 environment\(s\), 1 interaction\(s\)/);
      assert.match(lines.join(""), /credential gh needs its secret set again/);
      lines.length = 0;
      assert.equal(await runCli(["state", "import", "--emulator", fresh.url, "--key", KEY, "--in", out], io), 1);
      assert.match(lines.join(""), /409: This emulator already has/);
    } finally {
      await fresh.close();
    }
  });
});
