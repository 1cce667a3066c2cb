// The store: one SQLite file in WAL mode. Schema changes are numbered migrations applied in one
// transaction each at open, so an old data folder is upgraded in place and never loses data.

import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { ensurePrivateFile, ensurePrivateFolder } from "../../proxy/index.js";
import { migrations } from "./migrations.js";
import { inTransaction } from "./transactions.js";

export type Db = Database.Database;

/** The store's file in the data folder; while it exists, the folder's emulator may come back to its sandboxes. */
export const STORE_FILE_NAME = "emulator.sqlite";

/**
 * Whether a data folder may hold a store. Only a store positively absent (ENOENT, ENOTDIR) counts as
 * gone: a folder this user may not look into (another user's home) could well hold one.
 */
export function storeMayExistIn(dataDir: string): boolean {
  try {
    fs.statSync(path.join(dataDir, STORE_FILE_NAME));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}

/**
 * The store's files: the database and the write-ahead log and shared-memory files SQLite keeps beside
 * it (the log holds recent writes, credential tokens included, until a checkpoint).
 */
export function storeFilesIn(dataDir: string): string[] {
  const file = path.join(dataDir, STORE_FILE_NAME);
  return [file, `${file}-wal`, `${file}-shm`];
}

/**
 * Opens (creating when needed) the store in `dataDir`. A new folder is owner-only, and so is a new store:
 * SQLite would create it 0644 & ~umask, but it opens an existing file as it is and gives its -wal and
 * -shm files the database file's mode, so creating the file 0600 first keeps all three private.
 */
export function openDatabase(dataDir: string): Db {
  ensurePrivateFolder(dataDir);
  ensurePrivateFile(path.join(dataDir, STORE_FILE_NAME));
  const db = new Database(path.join(dataDir, STORE_FILE_NAME));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);
  return db;
}

export function openMemoryDatabase(): Db {
  const db = new Database(":memory:");
  db.pragma("foreign_keys = ON");
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)");
  const applied = new Set(
    db
      .prepare("SELECT version FROM schema_migrations")
      .all()
      .map((row) => (row as { version: number }).version),
  );
  const newest = Math.max(0, ...applied);
  const known = migrations.length;
  if (newest > known) {
    throw new Error(
      `the data folder was written by a newer emulator (schema ${newest}, this one knows ${known}); ` +
        "upgrade the emulator or point EMULATOR_DATA_DIR elsewhere",
    );
  }
  migrations.forEach((sql, index) => {
    const version = index + 1;
    if (applied.has(version)) return;
    inTransaction(db, () => {
      db.exec(sql);
      db.prepare("INSERT INTO schema_migrations (version, applied) VALUES (?, ?)").run(version, new Date().toISOString());
    });
  });
}
