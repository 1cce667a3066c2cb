// types/index.d.ts, the package's types, is emitted from server/embed.ts (tools/package-declarations.ts),
// and types/testcontainers.d.ts from clients/node/ (tools/testcontainers-declarations.ts), rather than
// written beside them by hand: this fails until `npm run schemas` has rewritten a stale copy, so an
// option added to startEmulator or the container cannot ship without its type. test/integration/package-consumer.test.ts
// checks that a consumer's TypeScript resolves the file through package.json "exports".

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { PACKAGE_DECLARATIONS_FILE, packageDeclarationsText } from "../../tools/package-declarations.js";
import { TESTCONTAINERS_DECLARATIONS_FILE, testcontainersDeclarationsText } from "../../tools/testcontainers-declarations.js";
import { projectRoot } from "../../server/common/paths.js";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "package-declarations-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** server/embed.ts changed by `edit`, as a file of its own to generate from. */
function editedEntry(edit: (text: string) => string): string {
  const file = path.join(scratch, "embed.ts");
  fs.writeFileSync(file, edit(fs.readFileSync(path.join(projectRoot, "server", "embed.ts"), "utf8")));
  return file;
}

describe("types/index.d.ts", () => {
  it("is committed as server/embed.ts declares it now (npm run schemas rewrites it)", () => {
    assert.equal(
      fs.readFileSync(PACKAGE_DECLARATIONS_FILE, "utf8"),
      packageDeclarationsText(),
      "types/index.d.ts is stale: run `npm run schemas`",
    );
  });

  it("holds the entry point's exports with their documentation, and nothing of its implementation", () => {
    const text = packageDeclarationsText();
    assert.match(text, /^export interface StartEmulatorOptions \{$/m);
    assert.match(text, /^export interface EmbeddedEmulator \{$/m);
    assert.match(
      text,
      /\/\*\*\n \* Starts the emulator in this process[\s\S]*?\*\/\nexport declare function startEmulator\(options\?: StartEmulatorOptions\): Promise<EmbeddedEmulator>;/,
    );
    assert.doesNotMatch(text, /^import /m, "the package's types need none of the server's modules");
    assert.doesNotMatch(text, /OWN_SETTINGS/);
  });

  it("changes when embed.ts does, so a stale copy is caught", () => {
    const entry = editedEntry((text) => text.replace("  port?: number;", "  port?: number;\n  /** A new option. */\n  verbose?: boolean;"));
    const text = packageDeclarationsText(entry);
    assert.match(text, /\/\*\* A new option\. \*\/\n\s+verbose\?: boolean;/);
    assert.notEqual(text, fs.readFileSync(PACKAGE_DECLARATIONS_FILE, "utf8"));
  });

  it("refuses an export whose type is left to inference, naming the file", () => {
    const entry = editedEntry((text) => `${text}\nexport const inferred = [1, 2].map((n) => n * 2);\n`);
    assert.throws(() => packageDeclarationsText(entry), /embed\.ts cannot be declared on its own: /);
  });
});

describe("types/testcontainers.d.ts", () => {
  it("is committed as clients/node/ declares its exports now (npm run schemas rewrites it)", () => {
    assert.equal(
      fs.readFileSync(TESTCONTAINERS_DECLARATIONS_FILE, "utf8"),
      testcontainersDeclarationsText(),
      "types/testcontainers.d.ts is stale: run `npm run schemas`",
    );
  });

  it("holds what index.ts exports, documented, needing nothing but testcontainers, and no internal constructor", () => {
    const text = testcontainersDeclarationsText();
    assert.match(text, /^export declare class InteractionsEmulatorContainer extends GenericContainer \{$/m);
    assert.match(text, /^export declare class StartedInteractionsEmulatorContainer extends AbstractStartedContainer \{$/m);
    assert.match(
      text,
      /\/\*\* The repository of the images this module builds[^\n]*\*\/\nexport declare const EMULATOR_IMAGE_REPOSITORY = "interactions-emulator";/,
    );
    assert.match(text, /^export declare const LABEL_EMULATOR_IMAGE = /m);
    assert.deepEqual(
      text.match(/^import .*$/gm)?.map((line) => line.replace(/^.* from /, "")),
      ['"testcontainers";'],
      "a consumer's types must not need the server's modules or dockerode",
    );
    assert.doesNotMatch(text, /ensureEmulatorImage|contentHash|LOCAL_NODE_IMAGE|StartedTestContainer,/);
    assert.doesNotMatch(text, /constructor\(started/, "the started container is made by start(), not by its users");
  });
});
