// server/bootstrap/ensure-chromium.sh, which `npm test` runs before the dashboard's browser test: it
// finds an installed Chromium, installs Debian's `chromium` with apt-get when it is root and none is
// there, and otherwise says how. The machine's packages are never touched: the script runs with a PATH
// of the test's own, where `apt-get` and `id` are stand-ins that record what they were asked.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";

const SCRIPT = path.join(projectRoot, "server", "bootstrap", "ensure-chromium.sh");
const folders: string[] = [];

after(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

interface Machine {
  bin: string;
  log: string;
}

/** A PATH with only `cat` and the stand-ins: `id -u` answers `uid`; apt-get logs its arguments and, when `installs`, puts a chromium on the PATH. */
function machine(options: { uid: number; installs?: boolean; aptFails?: boolean; chromium?: string }): Machine {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), "ensure-chromium-"));
  folders.push(bin);
  const log = path.join(bin, "apt.log");
  fs.symlinkSync(spawnSync("bash", ["-c", "command -v cat"], { encoding: "utf8" }).stdout.trim(), path.join(bin, "cat"));
  fs.writeFileSync(path.join(bin, "id"), `#!/bin/bash\necho ${options.uid}\n`, { mode: 0o755 });
  const install = options.installs
    ? `[ "$1" = install ] && printf '#!/bin/bash\\n' > "${bin}/chromium" && /bin/chmod 755 "${bin}/chromium"`
    : "";
  fs.writeFileSync(
    path.join(bin, "apt-get"),
    `#!/bin/bash\necho "$*" >> "${log}"\necho "apt-get $1: working"\n${options.aptFails ? "exit 100" : `${install}\nexit 0`}\n`,
    { mode: 0o755 },
  );
  if (options.chromium) fs.writeFileSync(path.join(bin, options.chromium), "#!/bin/bash\n", { mode: 0o755 });
  return { bin, log };
}

function ensure(machine: Machine, env: Record<string, string> = {}) {
  const result = spawnSync("/bin/bash", [SCRIPT], { env: { PATH: machine.bin, ...env }, encoding: "utf8" });
  const aptCalls = fs.existsSync(machine.log) ? fs.readFileSync(machine.log, "utf8").trim().split("\n") : [];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, aptCalls };
}

describe("ensure-chromium.sh", () => {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    it(`finds an installed ${name}, prints its path and installs nothing`, () => {
      const box = machine({ uid: 0, installs: true, chromium: name });
      const result = ensure(box);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim().split("\n").pop(), path.join(box.bin, name));
      assert.deepEqual(result.aptCalls, []);
    });
  }

  it("as root without one, installs Debian's chromium with apt-get, showing its progress", () => {
    const box = machine({ uid: 0, installs: true });
    const result = ensure(box);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(result.aptCalls, ["update -q", "install -y --no-install-recommends chromium"]);
    assert.match(result.stdout, /installing Chromium \(chromium\) from Debian's packages/);
    assert.match(result.stdout, /apt-get install: working/);
    assert.equal(result.stdout.trim().split("\n").pop(), path.join(box.bin, "chromium"));
  });

  it("says so when apt-get fails", () => {
    const result = ensure(machine({ uid: 0, aptFails: true }));
    assert.equal(result.status, 1);
    assert.match(result.stderr, /apt-get update failed/);
  });

  it("without root, installs nothing and says how to install it", () => {
    const result = ensure(machine({ uid: 1000, installs: true }));
    assert.equal(result.status, 1);
    assert.deepEqual(result.aptCalls, []);
    assert.match(result.stderr, /sudo apt-get install chromium/);
    assert.match(result.stderr, /EMULATOR_CHROMIUM/);
  });

  it("takes EMULATOR_CHROMIUM as it is, and refuses one that is not an executable file", () => {
    const box = machine({ uid: 0, installs: true, chromium: "my-browser" });
    const named = ensure(box, { EMULATOR_CHROMIUM: path.join(box.bin, "my-browser") });
    assert.equal(named.status, 0, named.stderr);
    assert.equal(named.stdout.trim(), path.join(box.bin, "my-browser"));
    const missing = ensure(box, { EMULATOR_CHROMIUM: path.join(box.bin, "nothing-here") });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /EMULATOR_CHROMIUM=.*nothing-here is not an executable file/);
    assert.deepEqual(missing.aptCalls, []);
  });
});
