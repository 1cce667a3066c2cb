// The emulator for a test suite to embed: `import { startEmulator } from "interactions-sandbox-emulator"`
// gives a running emulator on a free port with a throwaway data folder, and stop() removes every
// sandbox it made (containers, volumes, fork images: everything carrying its instance label) and the
// folder. This is the package's entry point (package.json "exports"; its types, types/index.d.ts, are emitted
// from this file by `npm run schemas`).
//
// In-process, not a child process: the wiring (emulator.ts) takes its configuration as an object and
// hands back close(); it installs no signal handlers, changes no process-wide state and reads
// process.env only through loadConfig(env), so several emulators can run in one process, errors reach
// the caller as exceptions, and there is no second process to leave orphaned if the test runner dies.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DockerClient } from "./sandbox/docker/dockerode.js";
import { loadConfig } from "./common/config.js";
import { ownerOf } from "./common/ids.js";
import { startEmulator as startWiredEmulator } from "./emulator.js";
import { removeInstanceObjects } from "./sandbox/docker/instance-objects.js";

export interface StartEmulatorOptions {
  /** TCP port; default 0, a free one. */
  port?: number;
  /** Address to bind; default 127.0.0.1. */
  host?: string;
  /** The API key to hand back (any non-empty key is accepted, and each key owns its own resources); default a random one. */
  apiKey?: string;
  /** Data folder; default a new temporary one, removed by stop(). A folder given here is kept. */
  dataDir?: string;
  /** More configuration variables (docs/configuration.md), e.g. `{ EMULATOR_TOOL_TIMEOUT_SECONDS: "30" }`. */
  settings?: Record<string, string>;
  /** Progress lines (the sandbox image build on a first run, the data folder); default: not shown. */
  log?: (line: string) => void;
  /**
   * A state file (`interactions-emulator state export`, docs/state-snapshots.md) imported for `apiKey`
   * before the emulator is handed back: its path, or the path and the passphrase its secrets were sealed
   * with. A file that cannot be imported stops the emulator and rejects with the reason.
   */
  state?: string | { file: string; passphrase?: string };
}

export interface EmbeddedEmulator {
  /** e.g. http://127.0.0.1:43567: the SDK's `httpOptions.baseUrl`. */
  baseUrl: string;
  apiKey: string;
  dataDir: string;
  /** The label value on everything this emulator made on the Docker engine. */
  instance: string;
  /** Stops the emulator and removes every sandbox it made and (unless given) its data folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Variables of the surrounding environment that would contradict the options: never inherited. */
const OWN_SETTINGS = ["PORT", "HOST", "EMULATOR_DATA_DIR", "EMULATOR_INSTANCE", "EMULATOR_API_KEYS"];

/**
 * Starts the emulator in this process, on a free port with a throwaway data folder. Needs a Docker
 * engine; the sandbox image is built on first use (pass `log` to see its progress).
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<EmbeddedEmulator> {
  const log = options.log ?? (() => undefined);
  const throwaway = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "interactions-emulator-"));
  const instance = options.settings?.EMULATOR_INSTANCE ?? `embedded-${randomBytes(5).toString("hex")}`;
  const apiKey = options.apiKey ?? `test-key-${randomBytes(8).toString("hex")}`;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OWN_SETTINGS.includes(name)));
  const removeDataDir = () => {
    if (throwaway) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  // If the process ends without stop(), the folder goes at least: the sandboxes then belong to an
  // emulator whose store is gone, and the next emulator on this machine removes them once this one's
  // lease has expired (docs/environments-and-files.md#sandboxes-of-an-emulator-that-is-gone).
  process.once("exit", removeDataDir);

  const docker = new DockerClient();
  const removeEverything = async () => {
    await removeInstanceObjects(docker, instance);
    // The sandboxes' socket folders (server/sandbox/docker/socket-channel.ts), in a data folder that is kept.
    fs.rmSync(path.join(dataDir, "channels", instance), { recursive: true, force: true });
    removeDataDir();
    process.off("exit", removeDataDir);
  };

  let running: Awaited<ReturnType<typeof startWiredEmulator>>;
  try {
    const config = loadConfig({
      ...inherited,
      ...options.settings,
      PORT: String(options.port ?? 0),
      HOST: options.host ?? "127.0.0.1",
      EMULATOR_DATA_DIR: dataDir,
      EMULATOR_INSTANCE: instance,
    });
    running = await startWiredEmulator(config, { progress: log });
  } catch (error) {
    await removeEverything().catch(() => undefined);
    throw error;
  }
  if (options.state !== undefined) {
    const { file, passphrase } = typeof options.state === "string" ? { file: options.state, passphrase: undefined } : options.state;
    try {
      const report = await running.state.import(ownerOf(apiKey), fs.createReadStream(file), passphrase === undefined ? {} : { passphrase });
      log(`state: imported ${report.environments.length} environment(s) and ${report.interactions} interaction(s) from ${file}`);
    } catch (error) {
      await running.close().catch(() => undefined);
      await removeEverything().catch(() => undefined);
      throw error;
    }
  }

  let stopping: Promise<void> | null = null;
  return {
    baseUrl: running.url,
    apiKey,
    dataDir,
    instance,
    stop: () => {
      stopping ??= (async () => {
        let closeError: unknown = null;
        await running.close().catch((error: unknown) => {
          closeError = error;
        });
        // Whatever close() managed, the sandboxes go.
        await removeEverything();
        if (closeError) throw closeError;
      })();
      return stopping;
    },
  };
}
