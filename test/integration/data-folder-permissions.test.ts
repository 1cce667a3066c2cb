// The data folder holds the egress CA's private key and the SQLite store with every key's credential
// tokens (docs/security.md#the-data-folder). With real files on disk: a new one is owner-only whatever
// the umask (the store's -wal and -shm files too), an existing one that others can read is tightened at
// start with a line saying so, and a folder that belongs to someone else is reported, never changed,
// nor a reason not to start.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { tightenToOwner } from "../../proxy/index.js";
import { startFakeRuntimeEmulator } from "../support/fake-runtime.js";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "emu-perm-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const modeOf = (target: string) => fs.statSync(target).mode & 0o7777;
const octal = (mode: number) => `0${mode.toString(8)}`;

/** Creates a credential, so the store has written a secret (into its -wal file first). */
async function storeASecret(url: string): Promise<void> {
  const response = await fetch(`${url}/v1beta/credentials`, {
    method: "POST",
    headers: { "x-goog-api-key": "perm-key", "content-type": "application/json" },
    body: JSON.stringify({ type: "bearer_token", id: "gh", token: "ghp_secret_token" }),
  });
  assert.equal(response.status, 200, await response.text());
}

/** The data folder's secret files and their modes, as `{relative path: "0600"}`. */
function secretModes(dataDir: string): Record<string, string> {
  const modes: Record<string, string> = { ".": octal(modeOf(dataDir)) };
  for (const name of ["emulator.sqlite", "emulator.sqlite-wal", "emulator.sqlite-shm", "egress-ca", "egress-ca/ca-key.pem"]) {
    modes[name] = octal(modeOf(path.join(dataDir, name)));
  }
  return modes;
}

const PRIVATE = {
  ".": "0700",
  "emulator.sqlite": "0600",
  "emulator.sqlite-wal": "0600",
  "emulator.sqlite-shm": "0600",
  "egress-ca": "0700",
  "egress-ca/ca-key.pem": "0600",
};

describe("data folder permissions", () => {
  it("creates the data folder, its missing parents, the store (-wal, -shm) and the CA key owner-only even with umask 0", async () => {
    const dataDir = path.join(scratch, "fresh", "nested", "data");
    const previous = process.umask(0);
    try {
      const emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
      try {
        await storeASecret(emulator.url);
        assert.deepEqual(secretModes(dataDir), PRIVATE);
        assert.equal(octal(modeOf(path.join(scratch, "fresh"))), "0700", "a parent the emulator created");
        assert.equal(octal(modeOf(path.join(scratch, "fresh", "nested"))), "0700", "a parent the emulator created");
        assert.ok(!emulator.output.some((line) => /open to other users/.test(line)), "nothing to tighten in a new folder");
      } finally {
        await emulator.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it("tightens an existing data folder that other users can read, and says so on the console", async () => {
    const dataDir = path.join(scratch, "open");
    const first = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
    await storeASecret(first.url);
    await first.close();
    // As an older emulator (or a careless operator) left it: everything readable by everyone.
    for (const name of [".", "emulator.sqlite", "egress-ca", "egress-ca/ca-key.pem"]) {
      fs.chmodSync(path.join(dataDir, name), name === "." || name === "egress-ca" ? 0o755 : 0o644);
    }
    fs.writeFileSync(path.join(dataDir, "emulator.sqlite-wal"), "", { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, "emulator.sqlite-wal"), 0o666);

    const second = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
    try {
      await storeASecret(second.url).catch(() => undefined); // the id exists already: the answer does not matter
      assert.deepEqual(secretModes(dataDir), PRIVATE);
      const said = second.output.join("\n");
      assert.match(said, new RegExp(`${dataDir} was open to other users \\(mode 0755\\); made it owner-only \\(0700\\)`));
      assert.match(said, /emulator\.sqlite was open to other users \(mode 0644\); made it owner-only \(0600\)/);
      assert.match(said, /emulator\.sqlite-wal was open to other users \(mode 0666\)/);
      assert.match(said, /ca-key\.pem was open to other users \(mode 0644\)/);
    } finally {
      await second.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("leaves a data folder that belongs to another user as it is, warns, and starts", {
    skip: process.getuid?.() !== 0 && "needs root to chown",
  }, async () => {
    const dataDir = path.join(scratch, "mounted");
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    fs.chownSync(dataDir, 4321, 4321);
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
    try {
      assert.equal(octal(modeOf(dataDir)), "0755");
      assert.equal(fs.statSync(dataDir).uid, 4321);
      assert.match(
        emulator.output.join("\n"),
        /warning: .*mounted can be read by other users \(mode 0755\) but belongs to uid 4321.*chmod 0700/,
      );
      // What the emulator made inside is its own, and private.
      assert.equal(octal(modeOf(path.join(dataDir, "emulator.sqlite"))), "0600");
      assert.equal(octal(modeOf(path.join(dataDir, "egress-ca", "ca-key.pem"))), "0600");
    } finally {
      await emulator.close();
    }
  });

  it("leaves a shared folder with the sticky bit as it is, and warns", () => {
    const shared = path.join(scratch, "shared");
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    const warnings: string[] = [];
    tightenToOwner(shared, { info: () => assert.fail("must not change a shared folder"), warn: (line) => warnings.push(line) });
    assert.equal(octal(modeOf(shared)), "01777");
    assert.match(warnings.join("\n"), /shared folder \(sticky bit, mode 01777\).*EMULATOR_DATA_DIR/);
  });

  it("warns, and does not throw, when chmod fails", () => {
    const file = path.join(scratch, "store-like");
    fs.writeFileSync(file, "x");
    fs.chmodSync(file, 0o644);
    const warnings: string[] = [];
    const failingChmod = () => {
      throw Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
    };
    tightenToOwner(file, { info: () => assert.fail("nothing changed"), warn: (line) => warnings.push(line) }, failingChmod);
    assert.match(
      warnings.join("\n"),
      /could not make .*store-like owner-only \(EROFS: read-only file system\); make it private yourself \(chmod 0600 /,
    );
  });
});
