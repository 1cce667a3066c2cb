// `/health` sampled while other work runs (issue 31: "within 100 ms throughout"): one request every
// `everyMs` on a connection of its own, each timed from request to the end of its answer.

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
 * What the emulator's /health waits for (its engine probe, engine-gate.ts): the engine's version and one
 * container's inspect, asked the same way from here, every `everyMs`.
 */
export function sampleEngineProbe(docker: Docker, containerId: string, everyMs = 50): { stop: () => Promise<number[]> } {
  return sampleEvery(async () => {
    await docker.version();
    await docker.getContainer(containerId).inspect();
  }, everyMs);
}

export function sampleHealth(baseUrl: string, everyMs = 50): { stop: () => Promise<number[]> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const request = http.get(new URL("/health", baseUrl), { agent }, (response) => {
        response.resume();
        response.on("end", () => resolve());
        response.on("error", reject);
      });
      request.on("error", reject);
    });
  return sampleEvery(once, everyMs, () => agent.destroy());
}
