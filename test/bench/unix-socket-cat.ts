// The reference for bytes moved on one machine (issue 31): `cat` of a file into a Unix socket, read to
// its end by this process. What any byte stream on the machine costs at best (a process reading the file,
// the kernel's socket, a Node.js reader), so the files API and the executor channel are measured against
// the same bytes carried the plainest way.

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { withDeadline } from "./bounded.js";
import { elapsedMs } from "./stats.js";

/** A temporary folder holding a file of `bytes` pseudo-random bytes; `remove` deletes both. */
export function scratchFile(bytes: number): { file: string; remove: () => void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-bytes-"));
  const file = path.join(folder, "bytes.bin");
  const block = Buffer.alloc(1024 * 1024);
  for (let index = 0; index < block.length; index++) block[index] = (index * 2654435761) >>> 24;
  const fd = fs.openSync(file, "w");
  try {
    for (let written = 0; written < bytes; written += block.length) fs.writeSync(fd, block, 0, Math.min(block.length, bytes - written));
  } finally {
    fs.closeSync(fd);
  }
  return { file, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/**
 * Milliseconds from connecting to a Unix socket until the last byte of `cat <file>` (spawned with the
 * accepted socket as its stdout) has been read here; checks that all `bytes` arrived.
 */
async function catOnce(file: string, bytes: number): Promise<number> {
  const socketPath = path.join(path.dirname(file), `cat-${process.pid}-${Math.random().toString(36).slice(2)}.sock`);
  const server = net.createServer((socket) => {
    const cat = spawn("cat", [file], { stdio: ["ignore", socket, "ignore"] });
    cat.on("exit", () => socket.destroy());
    cat.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  try {
    const start = process.hrtime.bigint();
    const received = await new Promise<number>((resolve, reject) => {
      let count = 0;
      const client = net.connect(socketPath);
      client.on("data", (chunk: Buffer) => {
        count += chunk.length;
      });
      client.on("end", () => resolve(count));
      client.on("error", reject);
    });
    const ms = elapsedMs(start);
    if (received !== bytes) throw new Error(`cat over a Unix socket carried ${received} bytes, not ${bytes}`);
    return ms;
  } finally {
    server.close();
    fs.rmSync(socketPath, { force: true });
  }
}

/** `runs` timings (ms) of `cat` of `file` (`bytes` long) over a Unix socket, after one uncounted run. */
export async function catOverUnixSocket(file: string, bytes: number, runs: number): Promise<number[]> {
  const once = () => withDeadline(catOnce(file, bytes), 60_000, "cat over a Unix socket");
  await once();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(await once());
  return times;
}
