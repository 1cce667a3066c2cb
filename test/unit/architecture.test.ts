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

  it("keeps the proxy and the executor self-contained", () => {
    assert.equal(checkLayering(withFile("server/egress/around.ts", 'import "../../proxy/policy.js";')).length, 1);
    assert.equal(checkLayering(withFile("proxy/reach.ts", 'import "../server/common/errors.js";')).length, 1);
    assert.equal(checkLayering(withFile("sandbox-image/executor/reach.ts", 'import "../../server/common/errors.js";')).length, 1);
    assert.equal(checkLayering(withFile("server/sandbox/reach.ts", 'import "../../sandbox-image/executor/run-command.js";')).length, 1);
  });

  it("asks for a new folder to be placed in a layer", () => {
    const problems = checkLayering(withFile("server/billing/meter.ts", "export const meter = 1;\n"));
    assert.deepEqual(problems, [
      "server/billing/meter.ts: the folder server/billing is in no layer; add it to LAYERS (test/support/architecture.ts) and docs/architecture.md",
    ]);
  });
});
