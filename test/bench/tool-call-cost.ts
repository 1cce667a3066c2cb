// `node dist/test/bench/tool-call-cost.js`: where one tool call's time goes (docs/benchmarks.md#where-a-tool-calls-time-goes).
// Measures, in one sandbox, each in turns with its reference so both see the same load:
//   - a `true` tool call inside an interaction (41 calls vs 1, per call), with no hook and with one command hook;
//   - the executor channel's `true` round trip, against spawning `/bin/true` and `bash -c true` inside the container;
//   - reading 1 MiB over the channel (a command's output, and readFile).
// Traffic goes only to loopback and to the containers it creates; every loop is bounded.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor, startEmulator } from "../../server/emulator.js";

const ROUNDS = Number(process.env["CALL_COST_ROUNDS"] ?? 15);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function script(calls: number, code = "true"): string {
  const items = Array.from({ length: calls }, () => ({ name: "code_execution", args: { code } }));
  return `\`\`\`tool_calls\n${JSON.stringify(items)}\n\`\`\``;
}

async function dockerExecOutput(docker: Docker, containerId: string, argv: string[]): Promise<string> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: "1000:1000" });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve());
    stream.on("error", reject);
  });
  // Demultiplexed by hand: 8-byte headers, then the payload.
  const all = Buffer.concat(chunks);
  let text = "";
  for (let at = 0; at + 8 <= all.length; ) {
    const length = all.readUInt32BE(at + 4);
    text += all.subarray(at + 8, at + 8 + length).toString("utf8");
    at += 8 + length;
  }
  return text;
}

const instance = `callcost-${randomBytes(4).toString("hex")}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-callcost-"));
const config = loadConfig({ ...process.env, EMULATOR_INSTANCE: instance, EMULATOR_DATA_DIR: dataDir, PORT: "0" });
const runtime = dockerRuntimeFor(config);
await runtime.prepare(() => undefined);
const docker = new Docker();
const emulator = await startEmulator({ ...config, HOST: "127.0.0.1" }, { runtime, progress: () => undefined });

async function interact(body: Record<string, unknown>): Promise<{ environment_id?: string; status: string }> {
  const response = await fetch(`${emulator.url}/v1beta/interactions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "bench" },
    body: JSON.stringify({ agent: "antigravity-preview-05-2026", ...body }),
  });
  const answer = (await response.json()) as { environment_id?: string; status: string };
  if (response.status !== 200 || answer.status !== "completed")
    throw new Error(`interaction failed: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer;
}

try {
  const plain = (await interact({ input: script(1), environment: { type: "remote" } })).environment_id!;
  const hooked = (await interact({ input: script(1), environment: { type: "remote" } })).environment_id!;
  const hooks = { gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "true" }] }] } };
  await interact({
    input: `\`\`\`tool_calls\n${JSON.stringify([{ name: "write_file", args: { path: "/workspace/.agents/hooks.json", content: JSON.stringify(hooks) } }])}\n\`\`\``,
    environment: hooked,
  });

  const perCall = async (environment: string): Promise<number> => {
    const one: number[] = [];
    const many: number[] = [];
    await interact({ input: script(41), environment });
    for (let i = 0; i < ROUNDS; i++) {
      one.push(await time(() => interact({ input: script(1), environment })));
      many.push(await time(() => interact({ input: script(41), environment })));
    }
    return (median(many) - median(one)) / 40;
  };
  const noHook = await perCall(plain);
  const oneHook = await perCall(hooked);

  const handle = (await runtime.list()).find((h) => h.environmentId === plain)!;
  const channel = await runtime.connect(handle);
  const run = (argv: string[]) => channel.run({ argv, timeoutMs: 10_000, maxOutputBytes: 4 << 20 });
  await run(["bash", "-c", "head -c 1048576 /dev/urandom > /tmp/m"]);
  await channel.writeFile("/tmp/small", Buffer.from("{}"));
  const samples = {
    ping: [] as number[],
    true: [] as number[],
    bashTrue: [] as number[],
    readMissing: [] as number[],
    readSmall: [] as number[],
    cat: [] as number[],
    readFile: [] as number[],
  };
  for (let i = 0; i < 200; i++) {
    samples.ping.push(await time(() => channel.ping()));
    samples.true.push(await time(() => run(["true"])));
    samples.bashTrue.push(await time(() => run(["bash", "-c", "true"])));
    samples.readMissing.push(await time(() => channel.readFile("/nowhere/hooks.json", 1 << 20).catch(() => null)));
    samples.readSmall.push(await time(() => channel.readFile("/tmp/small", 1 << 20)));
  }
  for (let i = 0; i < 50; i++) {
    samples.cat.push(await time(() => run(["cat", "/tmp/m"])));
    samples.readFile.push(await time(() => channel.readFile("/tmp/m", 2 << 20)));
  }
  channel.close();
  // What the engine's own exec plumbing takes to carry 1 MiB: `docker exec cat` against `docker exec true`.
  const dockerCat: number[] = [];
  const dockerTrue: number[] = [];
  for (let i = 0; i < 15; i++) {
    dockerTrue.push(await time(() => dockerExecOutput(docker, handle.sandboxId, ["true"])));
    dockerCat.push(await time(() => dockerExecOutput(docker, handle.sandboxId, ["cat", "/tmp/m"])));
  }
  // The spawn floor, measured inside the container: 200 spawns in one shell loop.
  const floor = await dockerExecOutput(docker, handle.sandboxId, [
    "bash",
    "-c",
    "s=$(date +%s%N); for i in $(seq 200); do /bin/true; done; m=$(date +%s%N); for i in $(seq 200); do bash -c true; done; e=$(date +%s%N); echo $(( (m-s)/200000 )) $(( (e-m)/200000 ))",
  ]);
  const [spawnTrue, spawnBash] = floor
    .trim()
    .split(" ")
    .map((microseconds) => Number(microseconds) / 1000);

  const ms = (values: number[] | number): string => `${(typeof values === "number" ? values : median(values)).toFixed(2)} ms`;
  const mbps = (values: number[] | number): string => {
    const taken = typeof values === "number" ? values : median(values);
    return `${ms(taken)} (${(1048576 / 1e6 / (taken / 1000)).toFixed(0)} MB/s)`;
  };
  const rows: Array<[string, string]> = [
    ["a `true` tool call inside an interaction, no hook (per call)", ms(noHook)],
    ["the same with one command hook (per call)", ms(oneHook)],
    ["executor channel: a round trip (ping)", ms(samples.ping)],
    ["executor channel: run `true` / `bash -c true`", `${ms(samples.true)} / ${ms(samples.bashTrue)}`],
    ["inside the container, a shell loop: /bin/true / bash -c true", `${ms(spawnTrue!)} / ${ms(spawnBash!)}`],
    ["executor channel: readFile of a missing / a 2-byte file", `${ms(samples.readMissing)} / ${ms(samples.readSmall)}`],
    ["executor channel: `cat` of 1 MiB (the spawn included)", mbps(samples.cat)],
    ["executor channel: readFile of 1 MiB", mbps(samples.readFile)],
    ["docker exec: `cat` of 1 MiB minus `true` (the engine carrying 1 MiB)", mbps(median(dockerCat) - median(dockerTrue))],
  ];
  console.log(
    `\nmedians; load average ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(" ")}`,
  );
  for (const [label, value] of rows) console.log(`  ${label.padEnd(72)}${value}`);
} finally {
  await emulator.close();
  for (const handle of await runtime.list()) await runtime.remove(handle);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
