// The Go executor's own unit tests (sandbox-image/executor-go/*_test.go: its argument parsing of
// identities, the disk guard's measurement, mountinfo parsing) and `go vet`, run from `npm test` so a
// change to the executor that breaks them fails the suite like any TypeScript test. Skipped only where
// Go is missing outside CI (a developer without golang-go); in CI a missing Go is a failure, since the
// executor cannot be built there either.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { projectRoot } from "../../server/common/paths.js";

const PACKAGE = "./sandbox-image/executor-go";

/** Go's build cache lives under HOME; where HOME is missing or unwritable (a CI user), one under the temporary folder. */
function goCache(): string | undefined {
  if (process.env.GOCACHE) return process.env.GOCACHE;
  const home = process.env.HOME;
  try {
    if (home) {
      fs.accessSync(home, fs.constants.W_OK);
      return undefined;
    }
  } catch {}
  return path.join(os.tmpdir(), "emulator-go-build-cache");
}

// Static and offline, as the executor is built (server/bootstrap/build-executor.mjs).
const cache = goCache();
const goEnv = { ...process.env, CGO_ENABLED: "0", GOPROXY: "off", ...(cache ? { GOCACHE: cache } : {}) };

function go(...args: string[]) {
  return spawnSync("go", args, { cwd: projectRoot, env: goEnv, encoding: "utf8", timeout: 300_000 });
}

const version = go("version");
const goMissing = version.error !== undefined || version.status !== 0;
const inCI = Boolean(process.env.CI);
const skip = goMissing && !inCI ? "`go` is not on PATH (apt-get install golang-go): the Go executor's unit tests were not run" : false;

function assertSucceeds(args: string[]): string {
  const run = go(...args);
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  assert.equal(run.error, undefined, `go ${args.join(" ")}: ${run.error?.message}\n${output}`);
  assert.equal(run.status, 0, `go ${args.join(" ")} failed:\n${output}`);
  return output;
}

describe("the Go executor's unit tests", () => {
  it("finds Go (in CI a missing Go fails: the executor is built with it)", { skip }, () => {
    assert.ok(!goMissing, `\`go version\` failed: ${version.error?.message ?? version.stderr}`);
  });

  it("go vet finds nothing", { skip }, () => {
    assertSucceeds(["vet", PACKAGE]);
  });

  it("builds the same bytes from the same sources: no commit or dirty-tree stamp in the binary", { skip }, async () => {
    // In a git checkout Go stamps vcs.revision and vcs.modified by default, so every commit made a new
    // executor, a new sandbox image tag and an image rebuild. Built here as build-executor.mjs builds it.
    const { executorBuildArguments } = await import(
      pathToFileURL(path.join(projectRoot, "server", "bootstrap", "build-executor.mjs")).href
    );
    const args: string[] = executorBuildArguments();
    const output = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "executor-build-")), "sandbox-executor");
    try {
      args[args.indexOf("-o") + 1] = output;
      assertSucceeds(args);
      const stamped = assertSucceeds(["version", "-m", output]);
      assert.match(stamped, /CGO_ENABLED=0/);
      assert.doesNotMatch(stamped, /vcs\./, stamped);
    } finally {
      fs.rmSync(path.dirname(output), { recursive: true, force: true });
    }
  });

  it("go test passes, and runs the tests it was given", { skip }, () => {
    const output = assertSucceeds(["test", "-count=1", "-v", PACKAGE]);
    const passed = [...output.matchAll(/^--- PASS: (\w+)/gm)].map((match) => match[1]);
    // The tests ported from the TypeScript executor's unit tests: a renamed or deleted one shows here.
    for (const name of [
      "TestRefusesRootAndNobodyInParticular",
      "TestRequestCarriesWhoRunsAnExec",
      "TestReadOnlyMounts",
      "TestMeasuresATreeHardLinksOnceSparseFilesByWhatTheyHold",
      "TestKnowsWhichFoldersTheSandboxUsersMayWriteIn",
    ]) {
      assert.ok(passed.includes(name), `${name} did not pass:\n${output}`);
    }
  });
});
