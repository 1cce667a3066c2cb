// An emulator process for the benchmark, started as `npm start` starts it (test/support/emulator-process.ts),
// with what the benchmark needs around it: its API on a kept-alive client, its memory, the containers of
// its instance (sandboxes and warm pool alike), and a clean-up that leaves nothing behind.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { LABEL_ENVIRONMENT, LABEL_INSTANCE, LABEL_POOLED } from "../../server/sandbox/docker/labels.js";
import type { PoolState } from "../../server/sandbox/sandbox-pool.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { ApiClient } from "./api-client.js";

export class EmulatorUnderTest {
  private readonly clients: ApiClient[] = [];

  private constructor(
    readonly process: EmulatorProcess,
    private readonly docker: Docker,
  ) {}

  /**
   * `memoryProbe`: load memory-probe.ts into the process, so memoryAfterCollection() can read what it
   * keeps; the one difference from `npm start`, for the emulator that measures memory.
   */
  static async start(settings: Record<string, string>, options: { memoryProbe?: boolean } = {}): Promise<EmulatorUnderTest> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-"));
    const probe: Record<string, string> = options.memoryProbe
      ? {
          NODE_OPTIONS:
            `${process.env["NODE_OPTIONS"] ?? ""} --import ${fileURLToPath(new URL("./memory-probe.js", import.meta.url))}`.trim(),
          BENCH_MEMORY_FILE: path.join(dataDir, "bench-memory.json"),
        }
      : {};
    return new EmulatorUnderTest(await startEmulatorProcess({ ...settings, ...probe, EMULATOR_DATA_DIR: dataDir }), new Docker());
  }

  get instance(): string {
    return this.process.instance;
  }

  /** A client with its own API key (each key has its own environment quota). */
  client(apiKey: string, maxSockets?: number): ApiClient {
    const client = new ApiClient(this.process.url, apiKey, maxSockets);
    this.clients.push(client);
    return client;
  }

  /**
   * The emulator's memory right after a full garbage collection (MiB), through memory-probe.ts: the
   * process must have been started with `memoryProbe`.
   */
  async memoryAfterCollection(): Promise<{ rssMiB: number; heapUsedMiB: number }> {
    const file = this.process.env["BENCH_MEMORY_FILE"];
    if (!file) throw new Error("this emulator was started without the memory probe");
    fs.rmSync(file, { force: true });
    process.kill(this.process.pid, "SIGUSR2");
    for (let wait = 0; wait < 100 && !fs.existsSync(file); wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    const usage = JSON.parse(fs.readFileSync(file, "utf8")) as NodeJS.MemoryUsage;
    return { rssMiB: usage.rss / 1048576, heapUsedMiB: usage.heapUsed / 1048576 };
  }

  /**
   * The warm pool as GET /health reports it (size, and ready: started, channel open, takeable now), or
   * null when the answer has no pool (a build without one, or the pool turned off).
   */
  pool(): Promise<PoolState | null> {
    return this.process.pool();
  }

  /**
   * Waits until the warm pool makes nothing and holds its target (or there is none): a pool that grew
   * while environments were created refills in the background, and its containers' creation (the
   * engine's work, on the same cores) would be measured as the interactions' own.
   */
  async poolSettled(deadlineMs: number): Promise<void> {
    for (const deadline = Date.now() + deadlineMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const state = await this.pool();
      if (state === null || (state.filling === 0 && state.naming === 0 && state.ready >= state.target)) return;
    }
    throw new Error(`the warm pool did not settle within ${deadlineMs / 1000} s`);
  }

  /** Whether the sandbox of `environmentId` was a warm pool container ("true"/"false"), or undefined when its labels do not say. */
  async pooledLabelOf(environmentId: string): Promise<string | undefined> {
    const containers = await this.docker.listContainers({ all: true, filters: { label: [`${LABEL_INSTANCE}=${this.instance}`] } });
    const container = containers.find(
      (info) => info.Labels[LABEL_ENVIRONMENT] === environmentId || info.Names.includes(`/iemu-${this.instance}-${environmentId}`),
    );
    return container?.Labels[LABEL_POOLED];
  }

  /** Running containers of this emulator's instance: its sandboxes and, where there is one, its warm pool. */
  async runningContainers(): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ filters: { label: [`${LABEL_INSTANCE}=${this.instance}`], status: ["running"] } });
  }

  /**
   * Waits until the number of running containers satisfies `wanted` and has not changed for `steadyMs`;
   * gives up after `timeoutMs`. The count reached (or the last one seen) and whether it held.
   */
  async settleContainers(
    wanted: (count: number) => boolean,
    steadyMs: number,
    timeoutMs: number,
  ): Promise<{ count: number; held: boolean }> {
    const deadline = Date.now() + timeoutMs;
    let last = -1;
    let since = Date.now();
    for (;;) {
      const count = (await this.runningContainers()).length;
      if (count !== last) {
        last = count;
        since = Date.now();
      }
      if (wanted(count) && Date.now() - since >= steadyMs) return { count, held: true };
      if (Date.now() > deadline) return { count, held: false };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Stops the emulator and removes everything of its instance (containers, volumes, its data folder). */
  async destroy(): Promise<void> {
    for (const client of this.clients) client.close();
    await this.process.destroy();
  }
}
