// The store's checkpointer thread (wal-checkpointer.ts): its own connection to the store's file, and a
// passive checkpoint of the write-ahead log every `intervalMs`. A passive checkpoint copies the
// committed pages into the database file without taking any lock a writer or a reader waits on, so the
// emulator's connection goes on writing meanwhile; its fsyncs and copies are this thread's time, not
// the event loop's.

import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

/** What the thread posts: that a checkpoint copied pages, or a failure. */
export type CheckpointWorkerMessage = { type: "checkpointed" } | { type: "failed"; message: string } | { type: "stopped" };

const port = parentPort;
if (port === null) throw new Error("checkpoint-worker.ts runs as a worker thread");
const { file, intervalMs } = workerData as CheckpointWorkerData;
const db = new Database(file, { fileMustExist: true });
// As the emulator's connection (database.ts): a checkpoint syncs the log, then the database file.
db.pragma("synchronous = NORMAL");

/**
 * Passes of one tick at most. The log starts again from its beginning only when a commit finds it
 * checkpointed whole; under back-to-back commits a pass rarely ends before the next commit, so a tick
 * checkpoints again what came in meanwhile (little, so quick) until it has caught up, a few times at most.
 */
const MAX_PASSES = 4;

function checkpoint(): void {
  try {
    let copied = false;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const [row] = db.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number; log: number; checkpointed: number }>;
      if (!row || row.log <= 0) break;
      copied = true;
      if (row.checkpointed >= row.log) break;
    }
    // Only a checkpoint that did something is told: an idle store posts nothing.
    if (copied) port?.postMessage({ type: "checkpointed" } satisfies CheckpointWorkerMessage);
  } catch (error) {
    port?.postMessage({
      type: "failed",
      message: error instanceof Error ? error.message : String(error),
    } satisfies CheckpointWorkerMessage);
  }
}

const timer = setInterval(checkpoint, intervalMs);
port.on("message", (message: unknown) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  port.postMessage({ type: "stopped" } satisfies CheckpointWorkerMessage);
  port.close();
});
