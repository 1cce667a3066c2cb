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

  const handles = await runtime.list();
  const handle = handles.find((h) => h.environmentId === plain)!;
  const channel = await runtime.connect(handle);
  const run = (argv: string[]) => channel.run({ argv, timeoutMs: 10_000, maxOutputBytes: 4 << 20 });
  await run(["bash", "-c", "head -c 1048576 /dev/urandom > /tmp/m"]);
  const channelTrue: number[] = [];
  const cat: number[] = [];
  const readFile: number[] = [];
  for (let i = 0; i < 200; i++) channelTrue.push(await time(() => run(["true"])));
  const extra = { ping: [] as number[], bashTrue: [] as number[], missing: [] as number[], small: [] as number[] };
  await channel.writeFile("/tmp/small", Buffer.from("{}"));
  for (let i = 0; i < 200; i++) {
    extra.ping.push(await time(() => (channel as unknown as { ping(): Promise<unknown> }).ping()));
    extra.bashTrue.push(await time(() => run(["bash", "-c", "true"])));
    extra.missing.push(await time(() => channel.readFile("/nope/hooks.json", 1 << 20).catch(() => null)));
    extra.small.push(await time(() => channel.readFile("/tmp/small", 1 << 20)));
  }
  for (const [k, v] of Object.entries(extra)) console.log(`${k}: ${median(v).toFixed(3)} ms`);
  for (let i = 0; i < 50; i++) {
    cat.push(await time(() => run(["cat", "/tmp/m"])));
    readFile.push(await time(() => channel.readFile("/tmp/m", 2 << 20)));
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

  const mbps = (ms: number) => (1048576 / 1e6 / (ms / 1000)).toFixed(0);
  const dockerCarry = median(dockerCat) - median(dockerTrue);
  console.log(`docker exec: cat of 1 MiB minus true (the engine carrying 1 MiB): ${dockerCarry.toFixed(2)} ms (${mbps(dockerCarry)} MB/s)`);
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`tool call in an interaction, no hook (per call, median):      ${noHook.toFixed(2)} ms`);
  console.log(`tool call in an interaction, one command hook (per call):     ${oneHook.toFixed(2)} ms`);
  console.log(`executor channel: run \`true\` (median of 200):                 ${median(channelTrue).toFixed(2)} ms`);
  console.log(`inside the container: spawn /bin/true / bash -c true:           ${spawnTrue!.toFixed(2)} ms / ${spawnBash!.toFixed(2)} ms`);
  console.log(`executor channel: cat of 1 MiB (median of 50):                 ${median(cat).toFixed(2)} ms (${mbps(median(cat))} MB/s)`);
  console.log(
    `executor channel: readFile of 1 MiB (median of 50):            ${median(readFile).toFixed(2)} ms (${mbps(median(readFile))} MB/s)`,
  );
} finally {
  await emulator.close();
  for (const handle of await runtime.list()) await runtime.remove(handle);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
