import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { WriteBehind } from "../../server/store/write-behind.js";

const folders: string[] = [];
after(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

/** A store in WAL mode (as the emulator's), with a table to write to and one whose rows are checked at commit. */
function walStore(): Database.Database {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "write-behind-"));
  folders.push(folder);
  const db = new Database(path.join(folder, "store.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.exec(`
    CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
    CREATE TABLE parents (id INTEGER PRIMARY KEY);
    CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
  `);
  db.pragma("wal_checkpoint(TRUNCATE)");
  return db;
}

/** Frames in the write-ahead log: each commit appends the pages it changed. */
function walFrames(db: Database.Database): number {
  const [row] = db.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
  return row?.log ?? 0;
}

function notes(db: Database.Database): string[] {
  return (db.prepare("SELECT text FROM notes ORDER BY id").all() as Array<{ text: string }>).map((row) => row.text);
}

describe("writes deferred to the end of the turn", () => {
  it("stores nothing during the turn, then everything deferred in it in one commit", async () => {
    const one = walStore();
    one.prepare("INSERT INTO notes (text) VALUES (?)").run("alone");
    const framesOfOneCommit = walFrames(one);
    one.close();

    const db = walStore();
    const writes = new WriteBehind(db);
    const insert = db.prepare("INSERT INTO notes (text) VALUES (?)");
    const told: unknown[] = [];
    for (let i = 0; i < 10; i++)
      writes.defer(
        () => insert.run(`note ${i}`),
        (error) => told.push(error ?? "stored"),
      );
    assert.deepEqual(notes(db), [], "nothing is stored before the turn ends");
    assert.equal(writes.pending, 10);
    await nextTurn();
    assert.deepEqual(
      notes(db),
      Array.from({ length: 10 }, (_, i) => `note ${i}`),
    );
    assert.deepEqual(told, Array(10).fill("stored"), "each owner is told once, after the commit");
    assert.equal(walFrames(db), framesOfOneCommit, "ten writes cost the log what one commit does");
    assert.equal(writes.pending, 0);
    db.close();
  });

  it("a write that fails is told its error; the others of its turn are stored", async () => {
    const db = walStore();
    const writes = new WriteBehind(db);
    const insert = db.prepare("INSERT INTO notes (text) VALUES (?)");
    const told: string[] = [];
    writes.defer(
      () => insert.run("before"),
      (error) => told.push(error ? "failed" : "stored"),
    );
    writes.defer(
      () => {
        insert.run("half of a failing write");
        throw new Error("disk full");
      },
      (error) => told.push(error instanceof Error ? error.message : "stored"),
    );
    writes.defer(
      () => insert.run("after"),
      (error) => told.push(error ? "failed" : "stored"),
    );
    await nextTurn();
    assert.deepEqual(told, ["stored", "disk full", "stored"]);
    assert.deepEqual(notes(db), ["before", "after"], "the failing write left nothing of itself");
    db.close();
  });

  it("a commit that fails stores nothing and tells every owner", async () => {
    const db = walStore();
    const writes = new WriteBehind(db);
    const told: unknown[] = [];
    writes.defer(
      () => db.prepare("INSERT INTO notes (text) VALUES ('lost')").run(),
      (error) => told.push(error),
    );
    // Checked only at the commit: a child without its parent.
    writes.defer(
      () => db.prepare("INSERT INTO children (parent) VALUES (42)").run(),
      (error) => told.push(error),
    );
    await nextTurn();
    assert.equal(told.length, 2);
    for (const error of told) assert.match(String(error), /FOREIGN KEY/);
    assert.deepEqual(notes(db), []);
    assert.equal(db.inTransaction, false);
    db.close();
  });

  it("flush() stores what is deferred at once, and the turn's end finds nothing left", async () => {
    const db = walStore();
    const writes = new WriteBehind(db);
    let settled = 0;
    writes.defer(
      () => db.prepare("INSERT INTO notes (text) VALUES ('now')").run(),
      () => (settled += 1),
    );
    writes.flush();
    assert.deepEqual(notes(db), ["now"]);
    assert.equal(settled, 1);
    await nextTurn();
    assert.equal(settled, 1, "told once");
    writes.flush();
    db.close();
  });

  it("an owner that throws when told does not keep the others from being told", async () => {
    const db = walStore();
    const writes = new WriteBehind(db);
    const told: string[] = [];
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      writes.defer(
        () => undefined,
        () => {
          throw new Error("owner gone");
        },
      );
      writes.defer(
        () => undefined,
        () => told.push("told"),
      );
      writes.flush();
    } finally {
      console.error = original;
    }
    assert.deepEqual(told, ["told"]);
    assert.equal(logged.length, 1);
    db.close();
  });
});
