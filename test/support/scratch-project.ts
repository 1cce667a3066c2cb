// A fresh scratch project, as another project's test suite would use this package: its own
// package.json with a `file:` dependency on this repository and the SDK, node_modules as npm makes
// of them (a link to the folder, the SDK installed), and one node:test file.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectRoot } from "../../server/common/paths.js";

/** The project's folder (under the temporary folder; the caller removes it). */
export function makeScratchProject(options: { prefix: string; name: string; testFile: string; testSource: string }): string {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix));
  fs.writeFileSync(
    path.join(scratch, "package.json"),
    JSON.stringify({
      name: options.name,
      private: true,
      type: "module",
      scripts: { test: "node --test" },
      devDependencies: { "interactions-sandbox-emulator": `file:${projectRoot}`, "@google/genai": "3.3.0" },
    }),
  );
  // What npm makes of those dependencies: a link to the folder, and the SDK installed.
  fs.mkdirSync(path.join(scratch, "node_modules", "@google"), { recursive: true });
  fs.symlinkSync(projectRoot, path.join(scratch, "node_modules", "interactions-sandbox-emulator"), "dir");
  fs.symlinkSync(path.join(projectRoot, "node_modules", "@google", "genai"), path.join(scratch, "node_modules", "@google", "genai"), "dir");
  fs.writeFileSync(path.join(scratch, options.testFile), options.testSource);
  return scratch;
}
