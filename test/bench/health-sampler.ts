// `/health` sampled while other work runs (issue 31: "within 100 ms throughout"): one request every
// `everyMs` on a connection of its own, from a thread of its own, each timed from request to the end of
// its answer; and the engine's answer to /health's own probe, sampled the same way from this thread.

import { Worker } from "node:worker_threads";
import type Docker from "dockerode";
import { sleep, withDeadline } from "./bounded.js";

/** Runs `once` every `everyMs` until stopped; the time of each (a failure or 30 s counts as 30 s). */
function sampleEvery(once: () => Promise<unknown>, everyMs: number): { stop: () => Promise<number[]> } {
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

// The prober: a thread of its own with its own event loop, so that a sample is not delayed by this
// process's main thread, which drives the load (hundreds of interactions' answers to read and parse).
// Each sample: the time of one GET /health (a failure or 30 s counts as 30 s), how long the emulator's
// event-loop thread waited for a core meanwhile, and how long this thread did (both from schedstat).
const PROBER = `
const { workerData, parentPort } = require("node:worker_threads");
const http = require("node:http");
const fs = require("node:fs");
const { url, pid, everyMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const waited = (file) => { try { return Number(fs.readFileSync(file, "utf8").split(" ")[1]) / 1e6 || 0; } catch { return 0; } };
const emulatorWaited = () => (pid > 0 ? waited("/proc/" + pid + "/schedstat") : 0);
const once = () => new Promise((resolve) => {
  const request = http.get(url, { agent, timeout: 30000 }, (response) => {
    response.resume();
    response.on("end", () => resolve(response.statusCode === 200));
    response.on("error", () => resolve(false));
  });
  request.on("timeout", () => request.destroy());
  request.on("error", () => resolve(false));
});
let running = true;
parentPort.once("message", () => { running = false; });
(async () => {
  const samples = [];
  while (running) {
    const emulatorBefore = emulatorWaited();
    const ownBefore = waited("/proc/thread-self/schedstat");
    const start = process.hrtime.bigint();
    const ms = (await once()) ? Number(process.hrtime.bigint() - start) / 1e6 : 30000;
    samples.push([ms, Math.max(0, emulatorWaited() - emulatorBefore), Math.max(0, waited("/proc/thread-self/schedstat") - ownBefore)]);
    if (samples.length === 1) parentPort.postMessage("ready");
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - ms)));
  }
  agent.destroy();
  parentPort.postMessage({ samples });
})();`;

export interface HealthSamples {
  /** Each sample's time, request to the end of its answer. */
  times: number[];
  /** How long the emulator's event loop waited for a core during each sample (0 where /proc cannot be read). */
  coreWaits: number[];
  /** How long the prober's own thread waited for a core during each sample. */
  proberWaits: number[];
}

/**
 * `/health` every `everyMs`, on a connection of its own, from a thread of its own (PROBER). With the
 * emulator's `pid`, also how long its main thread (the event loop) waited for a core during each sample:
 * what the machine's cores, not the emulator's work, added to that sample. `ready` settles once the
 * thread has started and taken its first sample: a measurement that starts after it does not count the
 * thread's own start (a new V8 isolate, tens of ms of CPU) as its work.
 */
export function sampleHealth(baseUrl: string, pid?: number, everyMs = 50): { ready: Promise<void>; stop: () => Promise<HealthSamples> } {
  const worker = new Worker(PROBER, { eval: true, workerData: { url: new URL("/health", baseUrl).href, pid: pid ?? 0, everyMs } });
  let started: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    started = resolve;
  });
  const samples = new Promise<Array<[number, number, number]>>((resolve, reject) => {
    worker.on("message", (message: "ready" | { samples: Array<[number, number, number]> }) => {
      if (message === "ready") started();
      else resolve(message.samples);
    });
    worker.once("error", reject);
  });
  // A thread that failed, or was stopped before its first sample, is not waited for.
  void samples.then(started, started);
  return {
    ready,
    stop: async () => {
      worker.postMessage("stop");
      const taken = await samples;
      await worker.terminate();
      return {
        times: taken.map(([ms]) => ms),
        coreWaits: taken.map(([, wait]) => wait),
        proberWaits: taken.map(([, , own]) => own),
      };
    },
  };
}
