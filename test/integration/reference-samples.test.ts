// The API reference pages' code samples (ai.google.dev/api/…, e.g. api/interactions-v1), which are the
// `x-codeSamples` of the service's OpenAPI document: every sh, Python and JavaScript sample of the
// vendored copy (schemas/interactions.openapi.json), read from the document when the test runs and run
// as it holds it (test/support/reference-sample-runner.ts: bash + curl, the google-genai SDK of the
// scratch venv, node with this repository's @google/genai) against one emulator with in-memory
// sandboxes, whose repository sources at the samples' github.com URLs are local stand-ins
// (EMULATOR_REPO_MAP): nothing leaves the machine. Each sample runs under an API key of its own, so what
// it made is all that key holds. What each one asked for is then checked through the API.
//
// Each SPECS entry says what a reader replaces in the sample (the IDs of resources made first, in place
// of the page's `env_abc123`, `ag_abc123`, `$INTERACTION_ID`, `created`, …) and what is checked. Its
// `// reference-sample:` line names the samples it runs; docs/coverage.md lists every sample of the
// document with its result (tools/parity/reference-samples.ts, which also notes those that need a model
// or an outside host, and why the Java samples are not run).
// covers: agents.list, agents.create, agents.get, agents.delete, environments.create, environments.files.list
// covers: environments.files.download, environments.files.upload, interactions.cancel

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import { readOpenApi } from "../../tools/parity/openapi-surface.js";
import { type ReferenceSample, referenceSamples } from "../../tools/parity/reference-samples.js";
import { docClient, type Json, type RestAnswer, startWithStandInRepositories } from "../support/doc-example-client.js";
import type { FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { scratchVenv } from "../support/python-venv.js";
import {
  type PythonSamples,
  runJavaScriptSample,
  runShellSample,
  type SampleOutcome,
  type SampleSetup,
  startPythonSamples,
} from "../support/reference-sample-runner.js";

const AGENT = "antigravity-preview-05-2026";
const MODEL = "gemini-3.6-flash";
/** A 1×1 PNG, in place of the multimodal sample's `BASE64_ENCODED_IMAGE`. */
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TEMPLATES = { "report.py": "print('a report')\n" };
const SPOON_KNIFE = { "README.md": "# Spoon-Knife\n", "src/index.py": "print('fork me')\n" };

let emulator: FakeRuntimeEmulator;
let closeEmulator: () => Promise<void>;
let work: string;
let python: PythonSamples | undefined;
let pythonMissing = false;

before(async () => {
  ({ emulator, close: closeEmulator } = await startWithStandInRepositories("reference-samples", {
    "https://github.com/my-org/analysis-templates": TEMPLATES,
    "https://github.com/octocat/Spoon-Knife": SPOON_KNIFE,
  }));
  work = fs.mkdtempSync(path.join(os.tmpdir(), "reference-samples-"));
});
after(async () => {
  await python?.close();
  await closeEmulator?.();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** What a spec's setup and check get: the sample's own key and the API under it. */
interface Context {
  sample: ReferenceSample;
  key: string;
  /** The folder the sample ran in. */
  folder: string;
  rest(method: string, route: string, body?: unknown): Promise<RestAnswer>;
  /** The REST answer's JSON, checked 200. */
  ok(method: string, route: string, body?: unknown): Promise<Json>;
}

interface Spec {
  setup?(context: Context): Promise<SampleSetup>;
  check(outcome: SampleOutcome, context: Context, setup: SampleSetup): Promise<void>;
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

/** The sh sample's printed JSON (curl prints the answer's body). */
const printedJson = (outcome: SampleOutcome): Json => JSON.parse(outcome.stdout) as Json;

/** The text the SDKs' output_text gives: the text of the last model_output's content. */
function answerOf(interaction: Json): string {
  const last = [...((interaction.steps as Json[]) ?? [])].reverse().find((step) => step.type === "model_output");
  return ((last?.content as Json[]) ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text as string)
    .join("");
}

/** An environment file's bytes (`?alt=media`), as text. */
async function fileText(context: Context, environment: string, file: string): Promise<string> {
  const answer = await context.rest("GET", `/v1beta/environments/${environment}/files/${file}?alt=media`);
  assert.equal(answer.status, 200, `${file} in ${environment}: ${answer.text}`);
  return answer.text;
}

/** The key's interactions, oldest first (the emulator's list, GET /emulator/interactions, is newest first), each as GET shows it. */
async function interactionsOf(context: Context): Promise<Json[]> {
  const summaries = ((await context.ok("GET", "/emulator/interactions")).interactions as Json[]).reverse();
  return Promise.all(summaries.map((summary) => context.ok("GET", `/v1beta/interactions/${summary.id}`)));
}

/** The one interaction the sample made, completed. */
async function onlyInteraction(context: Context, status = "completed"): Promise<Json> {
  const all = await interactionsOf(context);
  assert.equal(all.length, 1, JSON.stringify(all.map((interaction) => interaction.id)));
  const interaction = all[0]!;
  assert.equal(interaction.status, status, JSON.stringify(interaction.errors ?? interaction));
  return interaction;
}

/** The agent's ID the sample printed: the sh sample's answer, the SDK samples' last line (after a `Created agent: ` text). */
function printedAgentId(outcome: SampleOutcome, context: Context): string {
  if (context.sample.lang === "sh") return String(printedJson(outcome).id);
  return lines(outcome.stdout).at(-1)!.replace(/^.*: /, "");
}

const environmentWithFiles = (context: Context, files: Record<string, string>) =>
  context.ok("POST", "/v1beta/environments", {
    sources: Object.entries(files).map(([target, content]) => ({ type: "inline", target, content })),
  });

/**
 * A resource made first in place of the page's placeholder: its ID replaces the sh sample's literal
 * (`env_abc123`, `ag_abc123`), and is the SDK samples' variable that the page leaves out (`created`, an
 * object with the ID as the SDKs return; `agentId`, the ID itself).
 */
function standIn(context: Context, placeholder: string, variable: string, value: string | { id: string }): SampleSetup {
  const id = typeof value === "string" ? value : value.id;
  const replace: Record<string, string> = context.sample.lang === "sh" ? { [placeholder]: id } : {};
  return { replace, vars: { [variable]: value } };
}

const idOf = (setup: SampleSetup, variable: string) => {
  const value = setup.vars?.[variable];
  return typeof value === "string" ? value : String(value?.id);
};

const passed = (outcome: SampleOutcome) => assert.equal(outcome.status, 0, `${outcome.stdout}\n${outcome.stderr}`);

/** The printed answer of a model sample is the interaction's answer; the interaction ran on the sample's model. */
async function modelAnswered(outcome: SampleOutcome, context: Context): Promise<Json> {
  passed(outcome);
  const interaction = await onlyInteraction(context);
  assert.equal(interaction.model, MODEL);
  if (context.sample.lang === "sh") assert.equal(printedJson(outcome).id, interaction.id);
  else assert.equal(outcome.stdout.trim(), answerOf(interaction).trim());
  return interaction;
}

const SPECS: Record<string, Spec> = {
  // reference-sample: ListAgents list (sh, python, javascript)
  "ListAgents list": {
    setup: async (context) => {
      for (const id of ["listed-one", "listed-two"]) await context.ok("POST", "/v1beta/agents", { id, base_agent: AGENT });
      return {};
    },
    check: async (outcome, context) => {
      passed(outcome);
      const ids = ((await context.ok("GET", "/v1beta/agents")).agents as Json[]).map((agent) => agent.id);
      assert.deepEqual([...ids].sort(), ["listed-one", "listed-two"]);
      const printed =
        context.sample.lang === "sh" ? (printedJson(outcome).agents as Json[]).map((agent) => agent.id) : lines(outcome.stdout);
      assert.deepEqual(printed, ids);
    },
  },
  // reference-sample: CreateAgent create (sh, python, javascript)
  "CreateAgent create": {
    check: async (outcome, context) => {
      passed(outcome);
      const id = printedAgentId(outcome, context);
      assert.match(id, context.sample.lang === "sh" ? /^research-assistant-abc123$/ : /^research-assistant-[0-9a-f]{8}$/);
      const agent = await context.ok("GET", `/v1beta/agents/${id}`);
      assert.equal(agent.base_agent, AGENT);
      assert.equal(agent.description, "A helpful research assistant.");
      assert.equal(agent.system_instruction, "You are a helpful research assistant.");
      assert.equal(agent.base_environment, "remote");
      assert.deepEqual(agent.tools, [{ type: "google_search" }]);
    },
  },
  // reference-sample: CreateAgent with_sources (sh, python, javascript)
  "CreateAgent with_sources": {
    check: async (outcome, context) => {
      passed(outcome);
      const id = printedAgentId(outcome, context);
      const agent = await context.ok("GET", `/v1beta/agents/${id}`);
      assert.deepEqual(
        (agent.base_environment.sources as Json[]).map((source) => [source.type, source.target]),
        [
          ["inline", ".agents/AGENTS.md"],
          ["repository", "/workspace/templates"],
        ],
      );
      // The agent's interactions start with its sources: the instructions file and the repository.
      const interaction = await context.ok("POST", "/v1beta/interactions", { agent: id, input: "list `/workspace/templates`" });
      assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
      assert.match(await fileText(context, interaction.environment_id, ".agents/AGENTS.md"), /^Always use matplotlib for charts\./);
      assert.equal(await fileText(context, interaction.environment_id, "workspace/templates/report.py"), TEMPLATES["report.py"]);
    },
  },
  // reference-sample: CreateAgent fork_from_env (sh, python, javascript)
  "CreateAgent fork_from_env": {
    check: async (outcome, context) => {
      passed(outcome);
      const id = printedAgentId(outcome, context);
      if (context.sample.lang === "sh") assert.equal(id, "my-data-analyst");
      const [setUp] = await interactionsOf(context);
      const agent = await context.ok("GET", `/v1beta/agents/${id}`);
      assert.match(agent.base_environment, /^env_/);
      assert.equal(agent.base_environment, setUp?.environment_id);
      assert.notEqual(await fileText(context, agent.base_environment, "workspace/template.py"), "");
    },
  },
  // reference-sample: DeleteAgent delete (sh, python, javascript)
  "DeleteAgent delete": {
    // The page's ag_abc123 (sh) and agent_id/agentId (SDKs): an agent made first.
    setup: async (context) => {
      await context.ok("POST", "/v1beta/agents", { id: "doomed-agent", base_agent: AGENT });
      return standIn(context, "ag_abc123", "agentId", "doomed-agent");
    },
    check: async (outcome, context) => {
      passed(outcome);
      assert.equal((await context.rest("GET", "/v1beta/agents/doomed-agent")).status, 404);
      assert.equal((await context.ok("GET", "/v1beta/agents")).agents?.length ?? 0, 0);
    },
  },
  // reference-sample: GetAgent get (sh, python, javascript)
  "GetAgent get": {
    // The page's ag_abc123 (sh) and agent_id/agentId (SDKs): an agent made first.
    setup: async (context) => {
      await context.ok("POST", "/v1beta/agents", { id: "fetched-agent", base_agent: AGENT, description: "fetched" });
      return standIn(context, "ag_abc123", "agentId", "fetched-agent");
    },
    check: async (outcome, context) => {
      passed(outcome);
      if (context.sample.lang === "sh") assert.equal(printedJson(outcome).description, "fetched");
      assert.equal(printedAgentId(outcome, context), "fetched-agent");
    },
  },
  // reference-sample: ListEnvironments list (sh, python, javascript)
  "ListEnvironments list": {
    setup: async (context) => {
      await environmentWithFiles(context, { "a.txt": "a" });
      await environmentWithFiles(context, { "b.txt": "b" });
      return {};
    },
    check: async (outcome, context) => {
      passed(outcome);
      const ids = ((await context.ok("GET", "/v1beta/environments")).environments as Json[]).map((environment) => environment.id);
      assert.equal(ids.length, 2);
      const printed =
        context.sample.lang === "sh"
          ? (printedJson(outcome).environments as Json[]).map((environment) => environment.id)
          : lines(outcome.stdout);
      assert.deepEqual(printed, ids);
    },
  },
  // reference-sample: CreateEnvironment create (sh, python, javascript)
  "CreateEnvironment create": {
    check: async (outcome, context) => {
      passed(outcome);
      const id = context.sample.lang === "sh" ? String(printedJson(outcome).id) : outcome.stdout.trim();
      assert.match(await fileText(context, id, "main.py"), /^print\((["'])Hello, World!\1\)$/);
    },
  },
  // reference-sample: CreateEnvironment copy (sh, python, javascript)
  "CreateEnvironment copy": {
    // The page's environments/env_abc123 (sh) and source_env/sourceEnv (SDKs): an environment made first.
    setup: async (context) => {
      const source = await environmentWithFiles(context, { "main.py": "print('copied')\n" });
      return standIn(context, "env_abc123", "sourceEnv", { id: source.id });
    },
    check: async (outcome, context, setup) => {
      passed(outcome);
      const id = context.sample.lang === "sh" ? String(printedJson(outcome).id) : outcome.stdout.trim();
      const source = idOf(setup, "sourceEnv");
      assert.match(id, /^env_/);
      assert.notEqual(id, source);
      assert.equal(await fileText(context, id, "main.py"), "print('copied')\n");
    },
  },
  // reference-sample: GetEnvironmentFiles list_files (sh, python, javascript)
  // reference-sample: GetEnvironmentFiles get_file (sh, python, javascript)
  // reference-sample: GetEnvironmentFiles download_file (sh, python)
  ...Object.fromEntries(
    ["list_files", "get_file", "download_file"].map((label): [string, Spec] => [
      `GetEnvironmentFiles ${label}`,
      {
        // The page's env_abc123 (sh) and created (SDKs): an environment with main.py and src/main.py, made first.
        setup: async (context) => {
          const created = await environmentWithFiles(context, { "main.py": "print('top')\n", "src/main.py": "print('in src')\n" });
          return standIn(context, "env_abc123", "created", { id: created.id });
        },
        check: async (outcome, context) => {
          const lang = context.sample.lang;
          if (label === "get_file" && lang === "python") {
            // The sample's defect (tools/parity/reference-samples.ts): google-genai 2.25 has no files.get.
            assert.equal(outcome.status, 1);
            assert.match(outcome.stderr, /AttributeError: .* has no attribute 'get'/);
            return;
          }
          passed(outcome);
          const [name, file, text] =
            label === "get_file" ? ["main.py", "main.py", "print('top')\n"] : ["main.py", "src/main.py", "print('in src')\n"];
          if (label === "download_file") {
            if (lang === "sh") assert.equal(fs.readFileSync(path.join(context.folder, "main.py"), "utf8"), text);
            else assert.equal(outcome.stdout, `${text}\n`);
          } else if (lang === "sh") {
            assert.deepEqual(
              (printedJson(outcome).files as Json[]).map((entry) => [entry.path, entry.type, entry.size_bytes]),
              // Listed paths are written from the sandbox's root (docs/environments-and-files.md#paths-and-reach).
              [[`workspace/${file}`, "file", String(Buffer.byteLength(text))]],
            );
          } else {
            const size = Buffer.byteLength(text);
            assert.equal(outcome.stdout.trim(), label === "list_files" ? `${name} file ${size}` : `${name} ${size}`);
          }
        },
      },
    ]),
  ),
  // reference-sample: DeleteEnvironment delete (sh, python, javascript)
  "DeleteEnvironment delete": {
    // The page's env_abc123 (sh) and created (SDKs): an environment made first.
    setup: async (context) => {
      const created = await environmentWithFiles(context, { "main.py": "x" });
      return standIn(context, "env_abc123", "created", { id: created.id });
    },
    check: async (outcome, context, setup) => {
      passed(outcome);
      const id = idOf(setup, "created");
      assert.equal((await context.rest("GET", `/v1beta/environments/${id}`)).status, 404);
    },
  },
  // reference-sample: GetEnvironment get (sh, python, javascript)
  "GetEnvironment get": {
    // The page's env_abc123 (sh) and created (SDKs): an environment made first.
    setup: async (context) => {
      const created = await environmentWithFiles(context, { "main.py": "x" });
      return standIn(context, "env_abc123", "created", { id: created.id });
    },
    check: async (outcome, context, setup) => {
      passed(outcome);
      const id = idOf(setup, "created");
      if (context.sample.lang === "sh") {
        assert.equal(printedJson(outcome).id, id);
        assert.equal(printedJson(outcome).status, "active");
      } else assert.equal(outcome.stdout.trim(), id);
    },
  },
  // reference-sample: StartEnvironmentFileUpload start_upload (sh)
  "StartEnvironmentFileUpload start_upload": {
    // The page's env_abc123: an environment with a main.py (the sample passes overwrite=true); the main.py
    // the sample measures with `wc -c` is the reader's file, in the folder it runs in.
    setup: async (context) => {
      const created = await environmentWithFiles(context, { "main.py": "print('old')\n" });
      return { replace: { env_abc123: created.id }, files: { "main.py": "print('uploaded')\n" }, vars: { created: { id: created.id } } };
    },
    check: async (outcome, context, setup) => {
      passed(outcome);
      assert.match(outcome.stdout, /^HTTP\/1\.1 200/);
      assert.match(outcome.stdout, /^X-Goog-Upload-Status: active\r?$/im);
      const url = /^X-Goog-Upload-URL: (\S+)\r?$/im.exec(outcome.stdout)?.[1];
      assert.ok(url, outcome.stdout);
      // The session the sample started takes the file: the one chunk, finalized, replaces main.py.
      const bytes = fs.readFileSync(path.join(context.folder, "main.py"));
      const finished = await fetch(url, {
        method: "POST",
        headers: { "x-goog-api-key": context.key, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" },
        body: bytes,
      });
      assert.equal(finished.status, 200, await finished.text());
      const id = idOf(setup, "created");
      assert.equal(await fileText(context, id, "main.py"), "print('uploaded')\n");
    },
  },
  // reference-sample: CreateInteraction simple (sh, python, javascript)
  "CreateInteraction simple": {
    check: async (outcome, context) => {
      const interaction = await modelAnswered(outcome, context);
      assert.match(answerOf(interaction), /Hello, how are you\?/);
    },
  },
  // reference-sample: CreateInteraction multi_turn (sh, python, javascript)
  "CreateInteraction multi_turn": {
    check: async (outcome, context) => {
      const interaction = await modelAnswered(outcome, context);
      // The three turns of the input, then the answer.
      assert.deepEqual(
        (interaction.steps as Json[]).map((step) => step.type),
        ["user_input", "model_output", "user_input", "model_output"],
      );
      assert.match(answerOf(interaction), /What is the capital of France\?/);
    },
  },
  // reference-sample: CreateInteraction multimodal_image (sh, python, javascript)
  "CreateInteraction multimodal_image": {
    // The page's BASE64_ENCODED_IMAGE: a real image, a 1×1 PNG.
    setup: async () => ({ replace: { BASE64_ENCODED_IMAGE: PNG_BASE64 } }),
    check: async (outcome, context) => {
      const interaction = await modelAnswered(outcome, context);
      const modalities = (interaction.usage.input_tokens_by_modality as Json[]).map((entry) => entry.modality);
      assert.ok(modalities.includes("image"), JSON.stringify(interaction.usage));
    },
  },
  // reference-sample: CreateInteraction function_calling (sh, python, javascript)
  "CreateInteraction function_calling": {
    check: async (outcome, context) => {
      passed(outcome);
      const interaction = await onlyInteraction(context);
      assert.equal(interaction.model, MODEL);
      assert.deepEqual(
        (interaction.tools as Json[]).map((tool) => [tool.type, tool.name, tool.parameters.required]),
        [["function", "get_weather", ["location"]]],
      );
      // The last step printed (Python's repr, JavaScript's inspect, the sh answer's steps).
      assert.match(outcome.stdout, /model_output/);
    },
  },
  // reference-sample: CreateInteraction deep_research (sh, python, javascript)
  "CreateInteraction deep_research": {
    check: async (outcome, context) => {
      // curl exits 0 on a 400; the SDKs raise it.
      if (context.sample.lang === "sh") {
        passed(outcome);
        assert.equal(printedJson(outcome).error.code, "invalid_request");
      } else assert.equal(outcome.status, 1);
      assert.match(`${outcome.stdout}${outcome.stderr}`, /deep-research-pro-preview-12-2025\\?" is not emulated/);
      assert.deepEqual(await interactionsOf(context), []);
    },
  },
  // reference-sample: CreateInteraction antigravity (sh, python, javascript)
  "CreateInteraction antigravity": {
    check: async (outcome, context) => {
      passed(outcome);
      const interaction = await onlyInteraction(context);
      assert.equal(interaction.agent, AGENT);
      assert.equal(interaction.environment, "remote");
      assert.equal((await context.ok("GET", `/v1beta/environments/${interaction.environment_id}`)).status, "active");
    },
  },
  // reference-sample: CreateInteraction reuse_env (sh, python, javascript)
  "CreateInteraction reuse_env": {
    check: async (outcome, context) => {
      passed(outcome);
      const [first, second] = await interactionsOf(context);
      assert.ok(first && second, outcome.stdout);
      assert.equal(second.previous_interaction_id, first.id);
      assert.match(String(first.environment_id), /^env_/);
      assert.equal(second.environment_id, first.environment_id);
      if (context.sample.lang !== "sh") assert.equal(lines(outcome.stdout)[0], `Environment ID: ${first.environment_id}`);
      assert.equal((await context.rest("GET", `/v1beta/environments/${first.environment_id}/files/workspace/hello.py`)).status, 200);
    },
  },
  // reference-sample: CreateInteraction with_sources (sh, python, javascript)
  "CreateInteraction with_sources": {
    check: async (outcome, context) => {
      passed(outcome);
      const interaction = await onlyInteraction(context);
      assert.equal(await fileText(context, interaction.environment_id, "workspace/repo/README.md"), SPOON_KNIFE["README.md"]);
      assert.equal(await fileText(context, interaction.environment_id, "workspace/notes.txt"), "Focus on Python files only.");
    },
  },
  // reference-sample: CreateInteraction custom_agent (sh, python, javascript)
  "CreateInteraction custom_agent": {
    check: async (outcome, context) => {
      passed(outcome);
      const agents = (await context.ok("GET", "/v1beta/agents")).agents as Json[];
      assert.equal(agents.length, 1);
      const agent = agents[0]!;
      assert.match(String(agent.id), /^code-reviewer/);
      assert.match(String(agent.system_instruction), /^You are a senior code reviewer\./);
      const interaction = await onlyInteraction(context);
      assert.equal(interaction.agent, agent.id);
      assert.equal(await fileText(context, interaction.environment_id, "workspace/repo/src/index.py"), SPOON_KNIFE["src/index.py"]);
    },
  },
  // reference-sample: deleteInteraction delete (sh, python, javascript)
  "deleteInteraction delete": {
    // The page's $INTERACTION_ID (sh) and created (SDKs): an interaction made first.
    setup: async (context) => {
      const created = await context.ok("POST", "/v1beta/interactions", { model: MODEL, input: "Hello" });
      return { env: { INTERACTION_ID: created.id }, vars: { created: { id: created.id } } };
    },
    check: async (outcome, context, setup) => {
      passed(outcome);
      assert.equal((await context.rest("GET", `/v1beta/interactions/${setup.env?.INTERACTION_ID}`)).status, 404);
    },
  },
  // reference-sample: getInteractionById get (sh, python, javascript)
  "getInteractionById get": {
    // The page's $INTERACTION_ID (sh) and created (SDKs): an interaction made first.
    setup: async (context) => {
      const created = await context.ok("POST", "/v1beta/interactions", { model: MODEL, input: "Hello" });
      return { env: { INTERACTION_ID: created.id }, vars: { created: { id: created.id } } };
    },
    check: async (outcome, context, setup) => {
      passed(outcome);
      if (context.sample.lang === "sh") {
        assert.equal(printedJson(outcome).id, setup.env?.INTERACTION_ID);
        assert.equal(printedJson(outcome).status, "completed");
      } else assert.equal(outcome.stdout.trim(), "completed");
    },
  },
  // reference-sample: cancelInteractionById cancel (sh, python, javascript)
  "cancelInteractionById cancel": {
    // The scripted planner would finish the essay at once: a fault rule holds the next interaction of the
    // key queued, as a model's long essay keeps it running. The sh sample's $INTERACTION_ID: such an
    // interaction, made first; the SDK samples make their own.
    setup: async (context) => {
      await context.ok("POST", "/emulator/faults", { target: { kind: "interaction" }, effect: { kind: "queued", ms: 600_000 }, times: 1 });
      if (context.sample.lang !== "sh") return {};
      const created = await context.ok("POST", "/v1beta/interactions", { model: MODEL, input: "Write a long essay.", background: true });
      return { env: { INTERACTION_ID: created.id } };
    },
    check: async (outcome, context) => {
      passed(outcome);
      const interaction = await onlyInteraction(context, "cancelled");
      if (context.sample.lang === "sh") assert.equal(printedJson(outcome).status, "cancelled");
      else {
        assert.equal(outcome.stdout.trim(), "cancelled");
        assert.deepEqual(interaction.tools, [{ type: "computer_use" }]);
      }
    },
  },
};

/** The samples this test runs: every one of the document but the Java ones (tools/parity/reference-samples.ts says why). */
const SAMPLES = referenceSamples(readOpenApi()).filter((sample) => sample.lang !== "java");

async function runSample(t: TestContext, sample: ReferenceSample): Promise<void> {
  const spec = SPECS[`${sample.operationId} ${sample.label}`];
  assert.ok(spec, `no spec for the document's sample ${sample.operationId} ${sample.lang} ${sample.label}: add one`);
  const key = `ref-${sample.operationId}-${sample.lang}-${sample.label}`.toLowerCase().replace(/_/g, "-");
  const folder = path.join(work, key);
  fs.mkdirSync(folder, { recursive: true });
  const { rest } = docClient(emulator.url, key);
  const context: Context = {
    sample,
    key,
    folder,
    rest,
    ok: async (method, route, body) => {
      const answer = await rest(method, route, body);
      assert.equal(answer.status, 200, `${method} ${route}: ${answer.text}`);
      return answer.json as Json;
    },
  };
  const setup = (await spec.setup?.(context)) ?? {};
  const options = { url: emulator.url, key, folder };
  let outcome: SampleOutcome;
  if (sample.lang === "sh") outcome = await runShellSample(sample.source, setup, options);
  else if (sample.lang === "javascript") outcome = await runJavaScriptSample(sample.source, setup, options);
  else if (sample.lang === "python") {
    if (!python && !pythonMissing) {
      const interpreter = await scratchVenv(t);
      if (interpreter === null) pythonMissing = true;
      else python = startPythonSamples(interpreter, emulator.url);
    }
    if (!python) return t.skip("no Python SDK here (test/support/python-venv.ts)");
    outcome = await python.run(sample.source, setup, key);
  } else return assert.fail(`a sample in ${sample.lang}, which this test cannot run: say so in tools/parity/reference-samples.ts`);
  await spec.check(outcome, context, setup);
}

describe("the API reference's samples (the OpenAPI document's x-codeSamples), run as the document holds them", () => {
  for (const sample of SAMPLES) {
    it(`${sample.operationId} ${sample.lang} ${sample.label}`, (t) => runSample(t, sample));
  }
});
