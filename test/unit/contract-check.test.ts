// The service's OpenAPI document as a contract (docs/testing.md#the-openapi-document-as-a-contract): the
// vendored copy is the public document it says it is; each listed defect applies and is needed (the
// document as published refuses what the patched one accepts); a good and a bad body of each kind (JSON
// answer, error body, stream event) are told apart; and the check in front of a real HTTP server turns
// a violating answer into a 500 contract_violation, a violating event into a last error event without
// [DONE], leaves the emulator's own routes alone, and counts what it found.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import express from "express";
import { projectRoot } from "../../server/common/paths.js";
import { NotFoundError } from "../../server/common/errors.js";
import { stripBasePath } from "../../server/http/base-path.js";
import { contractCheck } from "../../server/http/contract-check.js";
import {
  applyDefects,
  ContractDocument,
  contractDocument,
  DEFECTS_FILE,
  type Defect,
  OPENAPI_FILE,
  openEnums,
} from "../../server/http/contract-document.js";
import { errorHandler } from "../../server/http/error-handler.js";
import { sendJson } from "../../server/http/json-stream-writer.js";
import { sendEventStream } from "../../server/http/sse-writer.js";
import type { StreamEvent } from "../../server/interactions/events.js";

/** The sha256 schemas/README.md records for the vendored copy. */
const README = path.join(projectRoot, "schemas", "README.md");

const published = () => JSON.parse(fs.readFileSync(OPENAPI_FILE, "utf8")) as Record<string, unknown>;
const defects = () => (JSON.parse(fs.readFileSync(DEFECTS_FILE, "utf8")) as { defects: Defect[] }).defects;

describe("the vendored OpenAPI document", () => {
  it("is the copy its provenance names, byte for byte", () => {
    const digest = createHash("sha256").update(fs.readFileSync(OPENAPI_FILE)).digest("hex");
    assert.match(fs.readFileSync(README, "utf8"), new RegExp(`sha256 \`${digest}\``), "schemas/README.md records another sha256");
    // Where the session's shared reference copy sits next to the checkout, it is the same file.
    for (const shared of [path.join(projectRoot, "..", "shared"), path.join(projectRoot, "..", "..", "shared")]) {
      const reference = path.join(shared, "reference", "interactions.openapi.json");
      if (fs.existsSync(reference)) assert.ok(fs.readFileSync(reference).equals(fs.readFileSync(OPENAPI_FILE)), `${reference} differs`);
    }
  });

  it("lists each defect with why, and each applies", () => {
    for (const defect of defects()) assert.ok(defect.why.length > 40, `${defect.id} says why`);
    assert.doesNotThrow(() => applyDefects(published(), defects()));
  });

  it("cannot be compiled as published: four $refs name schemas it lacks", () => {
    const bare = new ContractDocument(openEnums(published()), []);
    const get = bare.operationFor("GET", "/v1beta/interactions/x");
    assert.throws(
      () => bare.schemaFor(get, 200, "application/json"),
      /RetrievalCallStep|CodeMenderAgentConfig|SafetySetting|RetrievalResultStep|can't resolve/,
    );
  });

  it("needs each patch: the published document refuses what the service's own pages send", () => {
    const only = (id: string) => defects().filter((defect) => defect.id === "missing-schemas" || defect.id === id);
    const cases: Array<{ id: string; method: string; path: string; body: Record<string, unknown> }> = [
      { id: "network-disabled-twice", method: "POST", path: "/v1beta/environments", body: { id: "env_1", network: "disabled" } },
      {
        id: "env-branches-overlap",
        method: "GET",
        path: "/v1beta/interactions/x",
        body: { id: "x", status: "completed", environment: { type: "remote", env: { TOKEN: { credential: "cred_1" } } } },
      },
      {
        id: "language-bash",
        method: "GET",
        path: "/v1beta/interactions/x",
        body: {
          id: "x",
          status: "completed",
          steps: [{ type: "code_execution_call", id: "c1", arguments: { code: "ls", language: "bash" } }],
        },
      },
      {
        id: "response-format-catch-all",
        method: "GET",
        path: "/v1beta/interactions/x",
        body: { id: "x", status: "completed", response_format: { type: "text", mime_type: "application/json" } },
      },
      {
        id: "trigger-template-status",
        method: "GET",
        path: "/v1beta/triggers/t1",
        body: { id: "t1", schedule: "0 * * * *", time_zone: "UTC", interaction: { agent: "antigravity-preview-05-2026", input: "hi" } },
      },
    ];
    for (const { id, method, path: at, body } of cases) {
      const before = new ContractDocument(openEnums(applyDefects(published(), only("none"))), []);
      const patched = new ContractDocument(openEnums(applyDefects(published(), only(id))), []);
      const schemaOf = (document: ContractDocument) => document.schemaFor(document.operationFor(method, at), 200, "application/json")!;
      assert.notEqual(before.check(schemaOf(before), body), null, `${id}: the published document refuses it`);
      assert.equal(patched.check(schemaOf(patched), body), null, `${id}: the patched one accepts it`);
    }
  });
});

