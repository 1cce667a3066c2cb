// README.md's first example (the documentation's own: environment "remote") run as a newcomer would run
// it: the code block copied out of README.md as it stands, its base URL pointed at an emulator started
// as `npm start` starts it, and run with node. The README cannot drift from what works.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { projectRoot } from "../../server/common/paths.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

let emulator: EmulatorProcess;
let script: string;

/** The first ```js block after the "The first example" heading. */
function readmeExample(): string {
  const readme = fs.readFileSync(path.join(projectRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## The first example"));
  const block = /```js\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(block, "README.md has a js block under 'The first example'");
  return block;
}

before(async () => {
  emulator = await startEmulatorProcess();
  // Inside the project, so that `import "@google/genai"` resolves to its node_modules as in a user's app.
  script = path.join(projectRoot, "dist", `readme-example-${process.pid}.mjs`);
});

after(async () => {
  if (script) fs.rmSync(script, { force: true });
  await emulator?.destroy();
});

describe("README.md's first example", () => {
  it("runs unchanged but for the base URL: the agent writes and reads the file in a fresh sandbox, then reuses it", async () => {
    const example = readmeExample();
    assert.match(example, /environment: "remote"/, 'the documentation\'s first example names the environment "remote"');
    assert.match(example, /http:\/\/127\.0\.0\.1:8080/);
    const printed = `${example.replaceAll("http://127.0.0.1:8080", emulator.url)}\nconsole.log("AGAIN", JSON.stringify(again.output_text));\n`;
    fs.writeFileSync(script, printed);
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 120_000 });
    const lines = stdout.trim().split("\n");
    assert.match(stdout, /hi/, stdout);
    assert.ok(
      lines.some((line) => /^env_/.test(line)),
      `an environment ID is printed: ${stdout}`,
    );
    assert.match(lines.find((line) => line.startsWith("AGAIN")) ?? "", /hi/, "the second interaction read the file in the same sandbox");
  });
});
