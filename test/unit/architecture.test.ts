// The layering of docs/architecture.md holds on the repository as it is, and the check really catches
// an upward import, a cycle between peers, a way around the proxy's entry and a folder in no layer; the
// server imports nothing of the clients and tools beside it, and every file of server/ is run by the emulator.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import {
  checkFileCycles,
  checkLayering,
  checkServerReach,
  folderOf,
  importEdges,
  readSourceTree,
  type SourceFile,
} from "../support/architecture.js";

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
      "server/billing/meter.ts: the folder server/billing is in no layer; add it to LAYERS or BESIDE_THE_SERVER (test/support/architecture.ts) and docs/architecture.md",
    ]);
  });
});

describe("architecture: server/ is what runs, clients and tools beside it", () => {
  it("holds on the repository: every file of server/ is reached from the emulator's entry points", () => {
    assert.deepEqual(checkServerReach(tree), []);
    assert.ok(tree.some((file) => file.path === "clients/node/index.ts") && tree.some((file) => file.path === "tools/write-schemas.ts"));
  });

  it("names a file of server/ that nothing the emulator runs imports, and follows worker scripts", () => {
    assert.deepEqual(checkServerReach(withFile("server/common/unused.ts", "export const x = 1;\n")), [
      "server/common/unused.ts is not reached from the running emulator's entry points (server/main.ts, server/serve.ts, server/embed.ts, server/cli/main.ts): a build or test tool goes in tools/, a client in clients/, test support in test/support/, and unused code goes",
    ]);
    // schema-worker.ts is started as a worker, never imported: without that line it would be unreached.
    const withoutWorker = tree.map((file) =>
      file.path === "server/planners/scripted/schema-work.ts"
        ? { ...file, text: file.text.replace(/new URL\([^)]*\)/, "undefined") }
        : file,
    );
    assert.ok(
      checkServerReach(withoutWorker).some((problem) => problem.startsWith("server/planners/scripted/schema-worker.ts is not reached")),
    );
    // A tool or a client need not be reached from the server.
    assert.deepEqual(checkServerReach(withFile("tools/new-generator.ts", 'import "../server/common/paths.js";')), []);
  });

  it("fails on the server importing a client or a tool", () => {
    for (const imported of ["../../clients/node/index.js", "../../tools/sdk-request-fields.js"]) {
      const problems = checkLayering(withFile("server/common/reach.ts", `import "${imported}";`));
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0]!, /^server\/common\/reach\.ts imports (clients|tools)\/.*: server\/ holds what the running emulator runs/);
    }
  });

  it("lets clients and tools import any layer of the server, but not each other's files", () => {
    assert.deepEqual(checkLayering(withFile("tools/reach.ts", 'import "../server/interactions/interaction-service.js";')), []);
    assert.deepEqual(checkLayering(withFile("clients/node/reach.ts", 'import "../../server/sandbox/docker/image.js";')), []);
    assert.deepEqual(checkLayering(withFile("tools/reach.ts", 'import "../clients/node/index.js";')), [], "a client's entry");
    const inside = checkLayering(withFile("tools/reach.ts", 'import "../clients/node/container-settings.js";'));
    assert.deepEqual(inside, [
      "tools/reach.ts imports clients/node/container-settings.ts: tools may not reach into clients/node; import it through clients/node/index.ts or clients/node/emulator-image.ts",
    ]);
    const back = checkLayering(withFile("clients/node/reach.ts", 'import "../../tools/write-schemas.js";'));
    assert.deepEqual(back, ["clients/node/reach.ts imports tools/write-schemas.ts: clients/node may not reach into tools"]);
    // The proxy stays behind its entry for them too.
    assert.equal(checkLayering(withFile("tools/reach.ts", 'import "../proxy/policy.js";')).length, 1);
  });
});

describe("architecture: no circle of files under server/", () => {
  it("holds on the repository", () => {
    assert.deepEqual(checkFileCycles(tree), []);
  });

  it("finds a circle inside one folder, also of type-only imports, and names its files in order", () => {
    // interaction-store.ts imports interaction-listing.ts; the listing importing the store back closes a circle.
    const text = 'import type { InteractionStore } from "./interaction-store.js";\n';
    const files = tree.map((file) =>
      file.path === "server/interactions/interaction-listing.ts" ? { ...file, text: `${text}${file.text}` } : file,
    );
    const problems = checkFileCycles(files);
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0]!, /^files of server\/ import each other in a circle: /);
    const circle = problems[0]!.slice(problems[0]!.indexOf(": ") + 2, problems[0]!.indexOf(";")).split(" → ");
    assert.equal(circle[0], circle.at(-1));
    assert.deepEqual(new Set(circle), new Set(["server/interactions/interaction-store.ts", "server/interactions/interaction-listing.ts"]));
    // The layering check (folders) does not see it: both files are in one folder.
    assert.deepEqual(checkLayering(files), []);
  });

  it("finds a file that imports itself, and ignores a worker script that imports its starter", () => {
    assert.equal(checkFileCycles(withFile("server/common/self.ts", 'import "./self.js";\n')).length, 1);
    // schema-work.ts starts schema-worker.ts, which imports schema-work.ts's types: not a circle.
    assert.ok(importEdges(tree).some((edge) => edge.worker && edge.from === "server/planners/scripted/schema-work.ts"));
  });
});
