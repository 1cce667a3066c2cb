import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { openDatabase, openMemoryDatabase, storeMayExistIn } from "../../server/store/database.js";
import { inTransaction } from "../../server/store/transactions.js";
import { EnvironmentStore } from "../../server/environments/environment-store.js";
import { InteractionStore, type InteractionRecord } from "../../server/interactions/interaction-store.js";
import { emptyTally, usageOf } from "../../server/interactions/usage.js";

/** A usage unlike what the steps below would count: reading it back shows it comes from the store. */
function storedUsage() {
  const tally = emptyTally();
  tally.input.text = 7;
  tally.output.text = 11;
  return usageOf(tally);
}

function record(id: string, owner: string): InteractionRecord {
  return {
    id,
    owner,
    status: "completed",
    environmentId: null,
    previousInteractionId: null,
    echo: { agent: "antigravity-preview-05-2026" },
    errors: [],
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:01Z",
    steps: [
      { type: "user_input", content: [{ type: "text", text: "hi" }] },
      { type: "model_output", content: [{ type: "text", text: "hello" }] },
    ],
    hookTraces: [{ call_id: "call_1", pre: { decision: "allow" } }],
    usage: storedUsage(),
  };
}

describe("store", () => {
  it("keeps interactions and environments across a reopen of the data folder", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-store-"));
    try {
      const first = openDatabase(dir);
      new InteractionStore(first).save(record("int_1", "owner-a"));
      new EnvironmentStore(first).insert({
        id: "env_1",
        owner: "owner-a",
        status: "active",
        sandboxId: "c1",
        config: { sources: [] },
        created: "t",
        updated: "t",
        lastAccessed: "t",
      });
      first.close();
      const second = openDatabase(dir);
      assert.deepEqual(new InteractionStore(second).get("int_1", "owner-a"), record("int_1", "owner-a"));
      assert.equal(new EnvironmentStore(second).get("env_1", "owner-a")?.sandboxId, "c1");
      second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hides a resource from another owner", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-store-"));
    try {
      const db = openDatabase(dir);
      new InteractionStore(db).save(record("int_2", "owner-a"));
      assert.equal(new InteractionStore(db).get("int_2", "owner-b"), null);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps an interaction's usage, and counts it from the steps of one stored before usage was kept", () => {
    const db = openMemoryDatabase();
    const store = new InteractionStore(db);
    store.save(record("int_5", "owner-a"));
    assert.deepEqual(store.get("int_5", "owner-a")?.usage, storedUsage());
    // An older data folder: the column is empty. "hi" is 1 token of input, "hello" 2 of output.
    const { usage: _usage, ...older } = record("int_6", "owner-a");
    store.save(older);
    const counted = store.get("int_6", "owner-a")?.usage;
    assert.equal(counted?.total_input_tokens, 1);
    assert.equal(counted?.total_output_tokens, 2);
    assert.equal(counted?.total_tokens, 3);
    db.close();
  });

  it("keeps an interaction's planner state, and reads none when there is none", () => {
    const db = openMemoryDatabase();
    const store = new InteractionStore(db);
    const withState: InteractionRecord = {
      ...record("int_3", "owner-a"),
      plannerState: { planner: "scripted", data: { runs: [{ read: "none", calls: [] }] } },
    };
    store.save(withState);
    assert.deepEqual(store.get("int_3", "owner-a"), withState);
    store.save(record("int_4", "owner-a"));
    assert.equal("plannerState" in (store.get("int_4", "owner-a") ?? {}), false);
    db.close();
  });

  it("upgrades a data folder from before planner states in place", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-store-"));
    try {
      const old = openDatabase(dir);
      // Back to schema 4: the interactions table as it was, with an interaction in it.
      old.exec("ALTER TABLE interactions DROP COLUMN planner_state; DELETE FROM schema_migrations WHERE version = 5;");
      old
        .prepare(
          "INSERT INTO interactions (id, owner, status, echo, created, updated) VALUES ('int_old', 'owner-a', 'completed', '{}', 't', 't')",
        )
        .run();
      old.close();
      const upgraded = openDatabase(dir);
      const store = new InteractionStore(upgraded);
      assert.equal(store.get("int_old", "owner-a")?.plannerState, undefined);
      store.save({ ...record("int_new", "owner-a"), plannerState: { planner: "scripted", data: { runs: [] } } });
      assert.deepEqual(store.get("int_new", "owner-a")?.plannerState, { planner: "scripted", data: { runs: [] } });
      upgraded.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a data folder written by a newer schema instead of damaging it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-store-"));
    try {
      const db = openDatabase(dir);
      db.prepare("INSERT INTO schema_migrations (version, applied) VALUES (999, 'x')").run();
      db.close();
      assert.throws(() => openDatabase(dir), /newer emulator/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("whether a data folder may still hold a store", () => {
  // Another emulator's sandboxes are removed only when its folder's store is positively absent.
  it("is false only when the store is positively absent", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-presence-"));
    try {
      assert.equal(storeMayExistIn(path.join(dir, "missing")), false, "ENOENT");
      fs.writeFileSync(path.join(dir, "a-file"), "");
      assert.equal(storeMayExistIn(path.join(dir, "a-file")), false, "ENOTDIR");
      openDatabase(path.join(dir, "data")).close();
      assert.equal(storeMayExistIn(path.join(dir, "data")), true);
      // Any other failure (here a symlink loop; for another user's home, EACCES) cannot tell: keep.
      fs.symlinkSync(path.join(dir, "loop"), path.join(dir, "loop"));
      assert.equal(storeMayExistIn(path.join(dir, "loop")), true, "ELOOP");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("work in a transaction (store/transactions.ts)", () => {
  const rows = (db: ReturnType<typeof openMemoryDatabase>) =>
    (db.prepare("SELECT v FROM t ORDER BY v").all() as Array<{ v: number }>).map((row) => row.v);

  it("commits, rolls back all of it on a throw, and rolls back only a nested part that throws", () => {
    const db = openMemoryDatabase();
    db.exec("CREATE TABLE t (v INTEGER)");
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    assert.equal(
      inTransaction(db, () => insert.run(1).changes),
      1,
      "gives the work's value",
    );
    assert.throws(() =>
      inTransaction(db, () => {
        insert.run(2);
        throw new Error("undone");
      }),
    );
    assert.deepEqual(rows(db), [1]);
    assert.equal(db.inTransaction, false);
    inTransaction(db, () => {
      insert.run(3);
      assert.throws(() =>
        inTransaction(db, () => {
          insert.run(4);
          throw new Error("only this part");
        }),
      );
      inTransaction(db, () => insert.run(5));
      assert.equal(db.inTransaction, true);
    });
    assert.deepEqual(rows(db), [1, 3, 5]);
    // Each connection has its own: work on another store is not run in this one's transaction.
    const other = openMemoryDatabase();
    other.exec("CREATE TABLE t (v INTEGER)");
    inTransaction(db, () => inTransaction(other, () => other.prepare("INSERT INTO t (v) VALUES (9)").run()));
    assert.deepEqual(rows(other), [9]);
    assert.deepEqual(rows(db), [1, 3, 5]);
  });
});
