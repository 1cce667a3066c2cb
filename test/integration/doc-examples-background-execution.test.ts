// The code examples of the documentation's background execution page (ai.google.dev/gemini-api/docs/
// background-execution, the revision of 2026-06-26), run as a new user would: the JavaScript example
// through the official SDK, the REST example as the same HTTP request (with its Api-Revision header), the
// Python example as the body the Python SDK sends. Our own code throughout. The model examples run on the
// emulator's scripted planner: what they check is the request and the statuses, not the model's text.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: interactions.create, interactions.get, interactions.cancel, interactions.delete

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docClient, drain, sseEvents, type DocClient, type Json } from "../support/doc-example-client.js";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";

const KEY = "doc-examples-background-key";
const REVISION = { "Api-Revision": "2026-05-20" };

let doc: DocClient;
fakeRuntimeEmulatorForTests({
  ready: (emulator) => {
    doc = docClient(emulator.url, KEY);
  },
});

/** A background interaction the emulator holds queued (a fault rule), so that it is still running when cancelled. */
async function running(): Promise<Json> {
  const rule = await doc.rest("POST", "/emulator/faults", {
    target: { kind: "interaction" },
    effect: { kind: "queued", ms: 600_000 },
    times: 1,
  });
  assert.equal(rule.status, 200, rule.text);
  return (await doc.client.interactions.create({
    model: "gemini-3.5-flash",
    input: "Write a guide on space exploration.",
    background: true,
  } as never)) as Json;
}

describe("background-execution", () => {
  let created: Json;

  it("creates a background interaction and answers its ID at once", async () => {
    // doc-example: background-execution#create-a-background-interaction: model gemini-3.5-flash with background true (python, javascript, rest)
    const body = { model: "gemini-3.5-flash", input: "Write a guide on space exploration.", background: true };
    created = (await doc.client.interactions.create(body as never)) as Json;
    assert.ok(created.id);
    const byRest = await doc.rest("POST", "/v1beta/interactions", body, REVISION);
    assert.equal(byRest.status, 200, byRest.text);
    assert.ok(["in_progress", "queued", "completed"].includes(byRest.json.status), byRest.json.status);
  });

  it("is polled with interactions.get until it leaves in_progress", async () => {
    // doc-example: background-execution#polling-pattern-non-blocking: interactions.get in a loop, then output_text (python, javascript, rest)
    let interaction = (await doc.client.interactions.get(created.id)) as Json;
    while (interaction.status === "in_progress") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      interaction = (await doc.client.interactions.get(interaction.id)) as Json;
    }
    assert.equal(interaction.status, "completed");
    assert.equal(typeof interaction.output_text, "string");
    const byRest = await doc.rest("GET", `/v1beta/interactions/${created.id}`, undefined, REVISION);
    assert.equal(byRest.json.status, "completed");
  });

  it("streams an interaction with get, and resumes after last_event_id", async () => {
    // doc-example: background-execution#streaming-pattern: get with stream true and last_event_id, reconnecting (python, javascript, rest)
    await doc.settle(created.id);
    const events = await drain(await doc.client.interactions.get(created.id, { stream: true } as never));
    assert.equal(events.at(-1)?.event_type, "interaction.completed");
    const ids = events.map((event) => event.event_id);
    assert.ok(
      ids.every((id) => typeof id === "string" && id !== ""),
      JSON.stringify(ids),
    );
    const resumed = await drain(await doc.client.interactions.get(created.id, { stream: true, last_event_id: ids[1] } as never));
    assert.deepEqual(
      resumed.map((event) => event.event_id),
      ids.slice(2),
    );
    const byRest = await doc.rest(
      "GET",
      `/v1beta/interactions/${created.id}?stream=true&last_event_id=${encodeURIComponent(ids[1]!)}`,
      undefined,
      REVISION,
    );
    assert.equal(byRest.status, 200);
    const wire = sseEvents(byRest.text).filter((event) => event.data !== "[DONE]");
    assert.deepEqual(
      wire.map((event) => JSON.parse(event.data).event_id),
      ids.slice(2),
    );
  });

  it("chains an agent's background interactions, naming the agent as `model`", async () => {
    // doc-example: background-execution#multi-turn-conversations: model antigravity-preview-05-2026 with environment and previous_interaction_id (python, javascript, rest)
    // The page names the agent in `model`; the emulator runs it as the agent (docs/fidelity.md).
    const first = (await doc.client.interactions.create({
      model: "antigravity-preview-05-2026",
      input: "Create a folder named project/ and write hello.py inside.",
      environment: "remote",
      background: true,
    } as never)) as Json;
    const firstDone = await doc.settle(first.id);
    assert.equal(firstDone.status, "completed", JSON.stringify(firstDone));
    assert.equal(firstDone.agent, "antigravity-preview-05-2026");
    assert.equal(firstDone.model, undefined);
    assert.ok(firstDone.environment_id, "the first turn ran in a fresh environment");
    const second = (await doc.client.interactions.create({
      model: "antigravity-preview-05-2026",
      input: "Now list the files in project/.",
      environment: firstDone.environment_id,
      previous_interaction_id: first.id,
      background: true,
    } as never)) as Json;
    const secondDone = await doc.settle(second.id);
    assert.equal(secondDone.status, "completed", JSON.stringify(secondDone));
    assert.equal(secondDone.previous_interaction_id, first.id);
    assert.equal(secondDone.environment_id, firstDone.environment_id);
    const byRest = await doc.rest(
      "POST",
      "/v1beta/interactions",
      {
        model: "antigravity-preview-05-2026",
        input: "Now list the files in project/.",
        environment: firstDone.environment_id,
        previous_interaction_id: second.id,
        background: true,
      },
      REVISION,
    );
    assert.equal(byRest.status, 200, byRest.text);
    assert.equal((await doc.settle(byRest.json.id)).status, "completed");
  });

  it("answers a model that is neither a model nor an agent with 404 model_not_found", async () => {
    const refused = await doc.rest("POST", "/v1beta/interactions", { model: "antigravity2-nothing", input: "hi" });
    assert.equal(refused.status, 404, refused.text);
    assert.equal(refused.json.error.code, "model_not_found");
  });

  it("runs a model the OpenAPI document lists that is not named gemini-*", async () => {
    for (const model of ["gemma-4-31b-it", "nano-banana-pro-preview"]) {
      const created = await doc.rest("POST", "/v1beta/interactions", { model, input: "Hello, how are you?" });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.json.model, model);
    }
  });

  it("cancels a running interaction and deletes its record", async () => {
    // doc-example: background-execution#cancellation-and-deletion: interactions.cancel then interactions.delete (python, javascript, rest)
    const one = await running();
    assert.equal(((await doc.client.interactions.cancel(one.id)) as Json).status, "cancelled");
    await doc.client.interactions.delete(one.id);
    assert.equal((await doc.rest("GET", `/v1beta/interactions/${one.id}`)).status, 404);
    const two = await running();
    const cancelled = await doc.rest("POST", `/v1beta/interactions/${two.id}/cancel`, undefined, REVISION);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.json.status, "cancelled");
    assert.equal((await doc.rest("DELETE", `/v1beta/interactions/${two.id}`, undefined, REVISION)).status, 200);
    assert.equal((await doc.rest("GET", `/v1beta/interactions/${two.id}`)).status, 404);
  });
});
