// `npm run load`: a bounded load test through the official SDK against the emulator started as
// `npm start` starts it (its own process, data folder and instance name). Two scenarios:
//   - 25 interactions at once, each in a new environment (a container each);
//   - 30 interactions at once in one environment (one container, one executor channel).
// Each interaction runs a small tool_calls script (write a file, run a command that reads it, read it
// back) and is checked step by step: the order of the steps, call/result pairs with matching IDs, the
// results, a final model_output. SDK retries are off, so a 5xx counts as an error instead of being
// retried away. The run reports errors (it exits non-zero on any), p50/p95 latency per scenario and
// the emulator's memory before and after; then it deletes every environment it created through the
// API and checks that no container or volume of its instance is left.
// Traffic goes only to loopback and to the containers this run creates; every loop is bounded.

import fs from "node:fs";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { LABEL_INSTANCE, LABEL_LEASE_EXPIRES } from "../../server/sandbox/docker/labels.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const NEW_ENVIRONMENTS = Number(process.env.LOAD_NEW_ENVIRONMENTS ?? 25);
const SHARED_ENVIRONMENT = Number(process.env.LOAD_SHARED_ENVIRONMENT ?? 30);
/** No interaction of this test should take anywhere near this long; past it, it counts as an error. */
const INTERACTION_TIMEOUT_MS = 180_000;
const NO_RETRIES = { maxRetries: 0, timeout: INTERACTION_TIMEOUT_MS };

type Step = { type: string; id?: string; call_id?: string; name?: string; result?: string; is_error?: boolean; content?: unknown };
type Interaction = { id?: string; status?: string; environment_id?: string; steps?: Step[]; output_text?: string };

interface Outcome {
  scenario: string;
  index: number;
  ms: number;
  problems: string[];
  environmentId?: string;
}

/** The script of interaction `index`: its own file, so concurrent runs in one environment never collide. */
function scriptFor(tag: string) {
  const path = `/workspace/load/${tag}.txt`;
  const payload = `payload of ${tag}`;
  const calls = [
    { name: "write_file", args: { path, content: payload } },
    { name: "code_execution", args: { code: `cat ${path} && echo && echo ran ${tag}`, language: "bash" } },
    { name: "read_file", args: { path } },
  ];
  return { input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``, path, payload, ran: `${payload}\nran ${tag}\n` };
}

/** Everything wrong with one finished interaction, as sentences; empty when it is right. */
function checkInteraction(interaction: Interaction, expected: ReturnType<typeof scriptFor>): string[] {
  const problems: string[] = [];
  if (interaction.status !== "completed") problems.push(`status is ${interaction.status}, not completed`);
  if (!/^env_/.test(interaction.environment_id ?? "")) problems.push("no environment_id");
  const steps = interaction.steps ?? [];
  const types = steps.map((step) => step.type);
  // A create answer holds the run's steps only (GET adds the user_input step first).
  const wanted = [
    "function_call",
    "function_result",
    "code_execution_call",
    "code_execution_result",
    "function_call",
    "function_result",
    "model_output",
  ];
  if (JSON.stringify(types) !== JSON.stringify(wanted)) {
    problems.push(`steps are [${types.join(", ")}], not [${wanted.join(", ")}]`);
    return problems;
  }
  // Each call is followed by its own result: the result's call_id is the call's id, and IDs are unique.
  const callIds = new Set<string>();
  for (const at of [0, 2, 4]) {
    const call = steps[at] as Step;
    const result = steps[at + 1] as Step;
    if (!/^call_/.test(call.id ?? "")) problems.push(`step ${at} (${call.type}) has no call ID`);
    if (callIds.has(call.id ?? "")) problems.push(`step ${at} reuses call ID ${call.id}`);
    callIds.add(call.id ?? "");
    if (result.call_id !== call.id) problems.push(`step ${at + 1}'s call_id ${result.call_id} is not step ${at}'s id ${call.id}`);
    if (result.is_error !== false) problems.push(`step ${at + 1} (${result.type}) is an error: ${result.result}`);
    if (call.type === "function_call" && result.name !== call.name)
      problems.push(`step ${at + 1} names ${result.name}, its call ${call.name}`);
  }
  if (steps[0]?.name !== "write_file" || steps[4]?.name !== "read_file") problems.push("the file calls are not write_file then read_file");
  if (steps[3]?.result !== expected.ran)
    problems.push(`the command printed ${JSON.stringify(steps[3]?.result)}, not ${JSON.stringify(expected.ran)}`);
  if (steps[5]?.result !== expected.payload)
    problems.push(`read_file returned ${JSON.stringify(steps[5]?.result)}, not ${JSON.stringify(expected.payload)}`);
  if (!(interaction.output_text ?? "").includes(`ran ${expected.payload.replace("payload of ", "")}`)) {
    problems.push("the final model_output does not report the command's output");
  }
  return problems;
}

