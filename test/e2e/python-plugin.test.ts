// The pytest plugin (clients/python) as a Python user installs it: a scratch virtual environment,
// `pip install ./clients/python google-genai pytest`, then pytest on the plugin's own tests with the
// official Python SDK (the seed's security gate, a function round trip, isolation by key, and a
// pytester session checked against the engine). Afterwards no container, volume or image of any
// emulator the run started is left: the plugin prints each instance it stopped, and each is counted.
// The virtual environment and when the test skips: test/support/python-venv.ts.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { objectsOfInstance } from "../support/docker-fixture.js";
import { PYTEST_LIMIT_SECONDS, run, scratchVenv } from "../support/python-venv.js";

describe("the pytest plugin (clients/python)", () => {
  it("passes its own tests with the official Python SDK and leaves no container, volume or image of its emulators", async (t) => {
    const python = await scratchVenv(t);
    if (python === null) return;
    const basetemp = fs.mkdtempSync(path.join(os.tmpdir(), "python-plugin-basetemp-"));
    try {
      // From the clone's root, so that `python -m pytest` imports the installed plugin, not the one in
      // clients/python: the installed one must find this repository by itself. No INTERACTIONS_EMULATOR_ROOT.
      const env = { ...process.env };
      delete env.INTERACTIONS_EMULATOR_ROOT;
      const argv = [python, "-m", "pytest", "clients/python/tests", "-v", "-p", "no:cacheprovider", `--basetemp=${basetemp}`];
      const result = await run(argv, { cwd: projectRoot, env, limitSeconds: PYTEST_LIMIT_SECONDS });
      assert.equal(result.status, 0, `pytest failed:\n${result.output.slice(-6000)}`);
      assert.match(result.output, /test_the_seed_security_gate_blocks_rm_rf PASSED/);
      assert.match(result.output, /test_a_function_call_round_trip PASSED/);
      assert.match(result.output, /test_a_session_removes_every_sandbox_it_made PASSED/);
      assert.match(result.output, /=+ \d+ passed/);
      assert.doesNotMatch(result.output, /\d+ (failed|skipped|error)/);
      const instances = [...result.output.matchAll(/instance (pytest-[0-9a-f]+) \(local, [^)]+\) stopped; removed (\d+) container/g)];
      assert.ok(instances.length >= 1, `the session's emulator reported what it removed:\n${result.output.slice(-3000)}`);
      assert.ok(Number(instances[0]![2]) >= 1, "the session made sandboxes, so its removal is no formality");
      for (const [, instance] of instances) {
        assert.deepEqual(await objectsOfInstance(instance!), { containers: 0, volumes: 0, images: 0 }, instance);
      }
    } finally {
      fs.rmSync(basetemp, { recursive: true, force: true });
    }
  });
});
