// `npm run load -- --soak`: the shared-emulator soak of issue 29. Ten API keys use one emulator at once
// for LOAD_SOAK_SECONDS (default 600), as several teams sharing it would:
//   - each key has its own environment, a webhook to a loopback receiver this script runs, and a
//     trigger that fires every minute of real time into that environment;
//   - LOAD_SOAK_WORKERS (default 100) workers, spread over the keys, each run interactions back to back
//     (write a file, a command that sleeps and reads it, read it back), half of them streamed.
// Throughout, /health is asked every 500 ms, and the emulator process's descriptors and memory are read
// from /proc every 5 s. The run fails (exit 1) on: an interaction that fails or is wrong; a streamed
// interaction whose event IDs do not increase, that lacks a step's start or stop, or that does not end
// with interaction.completed; /health slower than 1 s
// or not answering; descriptors or memory past their bounds (LOAD_SOAK_MAX_FDS, LOAD_SOAK_MAX_RSS_MIB),
// or grown in the last third of the run beyond the first third's peak by more than a margin; a completed
// interaction (a worker's or a trigger's) whose interaction.completed event no webhook delivery brought,
// or a delivery whose signature does not verify; a trigger execution that did not complete; anything of
// the emulator's instance left on the engine. Traffic goes only to loopback and to the containers the
// run creates; every loop ends at the deadline.

import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { Webhook } from "standardwebhooks";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const SECONDS = Number(process.env.LOAD_SOAK_SECONDS ?? 600);
const WORKERS = Number(process.env.LOAD_SOAK_WORKERS ?? 100);
const KEYS = Number(process.env.LOAD_SOAK_KEYS ?? 10);
const MAX_FDS = Number(process.env.LOAD_SOAK_MAX_FDS ?? 4096);
const MAX_RSS_MIB = Number(process.env.LOAD_SOAK_MAX_RSS_MIB ?? 1536);
/** Growth allowed from the first third's peak to the last third's, for descriptors and memory. */
const GROWTH_MARGIN = 1.25;
const HEALTH_BOUND_MS = 1000;
const INTERACTION_TIMEOUT_MS = 180_000;
const NO_RETRIES = { maxRetries: 0, timeout: INTERACTION_TIMEOUT_MS };

type Interaction = { id?: string; status?: string; steps?: Array<{ type: string; result?: unknown }>; output_text?: string };
type Sample = { atMs: number; fds: number; rssMiB: number };

function describeError(error: unknown): string {
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message : String(error);
  return `${status === undefined ? "" : `HTTP ${status}: `}${message.split("\n")[0]?.slice(0, 300)}`;
}

function script(tag: string): { input: string; payload: string } {
  const path = `/workspace/soak/${tag}.txt`;
  const payload = `payload of ${tag}`;
  const calls = [
    { name: "write_file", args: { path, content: payload } },
    // The sleep keeps interactions in flight (the concurrency the soak is about) without burning CPU.
    { name: "code_execution", args: { code: `sleep 1 && cat ${path}`, language: "bash" } },
    { name: "read_file", args: { path } },
  ];
  return { input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``, payload };
}