function describeError(error: unknown): string {
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message : String(error);
  return `${status === undefined ? "" : `HTTP ${status}: `}${message.split("\n")[0]?.slice(0, 300)}`;
}

async function runOne(ai: GoogleGenAI, scenario: string, index: number, environment: string | { type: "remote" }): Promise<Outcome> {
  const expected = scriptFor(`${scenario}-${index}`);
  const started = process.hrtime.bigint();
  try {
    const interaction = (await ai.interactions.create(
      { agent: AGENT, input: expected.input, environment } as Parameters<GoogleGenAI["interactions"]["create"]>[0],
      NO_RETRIES,
    )) as Interaction;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { scenario, index, ms, problems: checkInteraction(interaction, expected), environmentId: interaction.environment_id };
  } catch (error) {
    return { scenario, index, ms: Number(process.hrtime.bigint() - started) / 1e6, problems: [describeError(error)] };
  }
}

interface Memory {
  rssMiB: number;
  peakMiB: number;
}

/** The emulator process's resident memory and its peak, from /proc (Linux). */
function memoryOf(pid: number): Memory {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rssMiB: field("VmRSS"), peakMiB: field("VmHWM") };
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

function table(rows: Array<{ label: string; outcomes: Outcome[]; wallMs: number }>): void {
  console.log(
    `\n  ${"scenario".padEnd(44)}${"runs".padStart(6)}${"errors".padStart(8)}${"p50 ms".padStart(10)}${"p95 ms".padStart(10)}${"max ms".padStart(10)}${"wall ms".padStart(10)}`,
  );
  for (const { label, outcomes, wallMs } of rows) {
    const times = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
    const errors = outcomes.filter((outcome) => outcome.problems.length > 0).length;
    console.log(
      `  ${label.padEnd(44)}${String(outcomes.length).padStart(6)}${String(errors).padStart(8)}${percentile(times, 0.5).toFixed(0).padStart(10)}${percentile(times, 0.95).toFixed(0).padStart(10)}${(times.at(-1) ?? 0).toFixed(0).padStart(10)}${wallMs.toFixed(0).padStart(10)}`,
    );
  }
}

async function allEnvironmentIds(ai: GoogleGenAI): Promise<string[]> {
  const ids: string[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 100; page++) {
    const listed = (await ai.environments.list({ page_size: 1000, ...(pageToken ? { page_token: pageToken } : {}) })) as {
      environments?: Array<{ id: string }>;
      next_page_token?: string;
    };
    ids.push(...(listed.environments ?? []).map((environment) => environment.id));
    pageToken = listed.next_page_token;
    if (!pageToken) break;
  }
  return ids;
}

/**
 * Containers and volumes the engine still has for this emulator instance. While the emulator runs, its
 * own lease (a volume: docs/environments-and-files.md#sandboxes-of-an-emulator-that-is-gone) is not a
 * leftover; once it has stopped, nothing may remain.
 */
async function leftovers(docker: Docker, instance: string, running: boolean): Promise<{ containers: number; volumes: number }> {
  const filters = { label: [`${LABEL_INSTANCE}=${instance}`] };
  const containers = await docker.listContainers({ all: true, filters });
  const volumes = ((await docker.listVolumes({ filters })).Volumes ?? []).filter(
    (volume) => !(running && volume.Labels?.[LABEL_LEASE_EXPIRES] !== undefined),
  );
  return { containers: containers.length, volumes: volumes.length };
}

