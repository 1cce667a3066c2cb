// Starts answer-server-child.ts: a bare Node.js server answering fixed bodies, the floor of handing a
// client an answer of a given size over HTTP on this machine (a line's bound, never the line itself).

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withDeadline } from "./bounded.js";

const CHILD = fileURLToPath(new URL("./answer-server-child.js", import.meta.url));
const START_DEADLINE_MS = 30_000;

export interface AnswerServer {
  baseUrl: string;
  stop(): void;
}

/** A server answering each request path in `bodies` with its bytes, in a process of its own. */
export async function startAnswerServer(bodies: Record<string, Buffer>): Promise<AnswerServer> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-answers-"));
  const files: Record<string, string> = {};
  for (const [index, [requestPath, body]] of Object.entries(bodies).entries()) {
    files[requestPath] = path.join(folder, `${index}.json`);
    fs.writeFileSync(files[requestPath], body);
  }
  const child = spawn(process.execPath, [CHILD, JSON.stringify(files)], { stdio: ["pipe", "pipe", "pipe"] });
  const stop = () => {
    child.kill("SIGKILL");
    fs.rmSync(folder, { recursive: true, force: true });
  };
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const listening = new Promise<number>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the answer server exited ${code}: ${stderr.slice(0, 500)}`)));
  });
  try {
    const port = await withDeadline(listening, START_DEADLINE_MS, "starting the answer server");
    return { baseUrl: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
