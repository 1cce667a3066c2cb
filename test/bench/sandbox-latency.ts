// `npm run bench`: what the architecture's speed decisions buy, printed side by side.
//   - a tool call over the executor's long-lived channel vs a `docker exec` per call;
//   - a new environment (container create + sources + start + executor channel);
//   - a whole interaction through the HTTP API, in a new and in a reused environment.
// Traffic goes only to loopback and to containers this benchmark creates; every loop is bounded.

import { randomBytes } from "node:crypto";
import http from "node:http";
import { PassThrough } from "node:stream";
import type { AddressInfo } from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor, startEmulator } from "../../server/emulator.js";
import { ExecutorClient } from "../../server/sandbox/executor-client.js";
import type { SandboxChannel } from "../../server/sandbox/runtime.js";

interface Stats {
  label: string;
  runs: number;
  mean: number;
  p50: number;
  p95: number;
}

async function measure(label: string, runs: number, once: () => Promise<unknown>): Promise<Stats> {
  await once(); // warm-up, not counted
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { label, runs, mean: times.reduce((a, b) => a + b, 0) / runs, p50: at(0.5), p95: at(0.95) };
}

/**
 * Two measurements taken in turns, run by run (and which goes first alternating), so both see the same
 * load on a busy machine.
 */
async function measurePair(
  runs: number,
  a: { label: string; once: () => Promise<unknown> },
  b: { label: string; once: () => Promise<unknown> },
): Promise<[Stats, Stats]> {
  await a.once();
  await b.once();
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const index of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = process.hrtime.bigint();
      await [a, b][index]!.once();
      times[index]!.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  const stats = (label: string, values: number[]): Stats => {
    values.sort((x, y) => x - y);
    const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
    return { label, runs, mean: values.reduce((x, y) => x + y, 0) / runs, p50: at(0.5), p95: at(0.95) };
  };
  return [stats(a.label, times[0]), stats(b.label, times[1])];
}

/**
 * The executor as it ran before issue 9: as the sandbox user, doing everything itself (no identities).
 * Only for comparing costs: sandbox code can stop such an executor.
 */
async function unseparatedChannel(docker: Docker, containerId: string): Promise<SandboxChannel> {
  const exec = await docker.getContainer(containerId).exec({
    Cmd: ["node", "/opt/emulator/executor/main.js"],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    User: "1000:1000",
    WorkingDir: "/workspace",
  });
  const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream;
  const stdout = new PassThrough();
  docker.modem.demuxStream(stream, stdout, process.stderr);
  stream.on("end", () => stdout.end());
  const client = new ExecutorClient(stdout, stream as unknown as import("node:stream").Writable);
  await client.ping();
  return client;
}

function table(title: string, rows: Stats[]): void {
  console.log(`\n${title}`);
  console.log(`  ${"".padEnd(46)}${"runs".padStart(6)}${"mean ms".padStart(10)}${"p50 ms".padStart(10)}${"p95 ms".padStart(10)}`);
  for (const row of rows) {
    console.log(
      `  ${row.label.padEnd(46)}${String(row.runs).padStart(6)}${row.mean.toFixed(2).padStart(10)}${row.p50.toFixed(2).padStart(10)}${row.p95.toFixed(2).padStart(10)}`,
    );
  }
}

async function dockerExec(docker: Docker, containerId: string, argv: string[]): Promise<void> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: "1000:1000" });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve, reject) => {
    stream.on("end", () => resolve());
    stream.on("error", reject);
    stream.resume();
  });
}

// A local upstream for the egress figures, reached as bench.example.com through the host map.
const BIG_BODY = Buffer.alloc(50 * 1024 * 1024, 97);
const upstream = http.createServer((request, response) => {
  if (request.url === "/big") response.end(BIG_BODY);
  else response.end("ok");
});
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamPort = (upstream.address() as AddressInfo).port;

