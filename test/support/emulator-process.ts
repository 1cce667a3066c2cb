// Starts the emulator the way `npm start` does (node dist/server/main.js), on a free port with its
// own data folder and instance name, and cleans up every container it made.

import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import { projectRoot } from "../../server/common/paths.js";
import type { PoolState } from "../../server/sandbox/sandbox-pool.js";

export interface EmulatorProcess {
  url: string;
  dataDir: string;
  instance: string;
  env: Record<string, string>;
  /** The emulator's process ID (its memory is in /proc/<pid>/status). */
  pid: number;
  /** Sandboxes (containers) of this emulator's environments; warm pool containers not yet taken are not counted. */
  sandboxCount(): Promise<number>;
  /** Container IDs of this emulator's warm pool sandboxes that no environment has taken. */
  pooledSandboxes(): Promise<string[]>;
  /**
   * Resolves once a running emulator names no taken pool container any more (it renames one just after
   * the take): from then on the engine finds every environment's container by its name.
   */
  namesSettled(): Promise<void>;
  /** The warm pool as /health reports it (ready: started, channel open, takeable now); null without a pool. */
  pool(): Promise<PoolState | null>;
  /** Stops the process but keeps data and containers (for restart tests). */
  stop(): Promise<void>;
  /** Kills the process with SIGKILL, as a crash would (no shutdown); keeps data and containers. */
  crash(): Promise<void>;
  /** Stops the process, removes its containers, its lease and its data folder. */
  destroy(): Promise<void>;
}

export async function startEmulatorProcess(extraEnv: Record<string, string> = {}, reuse?: EmulatorProcess): Promise<EmulatorProcess> {
  const dataDir = reuse?.dataDir ?? extraEnv.EMULATOR_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "emu-e2e-"));
  const instance =
    reuse?.instance ??
    `test-${path
      .basename(dataDir)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")}`;
  const env: Record<string, string> = {
    ...(reuse?.env ?? {}),
    ...extraEnv,
    PORT: "0",
    HOST: "127.0.0.1",
    EMULATOR_DATA_DIR: dataDir,
    EMULATOR_INSTANCE: instance,
  };
  const child = spawn(process.execPath, ["--enable-source-maps", path.join(projectRoot, "dist", "server", "main.js")], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await waitForListening(child);
  // With the emulator's lease settings, so destroy() can end a lease that a crash left behind.
  const runtime = dockerRuntimeFor(loadConfig({ ...process.env, ...env }), { lease: true });
  let stopped = false;
  const end = async (signal: NodeJS.Signals) => {
    if (stopped) return;
    stopped = true;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    await exited;
  };
  const stop = () => end("SIGTERM");
  const pool = async () => ((await (await fetch(`${url}/health`)).json()) as { pool?: PoolState }).pool ?? null;
  // The engine's listing, once a running emulator names no taken pool container any more: the name,
  // which tells a taken one from a waiting one, is given just after the take.
  const namesSettled = async () => {
    for (const deadline = Date.now() + 10_000; !stopped && Date.now() < deadline; await sleep(20)) {
      const naming = await pool().then(
        (state) => state?.naming ?? 0,
        () => 0,
      );
      if (naming === 0) return;
    }
  };
  const namedList = async () => {
    await namesSettled();
    return runtime.list();
  };
  return {
    url,
    dataDir,
    instance,
    env,
    pid: child.pid ?? -1,
    // An environment's containers only: the start-up probes run in the background after a start, and
    // their short-lived containers (labelled with no environment) come and go at any time.
    sandboxCount: async () => (await namedList()).filter((handle) => !handle.pooled && handle.environmentId !== "").length,
    pool,
    namesSettled,
    pooledSandboxes: async () => (await namedList()).filter((handle) => handle.pooled).map((handle) => handle.sandboxId),
    stop,
    crash: () => end("SIGKILL"),
    destroy: async () => {
      await stop();
      for (const handle of await runtime.list()) {
        // The engine may still be finishing a removal the emulator began before it stopped: it completes on its own.
        await runtime.remove(handle).catch((error: unknown) => {
          if (!/already in progress/.test(String(error))) throw error;
        });
      }
      await runtime.dropLease();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function waitForListening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        child.stdout?.off("data", onData);
        // Keep draining so a chatty server never blocks on a full pipe.
        child.stdout?.resume();
        resolve(match[1]!);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-20_000);
    });
    child.once("exit", (code) => reject(new Error(`emulator exited with ${code} before listening:\n${output}`)));
  });
}
