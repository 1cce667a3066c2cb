// End to end, issue 17's cases 1 and 2 against the emulator started as `npm start` starts it, with the
// official @google/genai SDK as the client and the stall detector watching /health from outside the
// process (the 1 s, with a margin for a loaded 2-core machine: 2.5 s): the schemas of case 1
// are a 400 at once; a hostile MCP server
// built with the MCP SDK on loopback (tool names of 256 KiB, always a nextCursor) costs three
// interactions an is_error result each, with the emulator alive and its peak memory (VmHWM in
// /proc/<pid>/status) bounded. A smaller list bound than the default keeps the test's own traffic small.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { type HostileMcpServer, startHostileMcpServer, toolsWithLongNames } from "../support/hostile-mcp-server.js";
import { HUGE_MIN_PROPERTIES, jsonFormat, LARGE_MIN_PROPERTIES } from "../support/hostile-schemas.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const AGENT = "antigravity-preview-05-2026";
const LIST_BYTES = 4 * 1024 * 1024;
/** Peak memory the three hostile interactions may add to the emulator's (before the fix: gigabytes, then a crash). */
const MAX_GROWTH_MB = 256;

let emulator: EmulatorProcess;
let ai: GoogleGenAI;
let hostile: HostileMcpServer;

before(async () => {
  hostile = await startHostileMcpServer({
    listPage: (page) => ({ tools: toolsWithLongNames(page, 15, 256 * 1024), nextCursor: `next-${page + 1}` }),
  });
  emulator = await startEmulatorProcess({ EMULATOR_MCP_MAX_LIST_BYTES: String(LIST_BYTES) });
  ai = new GoogleGenAI({ apiKey: "bounded-work-e2e", httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
  await hostile?.close();
});

/** A field of /proc/<pid>/status in MiB (VmRSS: resident now; VmHWM: the peak so far). */
function memoryMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  assert.ok(match, `${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
type AnyStep = Record<string, any>;

describe("bounded work, end to end", () => {
  for (const [name, schema] of [
    ["minProperties 10^8", HUGE_MIN_PROPERTIES],
    ["minProperties 10^7", LARGE_MIN_PROPERTIES],
  ] as const) {
    it(`refuses a response_format schema of ${name} with a 400 at once, /health answering throughout`, async () => {
      const { result } = await withoutStalls(
        emulator.url,
        { healthMs: HOSTILE_INPUT_BOUNDS.healthMs },
        async () => {
          try {
            await ai.interactions.create({ agent: AGENT, input: "answer", response_format: jsonFormat(schema) } as never);
          } catch (error) {
            return error as Error & { status?: number };
          }
          assert.fail("expected a 400");
        },
        { what: name },
      );
      assert.equal(result.status, 400, String(result));
      assert.match(
        result.message,
        /minProperties asks for \d+ properties, more than the 10000 values an answer may hold \(EMULATOR_MAX_ANSWER_VALUES\)/,
      );
    });
  }

  it("answers three interactions with a hostile MCP server with is_error results, alive and in bounded memory", async () => {
    const startMb = memoryMb(emulator.pid, "VmRSS");
    await withoutStalls(
      emulator.url,
      { healthMs: HOSTILE_INPUT_BOUNDS.healthMs },
      async () => {
        for (let round = 1; round <= 3; round++) {
          const interaction = await ai.interactions.create({
            agent: AGENT,
            input: script([{ server: "hostile", name: "not_listed", args: {} }]),
            tools: [{ type: "mcp_server", name: "hostile", url: hostile.url }],
          } as never);
          assert.equal(interaction.status, "completed");
          const result = ((interaction.steps ?? []) as AnyStep[]).find((step) => step.type === "mcp_server_tool_result");
          assert.equal(result?.is_error, true);
          assert.match(String(result?.result), /\(EMULATOR_MCP_MAX_LIST_BYTES\), so the emulator stopped reading them\.$/);
        }
      },
      { what: "three interactions with a hostile MCP server" },
    );
    const peakMb = memoryMb(emulator.pid, "VmHWM");
    assert.ok(peakMb - startMb < MAX_GROWTH_MB, `the emulator's peak memory grew from ${Math.round(startMb)} to ${Math.round(peakMb)} MiB`);
    assert.equal((await fetch(`${emulator.url}/health`)).status, 200, "the emulator is alive");
    // It stopped reading at the bound: a few pages a run, not 100 pages of 3.75 MiB.
    assert.ok(hostile.pagesServed() <= 3 * 3, `the server served ${hostile.pagesServed()} pages`);
  });
});
