// Checkpoints of the store's write-ahead log off the event loop (docs/architecture.md#state).
//
// In WAL mode a commit appends its pages to the log; a checkpoint copies them into the database file
// and fsyncs both. SQLite's automatic checkpoint runs inside the commit that crosses its threshold (by
// default 1,000 pages, about 4 MiB), in the connection that commits: here the event loop, which then
// held for about 10 ms every 4 MiB stored (a 1 MiB tool result is 1 MiB stored). Instead a worker
// thread holding its own connection to the same file runs a passive checkpoint every
// EMULATOR_STORE_CHECKPOINT_MS; a passive checkpoint blocks neither writers nor readers. Once the log is
// checkpointed whole, the next commit starts it again from its beginning.
//
// The log stays bounded however far the thread falls behind (a busy machine, a thread that died): the
// emulator's own connection keeps SQLite's automatic checkpoint, at EMULATOR_STORE_WAL_MAX_MB instead of
// 4 MiB, and `journal_size_limit` gives the file back down to that size once the log starts again.
// Commits are durable as before whoever checkpoints: a committed transaction is in the log, and SQLite
// replays the log when the store is next opened (after a crash too).

import { Worker } from "node:worker_threads";
import type { Db } from "./database.js";
import type { CheckpointWorkerData, CheckpointWorkerMessage } from "./checkpoint-worker.js";

export interface CheckpointerOptions {
  /** Between two passive checkpoints of the worker thread. */
  intervalMs: number;
  /** The log's size at which the emulator's own connection checkpoints (the fallback), in bytes. */
  walLimitBytes: number;
  /** Where a failure of the thread is told (it is not fatal: the fallback checkpoints). */
  warn: (line: string) => void;
}

export interface WalCheckpointer {
  /** Checkpoints the worker thread ran that copied pages (for tests and the bench). */
  readonly checkpoints: number;
  /** Stops the thread and closes its connection; call before closing `db`. */
  stop(): Promise<void>;
}

/** Starts checkpointing the store `db` (a file in WAL mode) from a worker thread. */
export function startWalCheckpointer(db: Db, options: CheckpointerOptions): WalCheckpointer {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.ceil(options.walLimitBytes / pageSize))}`);
  db.pragma(`journal_size_limit = ${options.walLimitBytes}`);
  const workerData: CheckpointWorkerData = { file: db.name, intervalMs: options.intervalMs };
  const worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), {
    workerData,
    // It holds a connection and a timer: a small heap is plenty (the thread costs about 9 MiB of memory).
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
  });
  // The thread never keeps the process alive by itself: an emulator that is not closed still exits.
  worker.unref();
  let checkpoints = 0;
  let stopped = false;
  let reportedFailure = false;
  const ended = new Promise<void>((resolve) => {
    worker.once("exit", () => resolve());
  });
  worker.on("message", (message: CheckpointWorkerMessage) => {
    if (message.type === "checkpointed") checkpoints += 1;
    else if (message.type === "failed" && !reportedFailure) {
      reportedFailure = true;
      options.warn(`store: a checkpoint in the worker thread failed (${message.message}); the log is checkpointed at its limit meanwhile`);
    }
  });
  worker.on("error", (error) => {
    if (!stopped) options.warn(`store: the checkpoint thread stopped (${error.message}); the log is checkpointed at its limit from now on`);
  });
  return {
    get checkpoints() {
      return checkpoints;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      worker.postMessage("stop");
      // A thread that does not answer (it should within one checkpoint) is ended anyway.
      const timeout = setTimeout(() => void worker.terminate(), 5000);
      await ended;
      clearTimeout(timeout);
    },
  };
}
