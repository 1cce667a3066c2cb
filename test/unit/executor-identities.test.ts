// The executor's side of the separation of identities that can be checked without root: how it reads
// the identities it is given, how the protocol carries who runs an exec, and how a read-only mount is
// recognised in a mountinfo table. What the kernel then does with them is shown in
// test/docker/isolation.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { identityArguments, parseExecutorArguments } from "../../sandbox-image/executor/identities.js";
import { isReadOnlyIn } from "../../sandbox-image/executor/mounts.js";
import { parseRequest } from "../../sandbox-image/executor/protocol.js";

const SANDBOX = "sandbox=1000:1000:/home/sandbox";
const HOOKS = "hooks=1001:1001:/home/hooks";

describe("the executor's identities", () => {
  it("reads both identities, and none at all for an executor that runs everything as itself", () => {
    const { identities, fileWorkerFor } = parseExecutorArguments(["--identity", SANDBOX, "--identity", HOOKS]);
    assert.deepEqual(identities.get("sandbox"), { name: "sandbox", uid: 1000, gid: 1000, home: "/home/sandbox" });
    assert.deepEqual(identities.get("hooks"), { name: "hooks", uid: 1001, gid: 1001, home: "/home/hooks" });
    assert.equal(fileWorkerFor, null);
    assert.equal(parseExecutorArguments([]).identities.size, 0);
  });

  it("reads the disk limit it guards, when it is given one", () => {
    assert.equal(parseExecutorArguments(["--identity", SANDBOX, "--identity", HOOKS, "--disk-limit-mb", "64"]).diskLimitMb, 64);
    assert.equal(parseExecutorArguments(["--identity", SANDBOX, "--identity", HOOKS]).diskLimitMb, null);
  });

  it("gives its file worker the same identities, and names the one it acts as", () => {
    const { identities } = parseExecutorArguments(["--identity", SANDBOX, "--identity", HOOKS]);
    const worker = parseExecutorArguments(["--file-worker", "sandbox", ...identityArguments(identities)]);
    assert.equal(worker.fileWorkerFor, "sandbox");
    assert.deepEqual(worker.identities, identities);
  });

  it("refuses what would run sandbox code as root or as nobody in particular", () => {
    const refusals: Array<[string[], RegExp]> = [
      [["--identity", "sandbox=0:1000:/root", "--identity", HOOKS], /must not be root/],
      [["--identity", "sandbox=1000:0:/home/sandbox", "--identity", HOOKS], /must not be root/],
      [["--identity", SANDBOX], /missing for hooks/],
      [["--identity", "intruder=5:5:/x", "--identity", SANDBOX, "--identity", HOOKS], /unknown identity "intruder"/],
      [["--identity", "sandbox=1000:1000:relative", "--identity", HOOKS], /expected name=uid:gid:\/home/],
      [["--identity"], /needs a value/],
      [["--as-root", "yes"], /unknown argument --as-root/],
      [["--file-worker", "sandbox"], /has no --identity/],
      [["--disk-limit-mb", "64"], /--disk-limit-mb needs identities/],
      [["--identity", SANDBOX, "--identity", HOOKS, "--disk-limit-mb", "0"], /expected a whole number of MiB/],
      [["--identity", SANDBOX, "--identity", HOOKS, "--disk-limit-mb", "1e3"], /expected a whole number of MiB/],
    ];
    for (const [argv, reason] of refusals) assert.throws(() => parseExecutorArguments(argv), reason, argv.join(" "));
  });

  it("carries who runs an exec in the request, and nothing but the two identities", () => {
    const exec = { op: "exec", id: 1, argv: ["true"], timeoutMs: 10, maxOutputBytes: 10 };
    assert.deepEqual(parseRequest({ ...exec, runAs: "hooks" }), { ok: true, request: { ...exec, runAs: "hooks" } });
    assert.deepEqual(parseRequest(exec), { ok: true, request: exec });
    const refused = parseRequest({ ...exec, runAs: "root" });
    assert.ok(!refused.ok && /runAs/.test(refused.message), JSON.stringify(refused));
  });
});

describe("read-only mounts, from /proc/self/mountinfo", () => {
  const table = [
    "116 67 0:50 / / rw,relatime master:3 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w",
    "117 116 0:53 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
    "120 116 0:56 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro",
    "135 116 254:0 /volumes/a/_data /workspace/.agents ro,relatime master:1 - ext4 /dev/vda rw",
    "136 116 254:0 /volumes/b/_data /workspace/my\\040repo ro,relatime - ext4 /dev/vda rw",
    "137 116 254:0 /volumes/c/_data /workspace/stacked ro,relatime - ext4 /dev/vda rw",
    "138 137 254:0 /volumes/d/_data /workspace/stacked rw,relatime - ext4 /dev/vda rw",
    "",
  ].join("\n");

  it("finds the deepest mount holding the path, and the one mounted last on a point", () => {
    assert.equal(isReadOnlyIn(table, "/workspace/.agents/hooks.json"), true);
    assert.equal(isReadOnlyIn(table, "/workspace/.agents"), true);
    assert.equal(isReadOnlyIn(table, "/workspace/.agents-not/hooks.json"), false, "a prefix of a name is not a folder");
    assert.equal(isReadOnlyIn(table, "/workspace/hooks.json"), false);
    assert.equal(isReadOnlyIn(table, "/workspace/stacked/hooks.json"), false, "the writable mount on top counts");
    assert.equal(isReadOnlyIn(table, "/sys/kernel/x"), true);
  });

  it("reads mount points with spaces, which the kernel writes as octal escapes", () => {
    assert.equal(isReadOnlyIn(table, "/workspace/my repo/hooks.json"), true);
  });

  it("knows nothing read-only from an empty table", () => {
    assert.equal(isReadOnlyIn("", "/workspace/.agents/hooks.json"), false);
  });
});
