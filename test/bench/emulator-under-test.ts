// An emulator process for the benchmark, started as `npm start` starts it (test/support/emulator-process.ts),
// with what the benchmark needs around it: its API on a kept-alive client, its memory, the containers of
// its instance (sandboxes and warm pool alike), and a clean-up that leaves nothing behind.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { ApiClient } from "./api-client.js";

export class EmulatorUnderTest {
  private readonly clients: ApiClient[] = [];

  private constructor(
    readonly process: EmulatorProcess,
    private readonly docker: Docker,
  ) {}

  static async start(settings: Record<string, string>): Promise<EmulatorUnderTest> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-"));
    return new EmulatorUnderTest(await startEmulatorProcess({ ...settings, EMULATOR_DATA_DIR: dataDir }), new Docker());
  }

  get instance(): string {
    return this.process.instance;
  }

  /** A client with its own API key (each key has its own environment quota). */
  client(apiKey: string): ApiClient {
    const client = new ApiClient(this.process.url, apiKey);
    this.clients.push(client);
    return client;
  }

  /** The emulator process's resident memory, MiB (from /proc, Linux). */
  rssMiB(): number {
    const status = fs.readFileSync(`/proc/${this.process.pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
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
