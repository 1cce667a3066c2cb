// Issue 17, cases 3 and 4, scaled down, against the emulator as `npm start` starts it with a real Docker
// sandbox: an interaction whose calls print more than its output bound (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES,
// set low here) stores the bound and cuts the rest with a note; it stays readable by the official SDK,
// and stream readers that never read leave the emulator's memory bounded, with /health answering within
// 1 s throughout.

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "bounded-streams-e2e";
const MiB = 1024 * 1024;
const BOUND = 8 * MiB;
const CALLS = 12;

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

interface Step {
  type: string;
  result?: string;
}

before(async () => {
  // The memory of the emulator as users run it: the contract check (on in npm test) parses and checks
  // every event again for every reader, which is the test harness's memory, not the emulator's.
  emulator = await startEmulatorProcess({
    EMULATOR_MAX_INTERACTION_OUTPUT_BYTES: String(BOUND),
    EMULATOR_POOL_SIZE: "0",
    EMULATOR_CONTRACT_CHECK: "false",
  });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

function silentReader(url: string, path: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nx-goog-api-key: ${KEY}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

describe("an interaction whose calls print past its output bound (real sandbox)", () => {
  it("stores the bound, stays readable by the SDK, and silent stream readers stall nothing", async () => {
    const print = { name: "code_execution", args: { code: "head -c 1048576 /dev/zero | tr '\\0' o", language: "bash" } };
    const input = `\`\`\`tool_calls\n${JSON.stringify(Array.from({ length: CALLS }, () => print))}\n\`\`\``;
    const created = await ai.interactions.create({ agent: AGENT, input, background: true });
    let interaction = (await ai.interactions.get(created.id!)) as { status?: string; steps?: Step[] };
    for (let waited = 0; interaction.status === "in_progress" && waited < 120; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      interaction = (await ai.interactions.get(created.id!)) as typeof interaction;
    }
    assert.equal(interaction.status, "completed");
    const results = (interaction.steps ?? []).filter((step) => step.type === "code_execution_result");
    assert.equal(results.length, CALLS);
    const kept = results.reduce((sum, step) => sum + Buffer.byteLength((step.result ?? "").replace(/\n\[truncated: [^\]]*\]$/, "")), 0);
    assert.equal(kept, BOUND);
    assert.equal(results[0]?.result, "o".repeat(MiB));
    assert.match(
      results.at(-1)?.result ?? "",
      /^\n\[truncated: kept 0 of 1048576 bytes; this interaction's results reached 8388608 bytes in all/,
    );

    const before = rssMiB(emulator.pid);
    let peak = before;
    const sockets: net.Socket[] = [];
    await withoutStalls(
      emulator.url,
      { healthMs: HOSTILE_INPUT_BOUNDS.healthMs },
      async () => {
        for (let index = 0; index < 20; index++)
          sockets.push(await silentReader(emulator.url, `/v1beta/interactions/${created.id}?stream=true`));
        for (let round = 0; round < 3; round++) {
          const read = (await ai.interactions.get(created.id!)) as { steps?: Step[] };
          assert.equal(read.steps?.length, interaction.steps?.length);
          peak = Math.max(peak, rssMiB(emulator.pid));
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
        peak = Math.max(peak, rssMiB(emulator.pid));
      },
      { what: "20 silent stream readers and the SDK's get" },
    );
    for (const socket of sockets) socket.destroy();
    assert.ok(peak - before < 250, `the emulator's RSS grew by ${Math.round(peak - before)} MiB (from ${Math.round(before)} MiB)`);
  });
});
