// The store's write-ahead log is checkpointed by a worker thread, not by the event loop
// (server/store/wal-checkpointer.ts, docs/architecture.md#state), on an emulator in this process with
// a fake sandbox runtime whose read_file answers 1 MiB: each such interaction stores 1 MiB.
//
// Before: SQLite's automatic checkpoint ran in the emulator's own connection inside the commit that took
// the log past 1,000 pages (4 MiB), holding the event loop about 10 ms every 4 MiB stored; the database
// file grew as the tool results were stored. Now the emulator's connection checkpoints only at
// EMULATOR_STORE_WAL_MAX_MB (the bound, should the thread fall behind), and what is committed stays in
// the log until the thread copies it, durable meanwhile: a crash loses nothing.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { STORE_FILE_NAME } from "../../server/store/database.js";
import { type FakeRuntimeEmulator, startFakeRuntimeEmulator } from "../support/fake-runtime.js";
import { postInteraction } from "../support/post-interaction.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "store-checkpoints-key";
const MIB = 1024 * 1024;
/** A checkpoint interval no test outlasts: the thread never checkpoints. */
const NEVER_MS = "3600000";
const READ_1MIB = `\`\`\`tool_calls\n${JSON.stringify([{ name: "read_file", args: { path: "/workspace/1mib.txt" } }])}\n\`\`\``;

const sizeOf = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const storeFile = (dataDir: string): string => path.join(dataDir, STORE_FILE_NAME);
const walFile = (dataDir: string): string => `${storeFile(dataDir)}-wal`;

/** An environment whose fake sandbox holds /workspace/1mib.txt, 1 MiB of one letter. */
async function environmentWith1MiB(emulator: FakeRuntimeEmulator): Promise<string> {
  const response = await fetch(`${emulator.url}/v1beta/environments`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": KEY },
    body: JSON.stringify({ sources: [] }),
  });
  const id = ((await response.json()) as { id: string }).id;
  const channel = emulator.runtime.channels.get(id);
  assert.ok(channel, "the environment's fake sandbox");
  channel.files.set("/workspace/1mib.txt", "r".repeat(MIB));
  return id;
}

/** `count` interactions one after another, each reading the 1 MiB file; their IDs. */
async function read1MiB(emulator: FakeRuntimeEmulator, environment: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let run = 0; run < count; run++) {
    const { status, body } = await postInteraction(emulator.url, KEY, { input: READ_1MIB, environment });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    ids.push(body.id as string);
  }
  return ids;
}

/** Each interaction read back (from the store of a restarted emulator) carries its 1 MiB result whole. */
async function assertResultsIntact(url: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const response = await fetch(`${url}/v1beta/interactions/${id}`, { headers: { "x-goog-api-key": KEY } });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { status: string; steps: Array<{ result?: unknown }> };
    assert.equal(body.status, "completed");
    const results = body.steps.map((step) => step.result).filter((result) => typeof result === "string");
    assert.ok(
      results.some((result) => result === "r".repeat(MIB)),
      `interaction ${id} answers its 1 MiB result whole after the restart`,
    );
  }
}

