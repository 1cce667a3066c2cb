import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { prepareSources } from "../../server/sources/inline-sources.js";
import { isWithin } from "../../server/common/paths.js";
import { resolveTarget } from "../../server/sources/target-path.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { EXECUTOR_PATH } from "../../server/sandbox/docker/image.js";
import { reservedPlaceOf } from "../../server/sandbox/layout.js";

describe("source targets", () => {
  const accepted: Array<[string, string]> = [
    [".agents/hooks.json", "/.agents/hooks.json"],
    ["workspace/public/summary.json", "/workspace/public/summary.json"],
    ["./workspace//a.txt", "/workspace/a.txt"],
    ["workspace/./dir/file", "/workspace/dir/file"],
    ["tmp/scratch.txt", "/tmp/scratch.txt"],
    ["home/sandbox/.bashrc", "/home/sandbox/.bashrc"],
    // Not a folder at the root: from /workspace, as a files API path (the Python SDK's lifecycle test: "main.py").
    ["library/x", "/workspace/library/x"],
    ["main.py", "/workspace/main.py"],
    ["/library/x", "/library/x"],
    ["opt/app/run.sh", "/opt/app/run.sh"],
    ["opt/emulator2", "/opt/emulator2"],
    // Issue 30: absolute targets, as the service's OpenAPI examples and the SDK's trigger sample write them.
    ["/workspace/notes.txt", "/workspace/notes.txt"],
    ["/workspace/data", "/workspace/data"],
    ["//workspace/a.txt", "/workspace/a.txt"],
    ["/.agents/AGENTS.md", "/.agents/AGENTS.md"],
  ];
  for (const [target, resolved] of accepted) {
    it(`places "${target}" at ${resolved}`, () => {
      assert.deepEqual(resolveTarget(target), { ok: true, path: resolved });
    });
  }

  const refused: Array<[string, RegExp]> = [
    ["", /empty/],
    ["   ", /empty/],
    ["/workspace/../../etc/passwd", /is under \/etc, a system folder/],
    ["/workspace/..", /\.\./],
    ["/workspace/dir/", /ends with \//],
    ["/usr/bin/python3", /is under \/usr, a system folder/],
    ["/usr/libexec/interactions-emulator/sandbox-executor", /is under \/usr\/libexec\/interactions-emulator/],
    ["//etc/passwd", /is under \/etc, a system folder/],
    ["../escape", /\.\./],
    // Found by the property tests (source-paths.property.test.ts): each used to be accepted.
    ["workspace/.", /ends with \/ or \/\./],
    [" /.", /empty/],
    ["./\t", /empty/],
    ["workspace/../../etc/passwd", /is under \/etc, a system folder/],
    ["workspace/..", /\.\./],
    ["etc/passwd", /system folder/],
    ["usr/bin/python3", /system folder/],
    ["proc/self/mem", /system folder/],
    ["sys/kernel", /system folder/],
    ["dev/null", /system folder/],
    ["bin/sh", /system folder/],
    ["sbin/init", /system folder/],
    ["lib/x.so", /system folder/],
    ["lib64/ld.so", /system folder/],
    ["./etc/hosts", /system folder/],
    ["opt/emulator/executor/main.js", /executor/],
    // Issue 29: on or above a reserved folder, in every spelling ("opt" mounted over /opt hid the executor's).
    ["opt", /holds \/opt\/emulator, which the emulator's executor uses, and nothing may be placed over it/],
    ["/opt", /holds \/opt\/emulator/],
    ["opt/", /holds \/opt\/emulator/],
    ["./opt", /holds \/opt\/emulator/],
    ["opt/.", /holds \/opt\/emulator/],
    ["opt//", /holds \/opt\/emulator/],
    ["opt/../opt", /holds \/opt\/emulator/],
    ["workspace/../opt", /holds \/opt\/emulator/],
    ["opt/emulator", /is under \/opt\/emulator, which the emulator's executor uses/],
    ["opt/emulator/sandbox-executor", /is under \/opt\/emulator/],
    ["usr", /is under \/usr, a system folder/],
    ["usr/libexec", /is under \/usr, a system folder/],
    ["usr/libexec/interactions-emulator/sandbox-executor", /is under \/usr\/libexec\/interactions-emulator/],
    ["/", /root itself/],
    ["//", /root itself/],
    ["/.", /root itself/],
    [".", /root itself/],
    ["./", /root itself/],
    ["workspace/dir/", /ends with \//],
    ["workspace\\a.txt", /backslash/],
    ["workspace/a\0b", /NUL/],
  ];
  for (const [target, reason] of refused) {
    it(`refuses ${JSON.stringify(target)}`, () => {
      const check = resolveTarget(target);
      assert.equal(check.ok, false);
      if (!check.ok) assert.match(check.reason, reason);
    });
  }
});

describe("the executor's path (issue 29)", () => {
  it("is refused, and so is every folder on its way, to a source target and by the one rule every input uses", () => {
    const parts = EXECUTOR_PATH.split("/").filter(Boolean);
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const place = parts.slice(0, depth).join("/");
      const check = resolveTarget(place);
      assert.equal(check.ok, false, `${place} is accepted as a target`);
      assert.notEqual(reservedPlaceOf(place), null, `${place} is clear by reservedPlaceOf`);
      assert.notEqual(reservedPlaceOf(`/${place}/`), null);
    }
    assert.notEqual(reservedPlaceOf("/"), null, "the root holds it");
  });
});

describe("inline sources", () => {
  const limit = 1024;
  const refusal = (sources: unknown[], pattern: RegExp) => {
    assert.throws(
      () => prepareSources(sources as never, limit),
      (error: unknown) => error instanceof InvalidArgumentError && pattern.test(error.message),
    );
  };

  it("decodes base64 content of many MiB (a regular expression overflowed the stack at a few: a 500)", () => {
    const content = Buffer.alloc(12 * 1024 * 1024, 0xa5);
    const prepared = prepareSources(
      [{ type: "inline", target: "workspace/big.bin", content: content.toString("base64"), encoding: "base64" }],
      16 * 1024 * 1024,
    );
    assert.ok(prepared.files[0]?.content.equals(content));
  });

  it("accepts base64 with or without padding and refuses what is not base64", () => {
    const decoded = (content: string) =>
      prepareSources([{ type: "inline", target: "w/a", content, encoding: "base64" }], limit).files[0]?.content;
    assert.deepEqual(decoded("QUJD"), Buffer.from("ABC"));
    assert.deepEqual(decoded("QUI="), Buffer.from("AB"));
    assert.deepEqual(decoded("QUI"), Buffer.from("AB"));
    assert.deepEqual(decoded("QQ=="), Buffer.from("A"));
    assert.deepEqual(decoded("QQ"), Buffer.from("A"));
    assert.deepEqual(decoded("QU JD\n"), Buffer.from("ABC"), "whitespace is ignored");
    for (const bad of ["Q===", "QU=D", "QUJD!", "QUJDé", "QQ==QQ=="]) {
      refusal([{ type: "inline", target: "w/a", content: bad, encoding: "base64" }], /is not valid base64/);
    }
  });

  it("decodes base64 content and keeps text as UTF-8", () => {
    const prepared = prepareSources(
      [
        { type: "inline", target: "workspace/data.bin", content: "AAEC/w==", encoding: "base64" },
        { type: "inline", target: "workspace/note.txt", content: "héllo" },
      ],
      limit,
    );
    assert.deepEqual([...prepared.files[0]!.content], [0, 1, 2, 255]);
    assert.equal(prepared.files[1]!.content.toString("utf8"), "héllo");
    assert.deepEqual(prepared.summary[0], { type: "inline", target: "workspace/data.bin", encoding: "base64", size_bytes: 4 });
  });

  it("treats a source without a type but with content as inline", () => {
    assert.equal(prepareSources([{ target: "workspace/a", content: "x" }], limit).files[0]!.path, "/workspace/a");
  });

  it("makes files that start with #! executable and others not", () => {
    const files = prepareSources(
      [
        { type: "inline", target: "s.py", content: "#!/usr/bin/env python3\n" },
        { type: "inline", target: "d.json", content: "{}" },
      ],
      limit,
    ).files;
    assert.equal(files[0]!.mode, 0o755);
    assert.equal(files[1]!.mode, 0o644);
  });

  it("refuses invalid base64", () =>
    refusal([{ type: "inline", target: "a", content: "not base64!", encoding: "base64" }], /sources\[0\]\.content is not valid base64/));
  it("refuses an unknown encoding", () =>
    refusal([{ type: "inline", target: "a", content: "x", encoding: "hex" }], /encoding "hex" is not supported/));
  it("refuses two sources with the same target", () =>
    refusal(
      [
        { type: "inline", target: "workspace/a", content: "1" },
        { type: "inline", target: "./workspace//a", content: "2" },
      ],
      /sources\[1\]\.target .* same file as environment\.sources\[0\]/,
    ));
  it("refuses a file placed inside another source file", () =>
    refusal(
      [
        { type: "inline", target: "workspace/a", content: "1" },
        { type: "inline", target: "workspace/a/b", content: "2" },
      ],
      /"\/workspace\/a" is a file/,
    ));
  it("refuses sources larger than the limit", () =>
    refusal([{ type: "inline", target: "a", content: "x".repeat(limit + 1) }], /larger than 1024 bytes/));
  it("refuses unsupported source types, naming them", () =>
    refusal([{ type: "skill_registry", source: "skills/pdf", target: "skills/pdf" }], /"skill_registry" is not supported/));
  it("refuses a source without a target", () => refusal([{ type: "inline", content: "x" }], /sources\[0\]\.target is required/));
  it("refuses an inline source without content", () => refusal([{ type: "inline", target: "a" }], /content is required/));
  it("refuses a source with neither type nor content", () => refusal([{ target: "a" }], /type is required/));
  it("names the target and the reason for a path refusal", () =>
    refusal([{ type: "inline", target: "../x", content: "" }], /sources\[0\]\.target "\.\.\/x" contains "\.\."/));
});

describe("path containment", () => {
  const cases: Array<[string, string, boolean]> = [
    ["/workspace/a", "/workspace", true],
    ["/workspace", "/workspace", true],
    ["/workspaces/a", "/workspace", false],
    ["/anything", "/", true],
    ["opt/emulator/executor", "opt/emulator", true],
    ["opt/emulator2", "opt/emulator", false],
  ];
  for (const [child, folder, expected] of cases) {
    it(`${expected ? "puts" : "does not put"} ${child} within ${folder}`, () => assert.equal(isWithin(child, folder), expected));
  }
});