async function main(): Promise<number> {
  const docker = new Docker();
  let emulator: EmulatorProcess | undefined;
  const failures: string[] = [];
  try {
    console.log("▸ starting the emulator as `npm start` does…");
    emulator = await startEmulatorProcess();
    const ai = new GoogleGenAI({ apiKey: "load-test-key", httpOptions: { baseUrl: emulator.url } });
    const idle = memoryOf(emulator.pid);

    const scenarios: Array<{ label: string; outcomes: Outcome[]; wallMs: number }> = [];
    const run = async (label: string, tag: string, count: number, environment: (index: number) => string | { type: "remote" }) => {
      console.log(`▸ ${label}…`);
      const started = Date.now();
      const outcomes = await Promise.all(Array.from({ length: count }, (_, index) => runOne(ai, tag, index, environment(index))));
      scenarios.push({ label, outcomes, wallMs: Date.now() - started });
      for (const outcome of outcomes) {
        for (const problem of outcome.problems) failures.push(`${label} #${outcome.index}: ${problem}`);
      }
    };

    await run(`${NEW_ENVIRONMENTS} at once, each in a new environment`, "new", NEW_ENVIRONMENTS, () => ({ type: "remote" }));
    const afterNew = memoryOf(emulator.pid);

    const shared = (await ai.environments.create({} as Parameters<GoogleGenAI["environments"]["create"]>[0])) as { id: string };
    await run(`${SHARED_ENVIRONMENT} at once in one environment`, "shared", SHARED_ENVIRONMENT, () => shared.id);
    const sharedOutcomes = scenarios.at(-1)?.outcomes ?? [];
    for (const outcome of sharedOutcomes) {
      if (outcome.environmentId !== undefined && outcome.environmentId !== shared.id) {
        failures.push(`shared #${outcome.index}: ran in ${outcome.environmentId}, not in ${shared.id}`);
      }
    }
    const newIds = new Set((scenarios[0]?.outcomes ?? []).flatMap((outcome) => (outcome.environmentId ? [outcome.environmentId] : [])));
    if (newIds.size !== (scenarios[0]?.outcomes ?? []).filter((outcome) => outcome.environmentId).length) {
      failures.push("two interactions of the new-environment scenario shared an environment");
    }
    const afterLoad = memoryOf(emulator.pid);

    // Clean up through the API: every environment this key has, which is every one this run created.
    console.log("▸ deleting every environment this run created…");
    const ids = await allEnvironmentIds(ai);
    const expectedCount = newIds.size + 1;
    if (ids.length !== expectedCount) failures.push(`the key lists ${ids.length} environments, not the ${expectedCount} this run created`);
    const deletions = await Promise.allSettled(ids.map((id) => ai.environments.delete(id)));
    deletions.forEach((deletion, index) => {
      if (deletion.status === "rejected") failures.push(`deleting ${ids[index]}: ${describeError(deletion.reason)}`);
    });
    const remaining = await allEnvironmentIds(ai);
    if (remaining.length > 0) failures.push(`${remaining.length} environments are still listed after deleting them`);
    const left = await leftovers(docker, emulator.instance, true);
    if (left.containers > 0 || left.volumes > 0)
      failures.push(`${left.containers} containers and ${left.volumes} volumes of this instance are left`);
    const afterCleanup = memoryOf(emulator.pid);

    table(scenarios);
    console.log("\n  emulator process memory (MiB)            RSS     peak");
    for (const [label, memory] of [
      ["idle, after start", idle],
      ["after the new-environment scenario", afterNew],
      ["after the shared-environment scenario", afterLoad],
      ["after deleting the environments", afterCleanup],
    ] as const) {
      console.log(`  ${label.padEnd(40)}${memory.rssMiB.toFixed(1).padStart(7)}${memory.peakMiB.toFixed(1).padStart(9)}`);
    }
    console.log(
      `\n  cleanup: ${ids.length} environments deleted through the API; ${left.containers} containers and ${left.volumes} volumes left`,
    );
  } catch (error) {
    failures.push(`the load test itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await emulator?.destroy();
  }
  if (emulator) {
    const after = await leftovers(docker, emulator.instance, false);
    if (after.containers > 0 || after.volumes > 0) {
      failures.push(`${after.containers} containers and ${after.volumes} volumes of this instance are left after it stopped`);
    }
  }
  if (failures.length > 0) {
    console.error(`\n${failures.length} errors:`);
    for (const failure of failures.slice(0, 50)) console.error(`  - ${failure}`);
    return 1;
  }
  console.log("\n  0 errors");
  return 0;
}

process.exitCode = await main();
