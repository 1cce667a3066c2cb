// Issue 21's warm start: `npm start` (server/bootstrap/cli.mjs start, as the script runs it) with nothing
// changed since the last one, from the spawn to the first /health that answers 200, against the same
// spawn-and-poll of a bare express server answering /health (Node.js starting, express loading, a
// listen): the floor any Node.js server has on this machine now. Run in turns, so both see the same
// load. The starts share one data folder, made by the first (uncounted) one, so each counted start
// finds its store, its CA and its instance as the last one left them; each is stopped with Ctrl-C
// (SIGINT to its process group, as a terminal sends it); the folder is removed at the end and what it
// left on the engine by the run's final sweep.

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/common/config.js";
import { projectRoot } from "../../server/common/paths.js";
import { freePort } from "../support/compose-stack.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { summarize } from "./stats.js";

const ROUNDS = 3;
/** A start that takes longer is a failure of the run, not a figure. */
const START_DEADLINE_MS = 120_000;

const BARE_SERVER = `
const express = require("express");
const app = express();
app.get("/health", (_request, response) => { response.json({ status: "ok" }); });
app.listen(Number(process.env.PORT), "127.0.0.1");`;

export interface WarmStartBookkeeping {
  /** Instance labels and data folders to sweep at the end of the run. */
  instances: string[];
  dataDirs: string[];
  /** The process groups started and not yet ended: an interrupted run stops them (stopGroup) before its sweep. */
  groups: Set<number>;
}

/** Spawns `argv` in a group of its own; resolves with the ms until http://127.0.0.1:port/health answers 200. */
async function timeToHealthy(
  argv: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  groups: Set<number>,
): Promise<{ ms: number; child: ChildProcess }> {
  const started = process.hrtime.bigint();
  const child = spawn(argv[0]!, argv.slice(1), { cwd: projectRoot, env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  if (child.pid !== undefined) groups.add(child.pid);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
  while (elapsed() < START_DEADLINE_MS) {
    if (exited) throw new Error(`${argv.join(" ")} exited before answering /health:\n${stderr}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.status === 200) return { ms: elapsed(), child };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await stop(child, groups);
  throw new Error(`${argv.join(" ")} did not answer /health within ${START_DEADLINE_MS / 1000} s:\n${stderr}`);
}

/** Whether any process of the group is left. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ctrl-C to the group, then waits until every process of it has ended (KILL after 30 s): cli.mjs ends at
 * the signal at once, the emulator it started only once its shutdown has removed its pool's sandboxes
 * and its lease, which must be over before the run's sweep.
 */
export async function stopGroup(pgid: number): Promise<void> {
  if (groupAlive(pgid)) process.kill(-pgid, "SIGINT");
  for (let waited = 0; groupAlive(pgid); waited += 50) {
    if (waited === 30_000) process.kill(-pgid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(child: ChildProcess, groups: Set<number>): Promise<void> {
  await stopGroup(child.pid!);
  groups.delete(child.pid!);
}

async function warmStart(dataDir: string, groups: Set<number>): Promise<number> {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), EMULATOR_DATA_DIR: dataDir };
  const { ms, child } = await timeToHealthy([process.execPath, path.join("server", "bootstrap", "cli.mjs"), "start"], env, port, groups);
  await stop(child, groups);
  return ms;
}

async function bareExpress(groups: Set<number>): Promise<number> {
  const port = await freePort();
  const { ms, child } = await timeToHealthy([process.execPath, "-e", BARE_SERVER], { ...process.env, PORT: String(port) }, port, groups);
  await stop(child, groups);
  return ms;
}

export async function warmStartPart(book: FigureBook, bookkeeping: WarmStartBookkeeping, progress: (line: string) => void): Promise<void> {
  progress(`warm npm start vs a bare express server, until /health answers (${ROUNDS} rounds in turns, after one each uncounted)…`);
  // A warm start is one whose last start left everything as it is: one data folder for all of them.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-warm-"));
  bookkeeping.dataDirs.push(dataDir);
  bookkeeping.instances.push(loadConfig({ EMULATOR_DATA_DIR: dataDir }).EMULATOR_INSTANCE);
  // The uncounted first start makes the store and the CA, and builds whatever is not built (it should
  // be nothing: the bench was built).
  const { groups } = bookkeeping;
  await warmStart(dataDir, groups);
  await bareExpress(groups);
  const warm: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      warm.push(await warmStart(dataDir, groups));
      bare.push(await bareExpress(groups));
    } else {
      bare.push(await bareExpress(groups));
      warm.push(await warmStart(dataDir, groups));
    }
  }
  book.addTable("Warm start: from the spawn to the first /health that answers 200", [
    { ...summarize("npm start, warm (server/bootstrap/cli.mjs start; nothing changed)", warm), figure: FIGURE.warmStart },
    { ...summarize("a bare express server (node -e, express, listen)", bare), figure: FIGURE.bareExpressStart },
  ]);
}