const instance = `bench-${randomBytes(4).toString("hex")}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-"));
const config = loadConfig({
  ...process.env,
  EMULATOR_INSTANCE: instance,
  EMULATOR_DATA_DIR: dataDir,
  PORT: "0",
  EMULATOR_EGRESS_HOST_MAP: `bench.example.com=127.0.0.1:${upstreamPort}`,
});
const runtime = dockerRuntimeFor(config);
await runtime.prepare((line) => console.log(line));
const docker = new Docker();

try {
  const handle = await runtime.create({ environmentId: "env_bench", owner: "bench", files: [] });
  const channel = await runtime.connect(handle);
  const run = (argv: string[]) => channel.run({ argv, timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
  table("One command in a running sandbox", [
    await measure("executor channel: run `true`", 200, () => run(["true"])),
    await measure("docker exec per call: `true`", 30, () => dockerExec(docker, handle.sandboxId, ["true"])),
    await measure("executor channel: run `cat` of a 1 MiB file", 50, async () => {
      await run(["bash", "-c", "head -c 1048576 /dev/zero > /tmp/m; cat /tmp/m"]);
    }),
  ]);
  await channel.writeFile("/workspace/small.txt", Buffer.from("hello"));
  table("One file operation in a running sandbox", [
    await measure("executor channel: readFile (5 bytes)", 500, () => channel.readFile("/workspace/small.txt", 1024)),
    await measure("executor channel: writeFile (5 bytes)", 500, () => channel.writeFile("/workspace/w.txt", Buffer.from("hello"))),
    await measure("docker exec per call: cat (5 bytes)", 30, () => dockerExec(docker, handle.sandboxId, ["cat", "/workspace/small.txt"])),
  ]);

  // What separating the identities costs (docs/security.md#who-runs-what-in-a-sandbox): commands started
  // as another user (a setuid spawn), file operations through the file worker (two more pipe hops).
  // Two fresh executors with the same history: one that has forwarded a lot of output forks more slowly
  // (its heap has grown), whoever it runs as.
  const separated = await runtime.connect(handle);
  const unseparated = await unseparatedChannel(docker, handle.sandboxId);
  const pairs = [
    await measurePair(
      200,
      {
        label: "run `true`: as root, setuid to the sandbox user",
        once: () => separated.run({ argv: ["true"], timeoutMs: 10_000, maxOutputBytes: 1 << 20 }),
      },
      {
        label: "run `true`: executor as the sandbox user",
        once: () => unseparated.run({ argv: ["true"], timeoutMs: 10_000, maxOutputBytes: 1 << 20 }),
      },
    ),
    await measurePair(
      500,
      { label: "readFile (5 bytes): through the file worker", once: () => separated.readFile("/workspace/small.txt", 1024) },
      { label: "readFile (5 bytes): in the executor itself", once: () => unseparated.readFile("/workspace/small.txt", 1024) },
    ),
    await measurePair(
      500,
      {
        label: "writeFile (5 bytes): through the file worker",
        once: () => separated.writeFile("/workspace/w.txt", Buffer.from("hello")),
      },
      {
        label: "writeFile (5 bytes): in the executor itself",
        once: () => unseparated.writeFile("/workspace/w2.txt", Buffer.from("hello")),
      },
    ),
  ];
  table("Separated identities (as now) vs the executor as the sandbox user (as before), measured in turns", pairs.flat());
  separated.close();
  unseparated.close();
  channel.close();

  const sources = Array.from({ length: 50 }, (_, i) => ({
    path: `/workspace/src/f${i}.txt`,
    content: Buffer.from(`file ${i}`),
    mode: 0o644,
  }));
  let n = 0;
  table("A new environment", [
    await measure("create + 50 sources + start + channel ping", 8, async () => {
      const created = await runtime.create({ environmentId: `env_benchnew${n++}`, owner: "bench", files: sources });
      const fresh = await runtime.connect(created);
      fresh.close();
      await runtime.remove(created);
    }),
  ]);

  const emulator = await startEmulator({ ...config, HOST: "127.0.0.1" }, { runtime, progress: () => undefined });
  const ai = new GoogleGenAI({ apiKey: "bench", httpOptions: { baseUrl: emulator.url } });
  const first = await ai.interactions.create({
    agent: "antigravity-preview-05-2026",
    input: "Run `true`",
    environment: { type: "remote" },
  });
  const rssBefore = process.memoryUsage().rss;
  table("A whole interaction through the SDK (HTTP, store, agent, sandbox)", [
    await measure("reused environment: write, run, read", 50, () =>
      ai.interactions.create({
        agent: "antigravity-preview-05-2026",
        input: "create `/workspace/x.txt` containing 'x', then run `cat /workspace/x.txt`, then read it back",
        environment: first.environment_id!,
      }),
    ),
    await measure("new environment: run `true`", 8, () =>
      ai.interactions.create({ agent: "antigravity-preview-05-2026", input: "Run `true`", environment: { type: "remote" } }),
    ),
    await measure("no tool call", 200, () => ai.interactions.create({ agent: "antigravity-preview-05-2026", input: "hello" })),
  ]);
  console.log(`\nserver process RSS growth over those interactions: ${((process.memoryUsage().rss - rssBefore) / 1048576).toFixed(1)} MiB`);

  const curl = (code: string) =>
    ai.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: `\`\`\`tool_calls\n${JSON.stringify([{ name: "code_execution", args: { code } }])}\n\`\`\``,
      environment: first.environment_id!,
    });
  table("Egress through the proxy (curl in the sandbox, via the executor channel, the gateway and the proxy)", [
    await measure("run `true` (baseline: the interaction itself)", 20, () => curl("true")),
    await measure("curl a small HTTP response", 20, () => curl("curl -sS http://bench.example.com/")),
    await measure("curl 50 MiB over HTTP", 5, () => curl("curl -sS -o /dev/null http://bench.example.com/big")),
  ]);
  await emulator.close();
} finally {
  for (const handle of await runtime.list()) await runtime.remove(handle);
  fs.rmSync(dataDir, { recursive: true, force: true });
  upstream.close();
}
