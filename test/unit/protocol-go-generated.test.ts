// The Go executor's protocol file (sandbox-image/executor-go/protocol_gen.go) is generated from the
// TypeScript protocol tables (sandbox-image/executor/protocol-go.ts): this fails until `npm run schemas`
// has rewritten a stale copy, so a field added to a table and not regenerated cannot ship. And every
// rule the tables hold as a function is named in the file and implemented in protocol_rules.go.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { GO_PROTOCOL_FILE, goProtocolText } from "../../sandbox-image/executor/protocol-go.js";
import * as field from "../../sandbox-image/executor/protocol-fields.js";
import { PROTOCOL_VERSION } from "../../sandbox-image/executor/protocol.js";

const committed = (): string => fs.readFileSync(path.join(projectRoot, GO_PROTOCOL_FILE), "utf8");

describe("the Go executor's protocol file", () => {
  it("is committed as generated now (npm run schemas rewrites it)", () => {
    assert.equal(committed(), goProtocolText(), `${GO_PROTOCOL_FILE} is stale: run \`npm run schemas\``);
  });

  it("holds the constants, every operation's request and result type, and the descriptors the checker reads", () => {
    const text = goProtocolText();
    assert.match(text, new RegExp(`\\bProtocolVersion += ${PROTOCOL_VERSION}\\n`));
    assert.match(text, /\bIdentityFlag += "--identity"/);
    assert.match(text, /\bFileWorkerFlag += "--file-worker"/);
    for (const type of ["ExecRequest", "WalkRequest", "EgressListenRequest", "ReadFileResult", "ExitMessage", "EgressAckFrame"]) {
      assert.match(text, new RegExp(`^type ${type} struct`, "m"), type);
    }
    assert.match(text, /Tag: "op", Common: \[\]NamedField\{\{"id", /);
  });

  it("changes when a table does: a field's bounds are in the descriptors", () => {
    // The walk limit's bounds, as the table gives them, are what the Go checker enforces.
    assert.match(goProtocolText(), /\{"limit", &Field\{Kind: "integer", Min: 1, Max: 10000\}\}/);
    assert.deepEqual(field.integer(1, 10_000), { kind: "integer", min: 1, max: 10_000 });
  });

  it("names every rule, and protocol_rules.go implements each one", () => {
    const named = [...committed().matchAll(/Rule: "([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(named.length >= 5, `rules named: ${named.join(", ")}`);
    const rules = fs.readFileSync(path.join(projectRoot, "sandbox-image", "executor-go", "protocol_rules.go"), "utf8");
    for (const name of named) assert.ok(rules.includes(`"${name}":`), `protocol_rules.go has no rule ${name}`);
  });
});
