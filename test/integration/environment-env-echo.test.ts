// `environment.env` values are where users put tokens. The sandbox gets them as they were sent; every
// answer that shows an environment back (an Interaction's `environment` in create, get and stream
// snapshots; the Environment resource in create, get and list) shows the variables' names at most,
// never their values (docs/environments-and-files.md#environment-variables). Through HTTP, against the
// emulator with in-memory sandboxes that record what they were asked to run.

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const AGENT = "antigravity-preview-05-2026";
const SECRETS = { API_TOKEN: "tok-secret-4f1a9", PLAIN: "val-secret-77c2e", LATER: "later-secret-0b3d" };
const script = (code: string) =>
  `\`\`\`tool_calls\n${JSON.stringify([{ name: "code_execution", args: { code, language: "bash" } }])}\n\`\`\``;

let emulator: FakeRuntimeEmulator;
before(async () => {
  emulator = await startFakeRuntimeEmulator();
});
after(async () => {
  await emulator.close();
});

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "x-goog-api-key": "env-echo-key", "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // an SSE stream
  }
  return { status: response.status, text, json };
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of Object.values(SECRETS)) assert.ok(!text.includes(secret), `${where} shows ${secret}: ${text.slice(0, 2000)}`);
}

describe("environment variables in echoes", () => {
  let interactionId: string;
  let environmentId: string;

  it("are redacted in the created Interaction's environment, names and shapes kept, while the sandbox gets the values", async () => {
    const created = await call("POST", "/v1beta/interactions", {
      agent: AGENT,
      input: script("echo $API_TOKEN"),
      environment: { type: "remote", env: { API_TOKEN: SECRETS.API_TOKEN, PLAIN: { value: SECRETS.PLAIN } } },
    });
    assert.equal(created.status, 200, created.text);
    assertNoSecret(created.text, "POST /interactions");
    assert.deepEqual(created.json.environment.env, { API_TOKEN: "[redacted]", PLAIN: { value: "[redacted]" } });
    interactionId = created.json.id;
    environmentId = created.json.environment_id;

    const commands = emulator.runtime.channels.get(environmentId)?.commands ?? [];
    const tool = commands.find((command) => command.argv.at(-1) === "echo $API_TOKEN");
    assert.ok(tool, "the tool call reached the sandbox");
    assert.equal(tool.env?.API_TOKEN, SECRETS.API_TOKEN);
    assert.equal(tool.env?.PLAIN, SECRETS.PLAIN);
  });

  it("are redacted when the Interaction is read again", async () => {
    const read = await call("GET", `/v1beta/interactions/${interactionId}`);
    assert.equal(read.status, 200);
    assertNoSecret(read.text, "GET /interactions/{id}");
    assert.deepEqual(read.json.environment.env, { API_TOKEN: "[redacted]", PLAIN: { value: "[redacted]" } });
  });

  it("are redacted in a streamed interaction's snapshots, for an update of an existing environment too", async () => {
    const streamed = await call("POST", "/v1beta/interactions", {
      agent: AGENT,
      input: script("echo $LATER"),
      stream: true,
      environment: { type: "remote", environment_id: environmentId, env: { LATER: SECRETS.LATER } },
    });
    assert.equal(streamed.status, 200, streamed.text);
    assert.match(streamed.text, /interaction\.created/);
    assert.match(streamed.text, /"LATER":"\[redacted\]"/);
    assertNoSecret(streamed.text, "the stream");
    const tool = emulator.runtime.channels.get(environmentId)?.commands.find((command) => command.argv.at(-1) === "echo $LATER");
    assert.equal(tool?.env?.LATER, SECRETS.LATER);
    assert.equal(tool?.env?.API_TOKEN, SECRETS.API_TOKEN, "earlier variables are kept");
  });

  it("are never shown by the Environment resource: create, get and list", async () => {
    const created = await call("POST", "/v1beta/environments", { env: { API_TOKEN: SECRETS.API_TOKEN } });
    assert.equal(created.status, 200, created.text);
    assertNoSecret(created.text, "POST /environments");
    for (const route of [`/v1beta/environments/${environmentId}`, `/v1beta/environments/${created.json.id}`, "/v1beta/environments"]) {
      const read = await call("GET", route);
      assert.equal(read.status, 200, read.text);
      assertNoSecret(read.text, `GET ${route}`);
      assert.ok(!read.text.includes('"env"'), `${route}: ${read.text}`);
    }
  });

  it("are redacted on reading an interaction stored with its values by an earlier version", async () => {
    const db = new Database(path.join(emulator.dataDir, "emulator.sqlite"));
    try {
      const echo = { agent: AGENT, environment: { type: "remote", env: { API_TOKEN: SECRETS.API_TOKEN } } };
      db.prepare("UPDATE interactions SET echo = ? WHERE id = ?").run(JSON.stringify(echo), interactionId);
    } finally {
      db.close();
    }
    const read = await call("GET", `/v1beta/interactions/${interactionId}`);
    assertNoSecret(read.text, "GET of an old interaction");
    assert.deepEqual(read.json.environment.env, { API_TOKEN: "[redacted]" });
  });
});
