// An emulator whose output nobody reads any more (`npm start | head`, a parent process that died) goes on
// serving, and a SIGTERM still shuts it down cleanly: the broken pipe used to end it at its next line,
// mid-start, leaving its lease volume and a probe container on the engine.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";
import { removeInstanceObjects } from "../../server/sandbox/docker/instance-objects.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "log-reader-gone-"));
const instance = `itest-logs-${randomBytes(4).toString("hex")}`;

after(async () => {
  await removeInstanceObjects(new Docker(), instance);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("an emulator whose output reader went away", () => {
  it("keeps serving, and stops cleanly on SIGTERM leaving nothing on the engine", async () => {
    const child = spawn(process.execPath, [path.join(projectRoot, "dist", "server", "main.js")], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", EMULATOR_DATA_DIR: dataDir, EMULATOR_INSTANCE: instance },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    try {
      // Its first line read, then both pipes closed from this end, as `head -1` does.
      const firstLine = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString())));
      assert.ok(firstLine.length > 0);
      child.stdout.destroy();
      child.stderr.destroy();
      // Its address was in a line not read: found from the ports it listens on.
      const url = await listeningUrl(child.pid!);
      const health = await fetch(`${url}/health`);
      assert.equal(health.status, 200, "still serving after its output pipe broke");
      child.kill("SIGTERM");
      const ended = await exited;
      assert.equal(ended.code, 0, `exit ${JSON.stringify(ended)}`);
      assert.deepEqual(await objectsOfInstance(instance), { containers: 0, volumes: 0, images: 0 });
    } finally {
      clearTimeout(timer);
      child.kill("SIGKILL");
    }
  });
});

/** The emulator's URL: of the TCP ports its process listens on (the egress proxy's too), the one whose /health answers. */
async function listeningUrl(pid: number): Promise<string> {
  for (let attempt = 0; attempt < 600; attempt++) {
    for (const port of listeningPorts(pid)) {
      const answer = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      if (answer?.status === 200 && (answer.headers.get("content-type") ?? "").includes("json")) return `http://127.0.0.1:${port}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("the emulator never answered /health");
}

/** Ports on 127.0.0.1 that a socket of the process listens on (/proc/net/tcp by the sockets' inodes). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target = "";
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]!);
  }
  const ports: number[] = [];
  for (const line of fs.readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address 0100007F:PORT (hex), state 0A (LISTEN), inode.
    if (fields[3] === "0A" && inodes.has(fields[9] ?? "") && fields[1]?.startsWith("0100007F:")) {
      ports.push(Number.parseInt(fields[1].split(":")[1]!, 16));
    }
  }
  return ports;
}