describe("bodies checked against the document", () => {
  const document = contractDocument();
  const get = document.operationFor("GET", "/v1beta/interactions/x");

  it("matches requests to the document's path templates, whatever the version", () => {
    assert.equal(get?.name, "GET /{api_version}/interactions/{id}");
    assert.equal(document.operationFor("POST", "/v1/webhooks/w1:ping")?.name, "POST /{api_version}/webhooks/{id}:ping");
    assert.equal(document.operationFor("POST", "/v1beta/interactions/x:cancel")?.name, "POST /{api_version}/interactions/{id}/cancel");
    assert.equal(
      document.operationFor("GET", "/v1beta/environments/e/files/src/a.py")?.name,
      "GET /{api_version}/environments/{environment}/files/{path}",
    );
    assert.equal(document.operationFor("GET", "/emulator/interactions"), null);
    assert.equal(document.operationFor("GET", "/vfoo/interactions/x"), null);
  });

  it("a JSON answer: an Interaction with a status the document has, not one it lacks", () => {
    const schema = document.schemaFor(get, 200, "application/json")!;
    const good = { id: "x", status: "completed", steps: [{ type: "model_output", content: [{ type: "text", text: "hi" }] }] };
    assert.equal(document.check(schema, good), null);
    const bad = document.check(schema, { ...good, status: "done" });
    assert.equal(bad?.instancePath, "/status");
    assert.equal(bad?.value, "done");
  });

  it("an error body: error.code is a string, for an operation that declares no errors too", () => {
    for (const operation of [get, document.operationFor("GET", "/v1beta/agents/a"), null]) {
      const schema = document.schemaFor(operation, 404, "application/json")!;
      assert.equal(document.check(schema, { error: { code: "not_found", message: "no", status: "NOT_FOUND" } }), null);
      assert.equal(document.check(schema, { error: { code: 404, message: "no", status: "NOT_FOUND" } })?.instancePath, "/error/code");
    }
  });

  it("a stream event: each event of the document's union, and not an unknown one", () => {
    const schema = document.schemaFor(get, 200, "text/event-stream")!;
    assert.equal(document.check(schema, { event_type: "step.start", event_id: "1", index: 0, step: { type: "model_output" } }), null);
    assert.equal(document.check(schema, { event_type: "interaction.status_update", interaction_id: "x", status: "in_progress" }), null);
    assert.notEqual(document.check(schema, { event_type: "step.begin", index: 0 }), null);
    assert.equal(document.streamSentinel(get!), "[DONE]");
  });

  it("no body where the document declares none (DELETE /interactions/{id}), and open enums are open", () => {
    assert.equal(document.schemaFor(document.operationFor("DELETE", "/v1beta/interactions/x"), 200, "application/json"), null);
    const create = document.schemaFor(document.operationFor("POST", "/v1beta/interactions"), 200, "application/json")!;
    assert.equal(
      document.check(create, { id: "x", status: "completed", agent: "my-custom-agent" }),
      null,
      "AgentOption allows unknown values",
    );
  });
});

