// `/health` sampled while other work runs (issue 31: "within 100 ms throughout"): one request every
// `everyMs` on a connection of its own, each timed from request to the end of its answer.

import http from "node:http";
import { sleep } from "./bounded.js";

export function sampleHealth(baseUrl: string, everyMs = 50): { stop: () => Promise<number[]> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let running = true;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const start = process.hrtime.bigint();
      const request = http.get(new URL("/health", baseUrl), { agent, timeout: 30_000 }, (response) => {
        response.resume();
        response.on("end", () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
        response.on("error", reject);
      });
      request.on("timeout", () => request.destroy(new Error("/health did not answer within 30 s")));
      request.on("error", reject);
    });
  const loop = (async () => {
    while (running) {
      const ms = await once().catch(() => 30_000);
      times.push(ms);
      await sleep(Math.max(0, everyMs - ms));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return times;
    },
  };
}
