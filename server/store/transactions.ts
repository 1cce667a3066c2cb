// Work in one SQLite transaction, nested work in a savepoint of the one around it.
//
// better-sqlite3's db.transaction(fn) builds four wrapped functions and defines five properties on each
// every time it is called: a store that called it per write spent 7.7% of the event loop's CPU of a
// tool call there (a CPU profile of 41-call interactions), more than on the rows it wrote. One wrapper
// per connection, given the work as its argument, does the same (BEGIN, or a SAVEPOINT when a
// transaction is open; COMMIT or RELEASE; ROLLBACK on a throw) without building anything per call.

// The connection's type from better-sqlite3 itself: database.ts imports this file.
import type Database from "better-sqlite3";

type Db = Database.Database;

type Runner = (work: () => unknown) => unknown;

const runners = new WeakMap<Db, Runner>();

/** Runs `work` in a transaction of `db` (a savepoint when one is open), rolled back when it throws. */
export function inTransaction<T>(db: Db, work: () => T): T {
  let run = runners.get(db);
  if (run === undefined) {
    run = db.transaction((inside: () => unknown) => inside()) as Runner;
    runners.set(db, run);
  }
  return run(work) as T;
}
