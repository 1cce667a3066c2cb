// Issue 30, "the OpenAPI document as a contract" for requests: every JSON request body of the service's
// OpenAPI document (schemas/interactions.openapi.json, its defects patched), derived from the document
// itself (test/support/openapi-request-cases.ts): the minimal body, each optional field added, each
// oneOf branch, each enum value; each required field left out, each field of a wrong type, an unknown
// field. Each is sent over HTTP to an emulator in this process (the real routes, checks and services,
// with in-memory sandboxes) and must be accepted when the document allows it and refused with a 400
// in the service's error shape, naming the field, when it does not. Every place where the emulator
// differs on purpose is one entry of schemas/interactions.requests.exceptions.json; a difference not
// listed there fails, and so does an entry no case shows any more. Referenced resources are made to
// exist first (an environment, a credential, a finished interaction); URLs point at a loopback sink.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { applyDefects, DEFECTS_FILE, type Defect, OPENAPI_FILE, requestDocument } from "../../server/http/contract-document.js";
import { readRequestExceptions, type RequestException } from "../../tools/parity/request-exceptions.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { type Json, type RequestCase, requestCases } from "../support/openapi-request-cases.js";

const KEY = "openapi-requests-key";

interface Outcome {
  status: number;
  text: string;
}

interface Difference {
  field: string;
  direction: "stricter" | "looser";
  case: RequestCase;
  outcome: Outcome;
}

let emulator: FakeRuntimeEmulator;
let sink: http.Server;
let sinkUrl = "";
let scratch = "";
const made: Record<string, string> = {};

