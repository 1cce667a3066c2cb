// The files API's path rules: what a path names, what is refused before the sandbox is asked (400), and
// where a resolved path may not lead (403). Plus the small tables the API answers from.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { environmentIdOf } from "../../server/api/create-environment.js";
import { redactNetwork } from "../../server/egress/redact-network.js";
import { InvalidArgumentError, PermissionDeniedError } from "../../server/common/errors.js";
import { mimeTypeOf } from "../../server/files/mime-types.js";
import { renderFile } from "../../server/files/render-file.js";
import { apiPathOf, checkReach, parseFilePath } from "../../server/files/sandbox-path.js";
import { PSEUDO_FOLDERS, reservedFolderOf, UNWRITABLE_FOLDERS } from "../../server/sandbox/layout.js";

describe("files API paths", () => {
  const accepted: Array<[string, string]> = [
    ["", "/workspace"],
    ["workspace", "/workspace"],
    ["workspace/", "/workspace"],
    ["workspace/src/main.py", "/workspace/src/main.py"],
    ["./workspace//a b.txt", "/workspace/a b.txt"],
    [".agents/hooks.json", "/.agents/hooks.json"],
    ["tmp/out.txt", "/tmp/out.txt"],
    ["etc/os-release", "/etc/os-release"],
    // Not a folder at the root: read from /workspace, as the OpenAPI document's samples write paths.
    ["main.py", "/workspace/main.py"],
    ["src/main.py", "/workspace/src/main.py"],
    ["./data//a b.txt", "/workspace/data/a b.txt"],
  ];
  for (const [input, absolute] of accepted) {
    it(`"${input}" names ${absolute}`, () => {
      assert.equal(parseFilePath(input), absolute);
      assert.equal(apiPathOf(absolute), absolute.slice(1));
      assert.equal(parseFilePath(apiPathOf(absolute)), absolute, "the listed form names the same place");
    });
  }

  const refused: Array<[string, RegExp]> = [
    ["/etc/passwd", /absolute.*write "etc\/passwd"/],
    ["//workspace", /absolute/],
    ["..", /"\.\."/],
    ["workspace/../../etc", /"\.\."/],
    ["workspace/..", /"\.\."/],
    ["workspace\\a.txt", /backslash/],
    ["workspace/a\0b", /NUL/],
  ];
  for (const [input, message] of refused) {
    it(`refuses ${JSON.stringify(input)} with a 400`, () => {
      assert.throws(
        () => parseFilePath(input),
        (error: unknown) => error instanceof InvalidArgumentError && message.test(error.message),
      );
    });
  }

  it("refuses reads only in the pseudo file systems, and says where a symlink led", () => {
    for (const path of ["/proc/self/environ", "/sys", "/dev/zero"]) {
      assert.throws(
        () => checkReach(path, "read", "workspace/link"),
        (error: unknown) => error instanceof PermissionDeniedError && /leads to/.test(error.message),
      );
    }
    for (const path of ["/etc/passwd", "/workspace/a", "/", "/processes"]) checkReach(path, "read", path.slice(1));
  });

  it("refuses writes in system folders and the emulator's own", () => {
    for (const path of ["/etc/x", "/usr/bin/x", "/lib64/x", "/opt/emulator/executor/main.js", "/proc/1/x", "/boot"]) {
      assert.throws(() => checkReach(path, "write", path.slice(1)), PermissionDeniedError);
    }
    for (const path of ["/workspace/x", "/tmp/x", "/home/sandbox/x", "/opt/mine/x", "/library/x", "/etcetera/x"]) {
      checkReach(path, "write", path.slice(1));
    }
  });

  it("hands extraction the same folders that writes are refused in", () => {
    for (const folder of UNWRITABLE_FOLDERS) {
      assert.ok(PSEUDO_FOLDERS.includes(folder) || reservedFolderOf(folder) === folder, `${folder} is not refused for writes`);
    }
    for (const top of ["etc", "usr", "bin", "sbin", "boot", "lib", "lib32", "lib64", "libx32", "proc", "sys", "dev"]) {
      assert.ok(UNWRITABLE_FOLDERS.includes(`/${top}`), `/${top} missing`);
    }
  });
});

describe("files API tables", () => {
  it("guesses mime types from extensions", () => {
    assert.equal(mimeTypeOf("main.py"), "text/x-python");
    assert.equal(mimeTypeOf("DATA.JSON"), "application/json");
    assert.equal(mimeTypeOf("archive.tar.gz"), "application/gzip");
    assert.equal(mimeTypeOf("Makefile"), "application/octet-stream");
    assert.equal(mimeTypeOf(".bashrc"), "application/octet-stream");
  });

  it("renders an EnvironmentFile with string sizes and no mime type for folders", () => {
    const time = Date.UTC(2026, 0, 2, 3, 4, 5);
    assert.deepEqual(renderFile("/workspace/src/main.py", { type: "file", size: 24, mtimeMs: time, birthtimeMs: time }), {
      name: "main.py",
      path: "workspace/src/main.py",
      type: "file",
      mime_type: "text/x-python",
      size_bytes: "24",
      created: "2026-01-02T03:04:05Z",
      modified: "2026-01-02T03:04:05Z",
    });
    const folder = renderFile("/workspace/src", { type: "directory", size: 4096, mtimeMs: time, birthtimeMs: time });
    assert.equal(folder.mime_type, "");
    assert.equal(folder.size_bytes, "0");
  });

  it("accepts environment names with and without the environments/ prefix", () => {
    assert.equal(environmentIdOf("environments/env_x"), "env_x");
    assert.equal(environmentIdOf("env_x"), "env_x");
  });

  it("redacts injected header values but keeps their names", () => {
    assert.deepEqual(
      redactNetwork({
        allowlist: [
          { domain: "a.example", transform: { Authorization: "Bearer x" } },
          { domain: "b.example", transform: [{ "X-A": "1" }, { "X-B": "2" }] },
          { domain: "c.example" },
        ],
      }),
      {
        allowlist: [
          { domain: "a.example", transform: { Authorization: "[redacted]" } },
          { domain: "b.example", transform: [{ "X-A": "[redacted]" }, { "X-B": "[redacted]" }] },
          { domain: "c.example" },
        ],
      },
    );
    assert.equal(redactNetwork("disabled"), "disabled");
  });
});