describe("the store's write-ahead log is checkpointed off the event loop", () => {
  const dataDirs: string[] = [];
  const running: FakeRuntimeEmulator[] = [];
  const start = async (env: Record<string, string>): Promise<FakeRuntimeEmulator> => {
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_POOL_SIZE: "0", ...env });
    running.push(emulator);
    return emulator;
  };
  const newDataDir = (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-checkpoints-"));
    dataDirs.push(dir);
    return dir;
  };
  /** Stops `emulator` and starts another on its data folder, which must read every one of `ids` back whole. */
  const assertIntactAfterRestart = async (emulator: FakeRuntimeEmulator, dataDir: string, ids: readonly string[]): Promise<void> => {
    running.splice(running.indexOf(emulator), 1);
    await emulator.close();
    const again = await start({ EMULATOR_DATA_DIR: dataDir });
    await assertResultsIntact(again.url, ids);
  };
  after(async () => {
    for (const emulator of running) await emulator.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("stores 12 MiB of tool results without the emulator's connection checkpointing them (below the log's limit)", async () => {
    const dataDir = newDataDir();
    const emulator = await start({ EMULATOR_DATA_DIR: dataDir, EMULATOR_STORE_CHECKPOINT_MS: NEVER_MS });
    const environment = await environmentWith1MiB(emulator);
    // The first interaction loads and compiles what an interaction runs (a few hundred ms on the event
    // loop, nothing to do with the store): it runs before the watch.
    const warmUp = await read1MiB(emulator, environment, 1);
    const before = sizeOf(storeFile(dataDir));
    const { result: watched } = await withoutStalls(emulator.url, HOSTILE_INPUT_BOUNDS, () => read1MiB(emulator, environment, 12), {
      inProcess: true,
      what: "12 interactions storing 1 MiB each",
    });
    // The thread never ran: had the event loop checkpointed (every 4 MiB before), the file would hold them.
    assert.ok(
      sizeOf(storeFile(dataDir)) - before < 2 * MIB,
      `the database file grew by ${sizeOf(storeFile(dataDir)) - before} bytes: the emulator's connection checkpointed`,
    );
    assert.ok(sizeOf(walFile(dataDir)) >= 12 * MIB, "the 12 MiB are in the log");
    // Nothing was lost for not being checkpointed: a restarted emulator reads every result back.
    await assertIntactAfterRestart(emulator, dataDir, [...warmUp, ...watched]);
  });

  it("copies the log into the database file from its worker thread while the emulator writes", async () => {
    const dataDir = newDataDir();
    const emulator = await start({ EMULATOR_DATA_DIR: dataDir, EMULATOR_STORE_CHECKPOINT_MS: "20" });
    const environment = await environmentWith1MiB(emulator);
    const ids = await read1MiB(emulator, environment, 8);
    // Waits for an outcome, not a speed: the thread copies the 8 MiB into the file within its next ticks.
    for (let wait = 0; wait < 300 && sizeOf(storeFile(dataDir)) < 8 * MIB; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(sizeOf(storeFile(dataDir)) >= 8 * MIB, `the database file holds the 8 MiB (${sizeOf(storeFile(dataDir))} bytes)`);
    await assertIntactAfterRestart(emulator, dataDir, ids);
  });

  it("keeps the log within EMULATOR_STORE_WAL_MAX_MB when the thread does not keep up", async () => {
    const dataDir = newDataDir();
    const emulator = await start({ EMULATOR_DATA_DIR: dataDir, EMULATOR_STORE_CHECKPOINT_MS: NEVER_MS, EMULATOR_STORE_WAL_MAX_MB: "3" });
    const environment = await environmentWith1MiB(emulator);
    let largest = 0;
    const ids: string[] = [];
    for (let run = 0; run < 12; run++) {
      ids.push(...(await read1MiB(emulator, environment, 1)));
      largest = Math.max(largest, sizeOf(walFile(dataDir)));
    }
    // The limit, and at most one interaction's writes past it (its 1 MiB result with the pages around it).
    assert.ok(largest <= 5 * MIB, `the log reached ${largest} bytes (limit 3 MiB)`);
    assert.ok(sizeOf(storeFile(dataDir)) >= 8 * MIB, "past the limit, the emulator's connection checkpointed");
    await assertIntactAfterRestart(emulator, dataDir, ids);
  });

  it("loses no commit that was never checkpointed when the process is killed", async () => {
    const dataDir = newDataDir();
    // A process of its own that opens the store as the emulator does, commits 6 rows of 1 MiB with the
    // thread never checkpointing, says so, and waits to be killed (SIGKILL: no close, no last checkpoint).
    const database = new URL("../../server/store/database.js", import.meta.url).href;
    const checkpointer = new URL("../../server/store/wal-checkpointer.js", import.meta.url).href;
    const script = `
      import { openDatabase } from ${JSON.stringify(database)};
      import { startWalCheckpointer } from ${JSON.stringify(checkpointer)};
      const db = openDatabase(${JSON.stringify(dataDir)});
      startWalCheckpointer(db, { intervalMs: ${NEVER_MS}, walLimitBytes: 64 * 1024 * 1024, warn: console.error });
      db.exec("CREATE TABLE crash_probe (n INTEGER PRIMARY KEY, body TEXT NOT NULL)");
      const insert = db.prepare("INSERT INTO crash_probe (n, body) VALUES (?, ?)");
      for (let n = 0; n < 6; n++) insert.run(n, String(n).repeat(${MIB}));
      console.log("committed");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("committed")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`the writer exited with ${code} before committing`)));
      });
      assert.ok(sizeOf(walFile(dataDir)) >= 6 * MIB, "the rows are in the log, not checkpointed");
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    const db = new Database(storeFile(dataDir), { readonly: false });
    try {
      const rows = db.prepare("SELECT n, body FROM crash_probe ORDER BY n").all() as Array<{ n: number; body: string }>;
      assert.deepEqual(
        rows.map((row) => row.n),
        [0, 1, 2, 3, 4, 5],
      );
      for (const row of rows) assert.equal(row.body, String(row.n).repeat(MIB));
    } finally {
      db.close();
    }
  });
});
