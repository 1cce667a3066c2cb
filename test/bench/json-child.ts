// A benchmark step run in a Node.js process of its own (its client kept out of the benchmark's heap):
// the script gets its job as JSON in argv[2] and writes its outcome as JSON on stdout, then exits 0.

import { spawn } from "node:child_process";
import { withDeadline } from "./bounded.js";

/** Runs `script` with `job`; its outcome, or a rejection naming `what` (its exit and stderr, or the deadline). */
export function runJsonChild<T>(script: string, job: unknown, what: string, deadlineMs: number): Promise<T> {
  const child = spawn(process.execPath, [script, JSON.stringify(job)], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<T>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`${what}: the client exited ${code}: ${stderr.slice(0, 500)}`));
      resolve(JSON.parse(stdout) as T);
    });
  });
  return withDeadline(ended, deadlineMs, what).finally(() => child.kill("SIGKILL"));
}
