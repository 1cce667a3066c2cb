// `/health` sampled while other work runs (issue 31: "within 100 ms throughout"): one request every
// `everyMs` on a connection of its own, each timed from request to the end of its answer.

import fs from "node:fs";
import http from "node:http";
import type Docker from "dockerode";
import { sleep, withDeadline } from "./bounded.js";

/** Runs `once` every `everyMs` until stopped; the time of each (a failure or 30 s counts as 30 s). */
function sampleEvery(
  once: () => Promise<unknown>,
  everyMs: number,
  cleanUp: () => void = () => undefined,
): { stop: () => Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const start = process.hrtime.bigint();
      const ms = await withDeadline(once(), 30_000, "a sample")
        .then(() => Number(process.hrtime.bigint() - start) / 1e6)
        .catch(() => 30_000);
      times.push(ms);
      await sleep(Math.max(0, everyMs - ms));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      cleanUp();
      return times;
    },
  };
}

/**
 * How often the engine's answer to /health's probe is sampled. Every 50 ms (as /health itself) it cost
 * the engine 0.33–0.37 ms of CPU per completed tool call at 10 and 50 at once, on the cores the
 * throughput line divides: this benchmark's own work, not the emulator's. Every 250 ms still catches a
 * slow answer within each level.
 */
export const ENGINE_PROBE_EVERY_MS = 250;

/**
 * What the emulator's /health waits for (its engine probe, engine-gate.ts): the engine's version and one
 * container's inspect, asked the same way from here, every `everyMs`.
 */
export function sampleEngineProbe(docker: Docker, containerId: string, everyMs = ENGINE_PROBE_EVERY_MS): { stop: () => Promise<number[]> } {
  return sampleEvery(async () => {
    await docker.version();
    await docker.getContainer(containerId).inspect();
  }, everyMs);
}

/**
 * `/health` every `everyMs`. With the emulator's `pid`, also how long its main thread (the event loop)
 * waited for a core during each sample, from /proc/<pid>/schedstat (runnable, not running): what the
 * machine's cores, not the emulator's work, added to that sample. 0 where /proc cannot be read.
 */
export function sampleHealth(
  baseUrl: string,
  pid?: number,
  everyMs = 50,
): { stop: () => Promise<{ times: number[]; coreWaits: number[] }> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const coreWaits: number[] = [];
  const request = () =>
    new Promise<void>((resolve, reject) => {
      const request = http.get(new URL("/health", baseUrl), { agent }, (response) => {
        response.resume();
        response.on("end", () => resolve());
        response.on("error", reject);
      });
      request.on("error", reject);
    });
  const once = async () => {
    const before = coreWaitMs(pid);
    try {
      await request();
    } finally {
      coreWaits.push(Math.max(0, coreWaitMs(pid) - before));
    }
  };
  const sampler = sampleEvery(once, everyMs, () => agent.destroy());
  return { stop: async () => ({ times: await sampler.stop(), coreWaits }) };
}

/** The run-queue wait of a process's main thread so far, in ms (schedstat's second field, ns); 0 without /proc. */
function coreWaitMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e6 || 0;
  } catch {
    return 0;
  }
}
