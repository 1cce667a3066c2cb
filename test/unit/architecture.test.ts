// The layering of docs/architecture.md holds on the repository as it is, and the check really catches
// an upward import, a cycle between peers, a way around the proxy's entry and a folder in no layer.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { checkLayering, folderOf, importEdges, readSourceTree, type SourceFile } from "../support/architecture.js";

const tree = readSourceTree(projectRoot);

function withFile(path: string, text: string): SourceFile[] {
  return [...tree, { path, text }];
}

describe("architecture: imports follow the layers", () => {
  it("reads the whole tree, with its imports", () => {
    assert.ok(tree.length > 100, `only ${tree.length} files read`);
    const edges = importEdges(tree);
    assert.ok(edges.some((edge) => edge.from === "server/http/app.ts" && edge.to === "server/common/config.ts"));
    assert.ok(
      edges.some((edge) => edge.from === "server/sandbox/executor-client.ts" && folderOf(edge.to) === "sandbox-image/executor/protocol"),
    );
  });

  it("holds on the repository", () => {
    assert.deepEqual(checkLayering(tree), []);
  });

  it("fails on a deliberately added upward import, and names it", () => {
    const problems = checkLayering(
      withFile("server/sandbox/upward.ts", 'import { runCalls } from "../agent/agent-loop.js";\nvoid runCalls;\n'),
    );
    // An upward import also closes a loop (agent → tools → sandbox → agent): both are reported.
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems[1]!, /cycle: .*server\/sandbox → server\/agent/);
    assert.match(
      problems[0]!,
      /^server\/sandbox\/upward\.ts imports server\/agent\/agent-loop\.ts: server\/sandbox \(layer "sandbox"\) may not import server\/agent/,
    );
  });

  it("catches type-only imports, re-exports and dynamic imports too", () => {
    for (const text of [
      'import type { AgentRun } from "../agent/agent-loop.js";',
      'export { runCalls } from "../agent/agent-loop.js";',
      'const loop = await import("../agent/agent-loop.js");',
    ]) {
      const problems = checkLayering(withFile("server/tools/upward.ts", text));
      assert.ok(
        problems.some((problem) => problem.startsWith("server/tools/upward.ts imports server/agent/agent-loop.ts: ")),
        text,
      );
    }
  });

  it("fails on a cycle between folders of one layer", () => {
    // egress already uses credentials; credentials using egress closes a loop within the services.
    const problems = checkLayering(withFile("server/credentials/loop.ts", 'import "../egress/network-config.js";'));
    assert.ok(
      problems.some((problem) => /cycle: .*server\/credentials.*server\/egress|cycle: .*server\/egress.*server\/credentials/.test(problem)),
      problems.join("\n"),
    );
  });

  it("keeps the proxy self-contained, and the executor's protocol importing nothing", () => {
    assert.equal(checkLayering(withFile("server/egress/around.ts", 'import "../../proxy/policy.js";')).length, 1);
    assert.equal(checkLayering(withFile("proxy/reach.ts", 'import "../server/common/errors.js";')).length, 1);
    const [upward, ...others] = checkLayering(
      withFile("sandbox-image/executor/protocol-reach.ts", 'import "../../server/common/errors.js";'),
    );
    assert.deepEqual(others, []);
    assert.match(
      upward!,
      /^sandbox-image\/executor\/protocol-reach\.ts imports server\/common\/errors\.ts: .* may import only sandbox-image\/executor\/protocol$/,
    );
    for (const text of ['import { z } from "zod";', 'import fs from "node:fs";']) {
      const problems = checkLayering(withFile("sandbox-image/executor/protocol-reach.ts", text));
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0]!, /protocol-reach\.ts imports (zod|node:fs): the executor protocol is dependency-free/);
    }
    // Protocol files import each other freely.
    assert.deepEqual(checkLayering(withFile("sandbox-image/executor/protocol-extra.ts", 'import "./protocol-fields.js";')), []);
  });

  it("knows the executor is Go: TypeScript beside the protocol, or importing what is not protocol, is reported", () => {
    for (const file of ["sandbox-image/executor/run-command.ts", "sandbox-image/executor-go/helper.ts"]) {
      const problems = checkLayering(withFile(file, "export const x = 1;\n"));
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0]!, /the executor is Go \(sandbox-image\/executor-go\)/);
    }
    const problems = checkLayering(withFile("server/sandbox/reach.ts", 'import "../../sandbox-image/executor/run-command.js";'));
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0]!, /^server\/sandbox\/reach\.ts imports sandbox-image\/executor\/run-command\.js: the executor is Go/);
  });

  it("asks for a new folder to be placed in a layer", () => {
    const problems = checkLayering(withFile("server/billing/meter.ts", "export const meter = 1;\n"));
    assert.deepEqual(problems, [
      "server/billing/meter.ts: the folder server/billing is in no layer; add it to LAYERS (test/support/architecture.ts) and docs/architecture.md",
    ]);
  });
});