/** What a stream's body held before it ended or was cut (a cut connection rejects a plain text()). */
async function readUntilCut(response: Response): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return text;
  }
}

describe("the check in front of an HTTP server", () => {
  let url = "";
  let server: ReturnType<ReturnType<typeof express>["listen"]>;
  const logged: string[] = [];
  const check = contractCheck({ log: (line) => logged.push(line) });
  const interaction = (status: string) => ({ id: "x", object: "interaction", status, created: "2026-01-01T00:00:00Z" });
  const events = (last: Record<string, unknown>): StreamEvent[] =>
    [
      { event_type: "interaction.created", event_id: "1", interaction: interaction("in_progress") },
      { ...last, event_id: "2" },
    ] as unknown as StreamEvent[];

  before(async () => {
    const app = express();
    app.use(stripBasePath);
    app.use(check.middleware);
    app.get("/v1beta/interactions/:id", async (req, res) => {
      if (req.query["stream"] === "true") {
        const last =
          req.params.id === "bad"
            ? { event_type: "interaction.finished" }
            : { event_type: "interaction.completed", interaction: interaction("completed") };
        return sendEventStream(res, () =>
          (async function* () {
            yield* events(last);
          })(),
        );
      }
      if (req.params.id === "missing") throw new NotFoundError("Interaction missing not found.");
      await sendJson(res, interaction(req.params.id === "bad" ? "done" : "completed"));
    });
    app.get("/v1beta/interactions/:id/raw-error", (_req, res) => {
      res.status(404).json({ error: { code: 404, message: "no", status: "NOT_FOUND" } });
    });
    app.get("/emulator/anything", (_req, res) => {
      res.json({ error: { code: 404 } });
    });
    app.use(errorHandler);
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("lets a good answer, a good error and a good stream through as they are", async () => {
    const ok = await fetch(`${url}/v1beta/interactions/x`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), interaction("completed"));
    const missing = await fetch(`${url}/v1beta/interactions/missing`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "not_found");
    const stream = await (await fetch(`${url}/v1beta/interactions/x?stream=true`)).text();
    assert.match(stream, /event: interaction.completed/);
    assert.ok(stream.endsWith("data: [DONE]\n\n"));
    // A base path before the version is the same request (base-path.ts).
    assert.equal((await fetch(`${url}/gw/v1beta/interactions/x`)).status, 200);
  });

  it("turns a violating answer into a 500 contract_violation naming the place, the value and the schema", async () => {
    const before = check.counts().violations;
    const answer = await fetch(`${url}/v1beta/interactions/bad`);
    assert.equal(answer.status, 500);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "contract_violation");
    assert.match(body.error.message, /GET \/v1beta\/interactions\/bad .*at \/status .*found "done" \(schema #\/.*\/status\/enum\)/);
    // A path the document lacks: its error body is still held to the document's error shape.
    const error = await fetch(`${url}/v1beta/interactions/x/raw-error`);
    assert.equal(error.status, 500);
    assert.match(((await error.json()) as { error: { message: string } }).error.message, /at \/error\/code must be string, found 404/);
    assert.equal(check.counts().violations, before + 2);
  });

  it("ends a stream at a violating event with an error event and no [DONE]", async () => {
    const before = check.counts().violations;
    const stream = await readUntilCut(await fetch(`${url}/v1beta/interactions/bad?stream=true`));
    assert.match(stream, /event: error\ndata: \{"event_type":"error","error":\{"code":"contract_violation"/);
    assert.match(stream, /event: interaction.created/, "the good event before it went out");
    assert.doesNotMatch(stream, /event: interaction.finished/);
    assert.doesNotMatch(stream, /\[DONE\]/);
    assert.equal(check.counts().violations, before + 1);
    assert.ok(logged.some((line) => line.startsWith("contract violation: a stream event of GET /v1beta/interactions/bad")));
  });

  it("leaves the emulator's own routes alone", async () => {
    const before = check.counts().violations;
    const answer = await fetch(`${url}/emulator/anything`);
    assert.equal(answer.status, 200);
    assert.equal(check.counts().violations, before);
  });
});
