// The package as another project sees it, without installing anything: a scratch project whose
// node_modules/interactions-sandbox-emulator is a symbolic link to this repository (what a `file:`
// dependency or `npm link` makes). Node resolves `import "interactions-sandbox-emulator"` through
// package.json "exports" to the compiled entry, and TypeScript resolves its hand-written types
// (types/index.d.ts), which must agree with the implementation (server/embed.ts). No Docker needed;
// test/e2e/embedded-emulator.test.ts runs the emulator from such a project.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type * as Implemented from "../../server/embed.js";
import { projectRoot } from "../../server/common/paths.js";
import type * as Declared from "../../types/index.js";

// Compile-time: the declaration and the implementation agree both ways (the build fails otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const declaredFitsImplementation: Same<Declared.StartEmulatorOptions, Implemented.StartEmulatorOptions> &
  Same<Declared.EmbeddedEmulator, Implemented.EmbeddedEmulator> &
  Same<Parameters<typeof Declared.startEmulator>, Parameters<typeof Implemented.startEmulator>> &
  Same<ReturnType<typeof Declared.startEmulator>, ReturnType<typeof Implemented.startEmulator>> = true;

let scratch: string;

before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-consumer-"));
  fs.writeFileSync(
    path.join(scratch, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies: { "interactions-sandbox-emulator": `file:${projectRoot}` },
    }),
  );
  fs.mkdirSync(path.join(scratch, "node_modules"));
  fs.symlinkSync(projectRoot, path.join(scratch, "node_modules", "interactions-sandbox-emulator"), "dir");
  fs.writeFileSync(
    path.join(scratch, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        strict: true,
        noEmit: true,
        types: [],
        skipLibCheck: false,
      },
      files: ["consumer.ts"],
    }),
  );
});
after(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

function typeCheck(source: string): { status: number | null; output: string } {
  fs.writeFileSync(path.join(scratch, "consumer.ts"), source);
  const tsc = path.join(projectRoot, "node_modules", "typescript", "bin", "tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", scratch], { cwd: scratch, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("the package from another project", () => {
  it("has types that agree with its implementation", () => {
    assert.equal(declaredFitsImplementation, true);
  });

  it("resolves the entry point through package.json exports, at run time", () => {
    const result = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const m = await import("interactions-sandbox-emulator"); console.log(Object.keys(m).join(","), typeof m.startEmulator);',
      ],
      { cwd: scratch, encoding: "utf8" },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), "startEmulator function");
  });

  it("type-checks a consumer's correct use with the package's types", () => {
    const { status, output } =
      typeCheck(`import { startEmulator, type EmbeddedEmulator, type StartEmulatorOptions } from "interactions-sandbox-emulator";
const options: StartEmulatorOptions = { port: 0, settings: { EMULATOR_TOOL_TIMEOUT_SECONDS: "30" }, log: (line: string) => void line };
const emulator: EmbeddedEmulator = await startEmulator(options);
const url: string = emulator.baseUrl;
const key: string = emulator.apiKey;
void url;
void key;
await emulator.stop();
`);
    assert.equal(status, 0, output);
  });

  it("refuses a consumer's wrong use (so the types are really read, not any)", () => {
    const { status, output } = typeCheck(`import { startEmulator } from "interactions-sandbox-emulator";
const emulator = await startEmulator({ port: "0" });
const url: string = emulator.url;
void url;
`);
    assert.notEqual(status, 0);
    assert.match(output, /consumer\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
    assert.match(output, /consumer\.ts\(3,\d+\): error TS2339: Property 'url' does not exist on type 'EmbeddedEmulator'/);
  });
});
