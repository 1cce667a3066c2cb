// Serving the emulator until interrupted: what `npm start` runs (server/bootstrap/cli.mjs calls serve()
// once its checks are done; `node dist/server/main.js` does the same).

import v8 from "node:v8";
import { loadConfig } from "./common/config.js";
import { startEmulator } from "./emulator.js";
import { readyLines } from "./ready-lines.js";

export async function serve(): Promise<void> {
  outliveLogReaders();
  const config = loadConfig();
  growHeapBy(config.EMULATOR_HEAP_GROWING_PERCENT);
  const emulator = await startEmulator(config);
  for (const line of readyLines(emulator.url, config.EMULATOR_DATA_DIR)) console.log(line);
  const stop = (signal: string) => {
    console.log(`${signal}: shutting down; sandboxes keep running and are found again at the next start`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

/**
 * V8 sets the heap's next limit from what is live after each full collection (a factor it picks, 1.1
 * to 4), and starts marking as soon as the room left under that limit is less than its young
 * generation may hold. With the emulator's small heap (about 25 MB live) that room was often short
 * from the start, and it marked almost without pause: in 5 of 13 runs a 100 MiB upload and download
 * cost the emulator three times their CPU (80 full collections instead of 3, its V8 threads busy), and a
 * 1 MiB read_file had one every 4-7 reads (docs/benchmarks.md#read_file-of-1-mib). A fixed growth
 * leaves the room; `percent` 0 keeps V8's rule. Only in the emulator's own process: a process that
 * embeds the emulator keeps its own settings.
 */
export function growHeapBy(percent: number, setFlags: (flags: string) => void = v8.setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
}

/**
 * A reader of the emulator's output that goes away (`npm start | head`, a parent process that died)
 * must not end it: Node.js reports the broken pipe as an 'error' on process.stdout, which without a
 * listener ended the process at its next line, mid-start or mid-shutdown, leaving its lease and
 * containers on the engine. The emulator goes on serving; what it could not write is dropped.
 */
function outliveLogReaders(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
}

/** serve(), ending the process with a line saying why when the emulator cannot start. */
export function serveOrExit(): void {
  serve().catch((error: unknown) => {
    console.error(`emulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