function checkResult(interaction: Interaction, payload: string): string | null {
  if (interaction.status !== "completed") return `status ${interaction.status}`;
  const results = (interaction.steps ?? []).filter((step) => step.type.endsWith("_result"));
  if (results.length !== 3) return `${results.length} results, not 3`;
  if (results[1]?.result !== payload || results[2]?.result !== payload) return `results ${JSON.stringify(results.map((r) => r.result))}`;
  return null;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

function sampleProcess(pid: number, startedMs: number): Sample {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
  return { atMs: Date.now() - startedMs, fds: fs.readdirSync(`/proc/${pid}/fd`).length, rssMiB: rssKb / 1024 };
}

/** A loopback receiver of Standard Webhooks: the interaction IDs each key's deliveries brought, verified. */
function startReceiver(): Promise<{
  server: http.Server;
  url: string;
  received: Map<string, Set<string>>;
  bad: string[];
  secrets: Map<string, Webhook>;
}> {
  const received = new Map<string, Set<string>>();
  const secrets = new Map<string, Webhook>();
  const bad: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const key = new URL(req.url ?? "/", "http://x").searchParams.get("key") ?? "";
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const verifier = secrets.get(key);
        if (!verifier) throw new Error(`no secret for key ${key}`);
        const event = verifier.verify(body, req.headers as Record<string, string>) as { type: string; data: { id: string } };
        if (event.type === "interaction.completed") {
          const ids = received.get(key) ?? new Set<string>();
          ids.add(event.data.id);
          received.set(key, ids);
        }
        res.writeHead(204).end();
      } catch (error) {
        bad.push(`${key}: ${describeError(error)}`);
        res.writeHead(400).end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/hook`, received, bad, secrets });
    }),
  );
}

interface KeyWorld {
  key: string;
  ai: GoogleGenAI;
  environmentId: string;
  webhookId: string;
  triggerId: string;
  completed: Set<string>;
}

async function main(): Promise<number> {
  const docker = new Docker();
  const failures: string[] = [];
  const note = (problem: string) => {
    if (failures.length < 10_000) failures.push(problem);
  };
  let emulator: EmulatorProcess | undefined;
  const receiver = await startReceiver();
  const health: number[] = [];
  const samples: Sample[] = [];
  let streamed = 0;
  let plain = 0;
  const latencies: number[] = [];
  try {
    console.log("▸ starting the emulator as `npm start` does…");
    emulator = await startEmulatorProcess();
    const startedMs = Date.now();
    const worlds: KeyWorld[] = [];
    console.log(`▸ ${KEYS} keys: an environment, a webhook and an every-minute trigger each…`);
    for (let k = 0; k < KEYS; k++) {
      const key = `soak-key-${k}`;
      const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: emulator.url } });
      const environment = (await ai.environments.create({} as Parameters<GoogleGenAI["environments"]["create"]>[0])) as { id: string };
      const webhook = (await ai.webhooks.create({
        name: `soak ${k}`,
        uri: `${receiver.url}?key=${key}`,
        subscribed_events: ["interaction.completed", "interaction.failed"],
      } as Parameters<GoogleGenAI["webhooks"]["create"]>[0])) as { id: string; new_signing_secret: string };
      receiver.secrets.set(key, new Webhook(webhook.new_signing_secret));
      const trigger = (await ai.triggers.create({
        display_name: `soak ${k}`,
        schedule: "* * * * *",
        time_zone: "UTC",
        environment_id: environment.id,
        interaction: { agent: AGENT, input: script(`trigger-${k}`).input },
      } as Parameters<GoogleGenAI["triggers"]["create"]>[0])) as { id: string };
      worlds.push({ key, ai, environmentId: environment.id, webhookId: webhook.id, triggerId: trigger.id, completed: new Set() });
    }

    const deadline = Date.now() + SECONDS * 1000;
    let running = true;
    const healthLoop = (async () => {
      while (running) {
        const started = Date.now();
        try {
          const answer = await fetch(`${emulator!.url}/health`, { signal: AbortSignal.timeout(10_000) });
          await answer.arrayBuffer();
          if (!answer.ok) note(`/health answered ${answer.status}`);
        } catch (error) {
          note(`/health: ${describeError(error)}`);
        }
        health.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    const sampleLoop = (async () => {
      while (running) {
        samples.push(sampleProcess(emulator!.pid, startedMs));
        await new Promise((resolve) => setTimeout(resolve, 5000));
      }
    })();
    const progress = setInterval(() => {
      const last = samples.at(-1);
      console.log(
        `  … ${Math.round((Date.now() - startedMs) / 1000)} s: ${plain + streamed} interactions, ${failures.length} errors, ` +
          `/health max ${Math.max(0, ...health)} ms, ${last?.fds ?? "?"} fds, ${last?.rssMiB.toFixed(0) ?? "?"} MiB`,
      );
    }, 30_000);

    console.log(`▸ ${WORKERS} workers for ${SECONDS} s…`);
    const worker = async (index: number) => {
      const world = worlds[index % worlds.length]!;
      const stream = index % 2 === 1;
      for (let round = 0; Date.now() < deadline; round++) {
        const { input, payload } = script(`w${index}-r${round}`);
        const started = Date.now();
        try {
          const request = { agent: AGENT, input, environment: world.environmentId } as Parameters<GoogleGenAI["interactions"]["create"]>[0];
          let interaction: Interaction;
          if (stream) {
            const events = (await world.ai.interactions.create(
              { ...request, stream: true } as typeof request,
              NO_RETRIES,
            )) as unknown as AsyncIterable<{
              event_type: string;
              event_id?: string;
              index?: number;
              interaction?: Interaction;
            }>;
            // Event IDs increase (the input's step events are stored, not streamed, so they are skipped),
            // and every step of the run has its step.start and step.stop: none lost.
            let previous = 0;
            const starts = new Set<number>();
            const stops = new Set<number>();
            let last: { event_type: string; interaction?: Interaction } | undefined;
            for await (const event of events) {
              const seq = Number(event.event_id?.slice(4));
              if (!(seq > previous)) note(`${world.key} w${index}: event ${event.event_id} after evt_${previous}`);
              previous = seq;
              if (event.event_type === "step.start") starts.add(event.index ?? -1);
              if (event.event_type === "step.stop") stops.add(event.index ?? -1);
              last = event;
            }
            if (last?.event_type !== "interaction.completed" || !last.interaction) {
              note(`${world.key} w${index}: the stream ended with ${last?.event_type}, not interaction.completed`);
              continue;
            }
            // interaction.completed carries no steps (as documented): the run's steps are GET's after the input.
            const got = (await world.ai.interactions.get(last.interaction.id as string)) as Interaction;
            interaction = { ...got, steps: (got.steps ?? []).filter((step) => step.type !== "user_input") };
            const stepCount = interaction.steps?.length ?? 0;
            const whole = (seen: Set<number>) => seen.size === stepCount && [...seen].every((at) => at >= 0 && at < stepCount);
            if (!whole(starts) || !whole(stops))
              note(
                `${world.key} w${index} ${got.id}: the stream had steps [${[...starts]}] started and [${[...stops]}] stopped, GET has ${stepCount}`,
              );
            streamed++;
          } else {
            interaction = (await world.ai.interactions.create(request, NO_RETRIES)) as Interaction;
            plain++;
          }
          latencies.push(Date.now() - started);
          const problem = checkResult(interaction, payload);
          if (problem) note(`${world.key} w${index} ${interaction.id}: ${problem}`);
          else if (interaction.id) world.completed.add(interaction.id);
        } catch (error) {
          note(`${world.key} w${index}: ${describeError(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
    clearInterval(progress);

    console.log("▸ pausing the triggers and waiting for their last runs and every delivery…");
    for (const world of worlds) {
      await world.ai.triggers.update(world.triggerId, { status: "paused" } as Parameters<GoogleGenAI["triggers"]["update"]>[1]);
    }
    let triggerRuns = 0;
    for (const world of worlds) {
      const executions = await waitForExecutions(world);
      for (const execution of executions) {
        triggerRuns++;
        if (execution.status !== "completed")
          note(`${world.key} trigger execution ${execution.id}: ${execution.status} ${execution.error ?? ""}`);
        else if (execution.interaction_id) world.completed.add(execution.interaction_id);
      }
      if (executions.length < Math.floor(SECONDS / 60) - 1) note(`${world.key}: ${executions.length} trigger executions in ${SECONDS} s`);
    }
    const settleUntil = Date.now() + 120_000;
    const missing = () =>
      worlds.reduce((sum, world) => sum + [...world.completed].filter((id) => !receiver.received.get(world.key)?.has(id)).length, 0);
    while (missing() > 0 && Date.now() < settleUntil) await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const world of worlds) {
      const lost = [...world.completed].filter((id) => !receiver.received.get(world.key)?.has(id));
      if (lost.length > 0)
        note(
          `${world.key}: ${lost.length} completed interactions whose interaction.completed was never delivered (${lost.slice(0, 3).join(", ")}…)`,
        );
    }
    for (const problem of receiver.bad.slice(0, 20)) note(`webhook receiver: ${problem}`);
    running = false;
    await Promise.all([healthLoop, sampleLoop]);

    // Bounds and growth of descriptors and memory.
    const third = (SECONDS * 1000) / 3;
    const early = samples.filter((sample) => sample.atMs <= third);
    const late = samples.filter((sample) => sample.atMs >= 2 * third);
    const peak = (list: Sample[], field: "fds" | "rssMiB") => Math.max(0, ...list.map((sample) => sample[field]));
    if (peak(samples, "fds") > MAX_FDS) note(`descriptors reached ${peak(samples, "fds")}, past LOAD_SOAK_MAX_FDS=${MAX_FDS}`);
    if (peak(samples, "rssMiB") > MAX_RSS_MIB)
      note(`RSS reached ${peak(samples, "rssMiB").toFixed(0)} MiB, past LOAD_SOAK_MAX_RSS_MIB=${MAX_RSS_MIB}`);
    for (const field of ["fds", "rssMiB"] as const) {
      if (early.length > 0 && late.length > 0 && peak(late, field) > peak(early, field) * GROWTH_MARGIN + (field === "fds" ? 50 : 64)) {
        note(`${field} grew from ${peak(early, field).toFixed(0)} (first third's peak) to ${peak(late, field).toFixed(0)} (last third's)`);
      }
    }
    const slow = health.filter((ms) => ms > HEALTH_BOUND_MS);
    if (slow.length > 0) note(`/health took more than ${HEALTH_BOUND_MS} ms ${slow.length} times (longest ${Math.max(...slow)} ms)`);

    console.log("▸ deleting every trigger, webhook and environment…");
    for (const world of worlds) {
      await world.ai.triggers.delete(world.triggerId);
      await world.ai.webhooks.delete(world.webhookId);
      await world.ai.environments.delete(world.environmentId);
    }

    const sortedLatency = [...latencies].sort((a, b) => a - b);
    const sortedHealth = [...health].sort((a, b) => a - b);
    console.log(`\n  ${KEYS} keys, ${WORKERS} workers, ${SECONDS} s`);
    console.log(`  interactions: ${plain} plain, ${streamed} streamed, ${triggerRuns} trigger runs`);
    console.log(
      `  interaction latency ms: p50 ${percentile(sortedLatency, 0.5)}, p99 ${percentile(sortedLatency, 0.99)}, max ${sortedLatency.at(-1)}`,
    );
    console.log(
      `  /health ms: p50 ${percentile(sortedHealth, 0.5)}, p99 ${percentile(sortedHealth, 0.99)}, max ${sortedHealth.at(-1)} (${health.length} probes)`,
    );
    console.log(
      `  emulator process: descriptors peak ${peak(samples, "fds")} (first third ${peak(early, "fds")}, last ${peak(late, "fds")}); ` +
        `RSS peak ${peak(samples, "rssMiB").toFixed(0)} MiB (first third ${peak(early, "rssMiB").toFixed(0)}, last ${peak(late, "rssMiB").toFixed(0)})`,
    );
    console.log(`  webhook deliveries received: ${[...receiver.received.values()].reduce((sum, ids) => sum + ids.size, 0)}`);
  } catch (error) {
    note(`the soak itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await emulator?.destroy();
    receiver.server.close();
  }
  if (emulator) {
    const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL_INSTANCE}=${emulator.instance}`] } });
    const volumes = (await docker.listVolumes({ filters: { label: [`${LABEL_INSTANCE}=${emulator.instance}`] } })).Volumes ?? [];
    if (containers.length > 0 || volumes.length > 0)
      note(`${containers.length} containers and ${volumes.length} volumes of this instance are left`);
  }
  if (failures.length > 0) {
    console.error(`\n${failures.length} errors:`);
    for (const failure of failures.slice(0, 50)) console.error(`  - ${failure}`);
    return 1;
  }
  console.log("\n  0 errors");
  return 0;
}

type Execution = { id: string; status: string; interaction_id?: string; error?: unknown };

/** The trigger's executions once none is in progress (at most two minutes). */
async function waitForExecutions(world: KeyWorld): Promise<Execution[]> {
  const until = Date.now() + 120_000;
  for (;;) {
    const listed = (await world.ai.triggers.listExecutions(world.triggerId, { page_size: 100 } as Parameters<
      GoogleGenAI["triggers"]["listExecutions"]
    >[1])) as {
      trigger_executions?: Execution[];
    };
    const executions = listed.trigger_executions ?? [];
    if (!executions.some((execution) => execution.status === "in_progress") || Date.now() > until) return executions;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

process.exitCode = await main();