async function send(method: string, route: string, body: unknown, key = KEY): Promise<Outcome> {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "content-type": "application/json", "x-goog-api-key": key },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function created(method: string, route: string, body: unknown): Promise<string> {
  const outcome = await send(method, route, body);
  assert.equal(outcome.status, 200, `${method} ${route}: ${outcome.text}`);
  return (JSON.parse(outcome.text) as { id: string }).id;
}

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-requests-"));
  fs.mkdirSync(path.join(scratch, "audit-bucket"));
  fs.writeFileSync(path.join(scratch, "audit-bucket", "notes.txt"), "notes");
  // Webhook deliveries, MCP servers and token URLs all land here: nothing leaves this machine.
  sink = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/audit`;
  emulator = await startFakeRuntimeEmulator({
    // This audits what the emulator accepts; its answers are the contract check's to judge, and an open
    // looser difference echoed back would be turned into a 500 there (and checking ~1,900 answers takes minutes).
    EMULATOR_CONTRACT_CHECK: "false",
    EMULATOR_GCS_DIR: scratch,
    EMULATOR_MCP_HOSTS: new URL(sinkUrl).host,
    EMULATOR_MAX_ENVIRONMENTS_PER_KEY: "5000",
    EMULATOR_MAX_ENVIRONMENTS: "5000",
    EMULATOR_MAX_WEBHOOKS_PER_KEY: "5000",
  });
  made.environment = await created("POST", "/v1beta/environments", {});
  made.credential = await created("POST", "/v1beta/credentials", {
    id: "audit-credential",
    type: "environment_variable",
    value: "secret",
    injection_location: "header",
  });
  // A credential of each type: an update may not change a credential's type, so each UpdateCredential
  // branch updates the credential of its own type; an allowlist entry injects a header, so it names the bearer one.
  made.bearer_token = await created("POST", "/v1beta/credentials", { id: "audit-bearer", type: "bearer_token", token: "secret" });
  made.oauth2 = await created("POST", "/v1beta/credentials", {
    id: "audit-oauth2",
    type: "oauth2",
    client_id: "audit",
    client_secret: "secret",
    refresh_token: "secret",
    token_url: sinkUrl,
  });
  made.interaction = await created("POST", "/v1beta/interactions", { agent: "antigravity-preview-05-2026", input: "hello" });
  made.trigger = await created("POST", "/v1beta/triggers", {
    interaction: { agent: "antigravity-preview-05-2026", input: "hello" },
    schedule: "0 0 1 1 *",
    time_zone: "UTC",
  });
  made.webhook = await created("POST", "/v1beta/webhooks", { uri: sinkUrl, subscribed_events: ["interaction.completed"] });
});

after(async () => {
  await emulator?.close();
  await new Promise((resolve) => sink?.close(resolve));
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** The values that must be real: the IDs the emulator looks up, the URLs it would call. */
function valueFor(field: string, name: string, serial: number): Json | undefined {
  if (name === "agent" && /Interaction\.agent$/.test(field)) return "antigravity-preview-05-2026";
  if (name === "previous_interaction_id") return made.interaction ?? null;
  if (name === "environment" || name === "environment_id" || name === "from_environment") return made.environment ?? null;
  if (name === "credential" && field.includes(".allowlist.")) return made.bearer_token ?? null;
  if (name === "credential") return made.credential ?? null;
  // An agent's base environment by ID: one that exists (the document's example ID does not).
  if (name === "base_environment") return made.environment ?? null;
  if (name === "id" && /^(CreateCredential|CreateAgent)(\([a-z_]+\))?\.id$/.test(field)) return `audit-${serial}`;
  if (["uri", "uris", "url", "token_url"].includes(name)) return sinkUrl;
  if (name === "source") return "gs://audit-bucket/notes.txt";
  if (name === "schedule") return "0 0 1 1 *";
  if (name === "time_zone") return "UTC";
  return undefined;
}

/** The route of a case, its path parameters filled with the resources made above. */
function routeOf(testCase: RequestCase): string {
  const ids: Record<string, string | undefined> = {
    CreateCredential: undefined,
    UpdateCredential: made.credential,
    UpdateTrigger: made.trigger,
    UpdateWebhook: made.webhook,
    PingWebhook: made.webhook,
    RotateSigningSecret: made.webhook,
  };
  const type = (testCase.body as { type?: unknown } | null)?.type;
  if (testCase.operation === "UpdateCredential" && typeof type === "string" && made[type]) ids.UpdateCredential = made[type];
  return testCase.route.replace("{api_version}", "v1beta").replace(/\{[^}]+\}/, ids[testCase.operation] ?? "none");
}

async function inTurns<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

describe("request bodies derived from the OpenAPI document", () => {
  it("are accepted when the document allows them and refused, naming the field, when it does not", async () => {
    const raw = JSON.parse(fs.readFileSync(OPENAPI_FILE, "utf8")) as Record<string, unknown>;
    const { defects } = JSON.parse(fs.readFileSync(DEFECTS_FILE, "utf8")) as { defects: Defect[] };
    const exceptions = readRequestExceptions();
    const document = applyDefects(raw, defects);
    const contract = requestDocument();
    const all = requestCases(document, {
      valueFor,
      baseFor: (field) => {
        const base = exceptions.find((entry) => entry.field === field && entry.base !== undefined)?.base;
        return base === undefined ? undefined : (JSON.parse(JSON.stringify(base).replaceAll('"$SINK"', JSON.stringify(sinkUrl))) as Json);
      },
    });
    // Each case must be what the generator says it is: the patched document decides (an unknown field
    // apart: the document's objects do not close themselves, the service refuses them all the same).
    const cases = all.filter((testCase) => {
      const schema = contract.requestSchemaFor(`${testCase.method} ${testCase.route}`);
      assert.ok(schema, `${testCase.operation} has a request schema`);
      return testCase.kind === "unknown" || (contract.check(schema, testCase.body) === null) === testCase.valid;
    });
    const operations = new Set(cases.map((testCase) => testCase.operation));
    assert.ok(operations.size >= 11, `cases for every request body: ${[...operations].join(", ")}`);

    let sent = 0;
    const outcomes = await inTurns(cases, 6, (testCase) => send(testCase.method, routeOf(testCase), unique(testCase.body, sent++)));
    const differences: Difference[] = [];
    const misworded: string[] = [];
    cases.forEach((testCase, index) => {
      const outcome = outcomes[index] as Outcome;
      const accepted = outcome.status >= 200 && outcome.status < 300;
      if (testCase.valid && !accepted) differences.push({ field: testCase.field, direction: "stricter", case: testCase, outcome });
      if (!testCase.valid && accepted) differences.push({ field: testCase.field, direction: "looser", case: testCase, outcome });
      if (!testCase.valid && !accepted) {
        const error = errorOf(outcome.text);
        // Where a triaged rule of the emulator's refuses the place whatever the case changes, its message says that instead.
        const refusedAnyway = exceptions.some(
          (entry) => entry.direction === "stricter" && !entry.open && entry.base === undefined && testCase.field.startsWith(entry.field),
        );
        if (outcome.status !== 400 || !error || (!refusedAnyway && !error.message.includes(testCase.name))) {
          misworded.push(`${caseText(testCase)}: ${outcome.status} ${outcome.text.slice(0, 300)}`);
        }
      }
    });
    const unlisted = differences.filter((difference) => !excused(difference, exceptions));
    const shown = new Set(differences.flatMap((difference) => exceptions.filter((entry) => matches(entry, difference))));
    const stale = exceptions.filter((entry) => !shown.has(entry));
    const report = [
      ...unlisted.map(
        (difference) =>
          `${difference.direction}: ${caseText(difference.case)} → ${difference.outcome.status} ${difference.outcome.text.slice(0, 200)}`,
      ),
      ...misworded.map((line) => `refused, but not a 400 naming the field: ${line}`),
      ...stale.map((entry) => `exception shown by no case (remove it): ${entry.field} (${entry.direction})`),
    ];
    // REQUEST_AUDIT_OPEN=<file>: the unlisted differences, one entry per field and direction, as `open` entries to triage.
    if (process.env.REQUEST_AUDIT_OPEN)
      fs.writeFileSync(process.env.REQUEST_AUDIT_OPEN, `${JSON.stringify(openEntries(unlisted), null, 2)}\n`);
    console.log(`${cases.length} cases (${all.length - cases.length} dropped), ${differences.length} differences`);
    assert.deepEqual(report, [], `\n${report.join("\n")}`);
  });
});

function errorOf(text: string): { code: string; message: string; status: string } | undefined {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown; status?: unknown } }).error;
    if (typeof error?.code === "string" && typeof error.message === "string" && typeof error.status === "string") {
      return error as { code: string; message: string; status: string };
    }
  } catch {}
  return undefined;
}

function caseText(testCase: RequestCase): string {
  return `${testCase.operation} ${testCase.field} [${testCase.kind} at ${testCase.at}] ${JSON.stringify(testCase.body).slice(0, 200)}`;
}

function matches(entry: RequestException, difference: Difference): boolean {
  return entry.direction === difference.direction && (entry.field === difference.field || difference.field.startsWith(`${entry.field}.`));
}

function excused(difference: Difference, exceptions: readonly RequestException[]): boolean {
  return exceptions.some((entry) => matches(entry, difference));
}

/** The group a difference falls in: the field down to its first alternative (`CreateAgentInteraction.input(text)`), else the field. */
function groupOf(field: string): string {
  const tagged = /^[^(]*\([^)]*\)/.exec(field)?.[0];
  return tagged ?? field;
}

function openEntries(differences: readonly Difference[]): RequestException[] {
  const groups = new Map<string, Difference[]>();
  for (const difference of differences) {
    const key = `${groupOf(difference.field)} ${difference.direction}`;
    groups.set(key, [...(groups.get(key) ?? []), difference]);
  }
  return [...groups.values()].map((members) => {
    const first = members[0] as Difference;
    const onlyValues = members.every((member) => member.case.kind === "value" || member.case.kind === "branch");
    const example = members
      .slice(0, 3)
      .map((member) => `${member.case.field.slice(groupOf(member.field).length) || "itself"} (${member.case.kind})`)
      .join(", ");
    return {
      field: groupOf(first.field),
      direction: first.direction,
      ...(first.direction === "stricter" ? { refuses: onlyValues ? ("some values" as const) : ("field" as const) } : {}),
      open: true,
      why: `found by the request audit, not triaged yet: ${members.length} case(s), e.g. ${example}; first answer: ${first.outcome.status} ${errorOf(first.outcome.text)?.message.slice(0, 160) ?? ""}`.trim(),
      wins: "the document, until triaged (an open difference: fix the emulator, or make it an exception with its reason)",
    };
  });
}

/** A created resource's own id made unique per request (each case creates one; the document's minimal ids are alike). */
function unique(body: Json, serial: number): Json {
  if (typeof body !== "object" || body === null || Array.isArray(body) || typeof body.id !== "string") return body;
  return { ...body, id: `${body.id}-${serial}` };
}
