// Statements prepared once per store and kept: preparing one (parsing its SQL, planning it) costs
// more than running it for the small rows most calls touch, and a store runs the same few again and again.

import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";

export class PreparedStatements {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  /** The statement of `sql`, prepared on its first use. */
  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
