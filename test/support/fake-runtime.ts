// The emulator as `npm start` wires it (real HTTP server, SQLite store in a real data folder, the
// in-process egress proxy and its CA), but with sandboxes that are in-memory fakes: for tests of what
// the HTTP API accepts, refuses and shows, without Docker. Every sandbox's channel records the commands
// it was asked to run, so a test can see what reached the sandbox as well as what the API answered.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import { loadConfig } from "../../server/common/config.js";
import { startEmulator, type RunningEmulator } from "../../server/emulator.js";
import type { FaultPlan } from "../../server/faults/fault-plan.js";
import type { TestClocks } from "../../server/common/test-clocks.js";
import { ownerOf } from "../../server/common/ids.js";
import type { FileInfo, TreeEntry, SandboxChannel, SandboxHandle, SandboxRuntime, SandboxSpec } from "../../server/sandbox/runtime.js";
import { FakeSandboxChannel } from "./fake-sandbox-channel.js";
import { tarBuffer } from "../../server/common/tar.js";
import { SandboxFileError, SandboxFilesTooLargeError } from "../../server/sandbox/runtime.js";
import { extract } from "tar-stream";
import { Readable } from "node:stream";

/** Every entry of a tar stream: name, type and content. */
async function readTar(stream: Readable): Promise<Array<{ name: string; type: string; content: Buffer }>> {
  const entries: Array<{ name: string; type: string; content: Buffer }> = [];
  const reader = extract();
  reader.on("entry", (header, body, next) => {
    const chunks: Buffer[] = [];
    body.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
    body.on("end", () => {
      entries.push({ name: header.name, type: header.type ?? "file", content: Buffer.concat(chunks) });
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    reader.on("finish", resolve);
    reader.on("error", reject);
    stream.on("error", reject);
    stream.pipe(reader);
  });
  return entries;
}

/** A FakeSandboxChannel with what an environment's channel needs besides tools: counts and an egress listener. */
class FakeEnvironmentChannel extends FakeSandboxChannel {
  override async usage(): Promise<{ files: number; bytes: number }> {
    return { files: this.files.size, bytes: [...this.files.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0) };
  }

  // Enough of the files API for the resumable upload: a file or a folder (a prefix of files), appends and a move.
  override async stat(path: string): Promise<{ info: FileInfo | null; realPath: string }> {
    const text = this.files.get(path);
    const prefix = path.endsWith("/") ? path : `${path}/`;
    const isFolder = text === undefined && [...this.files.keys()].some((name) => name.startsWith(prefix));
    const info: FileInfo | null =
      text !== undefined
        ? { type: "file", size: Buffer.byteLength(text), mtimeMs: 0, birthtimeMs: 0 }
        : isFolder
          ? { type: "directory", size: 0, mtimeMs: 0, birthtimeMs: 0 }
          : null;
    return { info, realPath: path };
  }

  // A page of the tree at path as the executor walks it: the start first (path ""), then depth first, name-sorted.
  override async walk(
    at: string,
    options: { recursive: boolean; after?: string; limit: number; exclude?: string[] },
  ): Promise<{ entries: TreeEntry[]; more: boolean }> {
    const root = at === "/" ? "" : at.replace(/\/+$/, "");
    const { info } = await this.stat(at);
    if (!info) throw new SandboxFileError("not_found", `${at} does not exist`);
    const below = new Map<string, FileInfo>();
    if (info.type === "directory") {
      for (const [name, text] of this.files) {
        if (!name.startsWith(`${root}/`) || options.exclude?.some((folder) => name === folder || name.startsWith(`${folder}/`))) continue;
        const parts = name.slice(root.length + 1).split("/");
        const depth = options.recursive ? parts.length : 1;
        for (let length = 1; length <= depth; length++) {
          const relative = parts.slice(0, length).join("/");
          below.set(
            relative,
            length === parts.length
              ? { type: "file", size: Buffer.byteLength(text), mtimeMs: 0, birthtimeMs: 0 }
              : { type: "directory", size: 0, mtimeMs: 0, birthtimeMs: 0 },
          );
        }
      }
    }
    const all: TreeEntry[] = [
      { path: "", ...info },
      ...[...below.keys()].sort().map((relative) => ({ path: relative, ...below.get(relative)! })),
    ];
    const start = options.after === undefined ? 0 : all.findIndex((entry) => entry.path === options.after) + 1;
    const entries = all.slice(start, start + options.limit);
    return { entries, more: start + options.limit < all.length };
  }

  override async readFileChunk(at: string, offset: number, length: number): Promise<{ content: Buffer; size: number }> {
    const text = this.files.get(at);
    if (text === undefined) throw new SandboxFileError("not_found", `${at} does not exist`);
    const bytes = Buffer.from(text);
    return { content: bytes.subarray(offset, offset + length), size: bytes.length };
  }

  override async appendFile(path: string, offset: number, content: Buffer, options?: { create?: boolean }): Promise<number> {
    const text = this.files.get(path) ?? (options?.create ? "" : undefined);
    if (text === undefined) throw new SandboxFileError("ENOENT", `ENOENT: no such file or directory, open '${path}'`);
    if (Buffer.byteLength(text) !== offset)
      throw new SandboxFileError("EINVAL", `${path} has ${Buffer.byteLength(text)} bytes, not ${offset}`);
    const next = text + content.toString("utf8");
    this.files.set(path, next);
    return Buffer.byteLength(next);
  }

  override async moveFile(from: string, to: string, overwrite: boolean): Promise<void> {
    const text = this.files.get(from);
    if (text === undefined) throw new SandboxFileError("ENOENT", `ENOENT: no such file or directory, rename '${from}'`);
    if (!overwrite && this.files.has(to)) throw new SandboxFileError("EEXIST", `EEXIST: file already exists, rename '${to}'`);
    this.files.set(to, text);
    this.files.delete(from);
  }

  override async listenEgress(): Promise<number> {
    return 3128;
  }

  override onEgressStream(_handler: (stream: Duplex) => void): void {
    // No sandbox program ever connects out through a fake.
  }
}

export class FakeRuntime implements SandboxRuntime {
  readonly name = "fake";
  /** Environment ID → its sandbox's channel (one per sandbox, kept across reconnections). */
  readonly channels = new Map<string, FakeEnvironmentChannel>();
  private next = 0;

  async health() {
    return { ok: true, detail: "fake runtime" };
  }
  async prepare(): Promise<void> {}
  async create(spec: SandboxSpec): Promise<SandboxHandle> {
    const channel = new FakeEnvironmentChannel();
    for (const file of spec.files) channel.files.set(file.path, file.content.toString("utf8"));
    // A repository source is a read-only tree: its files land under its path.
    for (const tree of spec.readOnlyTrees ?? []) {
      for (const entry of await readTar(Readable.from(tree.tar))) {
        if (entry.type === "file") channel.files.set(path.posix.join(tree.path, entry.name), entry.content.toString("utf8"));
      }
    }
    if (spec.restore) {
      for (const entry of await readTar(spec.restore())) {
        if (entry.type === "file") channel.files.set(`/${entry.name}`, entry.content.toString("utf8"));
      }
    }
    this.channels.set(spec.environmentId, channel);
    this.next += 1;
    return { sandboxId: `fake-${this.next}`, environmentId: spec.environmentId };
  }
  // A fork starts with the files of the sandbox it copies, as a real one does.
  async fork(source: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle> {
    const handle = await this.create(spec);
    const [from, to] = [this.channels.get(source.environmentId), this.channels.get(spec.environmentId)];
    for (const [name, text] of from?.files ?? []) if (!to?.files.has(name)) to?.files.set(name, text);
    return handle;
  }
  async connect(handle: SandboxHandle): Promise<SandboxChannel> {
    const channel = this.channels.get(handle.environmentId);
    if (!channel) throw new Error(`no fake sandbox for ${handle.environmentId}`);
    return channel;
  }
  async isAlive(handle: SandboxHandle): Promise<boolean> {
    return this.channels.has(handle.environmentId);
  }
  async ensureRunning(handle: SandboxHandle): Promise<boolean> {
    return this.channels.has(handle.environmentId);
  }
  async remove(handle: SandboxHandle): Promise<void> {
    this.channels.delete(handle.environmentId);
  }
  /** The fake's files under the folders, as a tar with paths from "/" (what the Docker runtime hands back). */
  async exportFiles(handle: SandboxHandle, folders: readonly string[], maxBytes: number): Promise<Buffer> {
    const channel = this.channels.get(handle.environmentId);
    if (!channel) throw new Error(`no fake sandbox for ${handle.environmentId}`);
    const entries = [...channel.files.entries()]
      .filter(([file]) => folders.some((folder) => file === folder || file.startsWith(`${folder}/`)))
      .map(([file, text]) => ({ header: { name: file.replace(/^\/+/, ""), mode: 0o644 }, content: Buffer.from(text) }));
    const tar = await tarBuffer(entries);
    if (tar.length > maxBytes) throw new SandboxFilesTooLargeError("too_large", `the fake sandbox's files pass ${maxBytes} bytes`);
    return tar;
  }

  async list(): Promise<SandboxHandle[]> {
    return [...this.channels.keys()].map((environmentId) => ({ sandboxId: "fake", environmentId }));
  }
}

export interface FakeRuntimeEmulator {
  url: string;
  port: number;
  dataDir: string;
  runtime: FakeRuntime;
  /** What the emulator printed while starting (its progress lines and warnings). */
  output: string[];
  /** Every key's test clock (docs/clock.md). */
  clocks: TestClocks;
  /** One key's test clock: a test moves it with advance(ms), as POST /emulator/clock with that key does. */
  clockOf(apiKey: string): { advance(ms: number): Promise<void>; now(): number };
  /** Waits until no webhook delivery attempt runs and none is due on the clock. */
  webhooksSettled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the emulator on 127.0.0.1 and a free port with a fake runtime. `env` adds settings (as
 * environment variables); the data folder is a new temporary one unless `env` names one, and is removed
 * by close() only when it was made here.
 */
export async function startFakeRuntimeEmulator(
  env: Record<string, string> = {},
  parts: { faults?: FaultPlan } = {},
): Promise<FakeRuntimeEmulator> {
  const madeHere = env.EMULATOR_DATA_DIR === undefined;
  const dataDir = env.EMULATOR_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "emu-fake-"));
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    EMULATOR_INSTANCE: `fake-${path.basename(dataDir)}`,
    // `npm test` checks every answer against the OpenAPI document (docs/testing.md#the-openapi-document-as-a-contract).
    ...(process.env.EMULATOR_CONTRACT_CHECK ? { EMULATOR_CONTRACT_CHECK: process.env.EMULATOR_CONTRACT_CHECK } : {}),
    ...env,
    EMULATOR_DATA_DIR: dataDir,
  });
  const runtime = new FakeRuntime();
  const output: string[] = [];
  const capture = (...args: unknown[]) => output.push(args.map(String).join(" "));
  // The emulator reports on the console; keep what it says for the test and out of the test's output.
  const original = { log: console.log, warn: console.warn };
  console.log = capture;
  console.warn = capture;
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator(config, { runtime, progress: capture, ...(parts.faults ? { faults: parts.faults } : {}) });
  } finally {
    console.log = original.log;
    console.warn = original.warn;
  }
  return {
    url: emulator.url,
    port: emulator.port,
    dataDir,
    runtime,
    output,
    clocks: emulator.clocks,
    clockOf: (apiKey) => ({
      advance: (ms) => emulator.clocks.advance(ownerOf(apiKey), ms),
      now: () => emulator.clocks.now(ownerOf(apiKey)),
    }),
    webhooksSettled: () => emulator.webhookDeliveries.settled(),
    close: async () => {
      await emulator.close();
      if (madeHere) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
