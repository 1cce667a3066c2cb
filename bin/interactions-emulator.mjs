#!/usr/bin/env node
// `npx interactions-emulator …` (package.json "bin"): runs the compiled command line,
// dist/server/cli/main.js. Plain JavaScript with no dependencies, so that it can say what to do when
// the TypeScript has not been compiled yet (a fresh clone) instead of failing with a module error.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const entry = path.join(root, "dist", "server", "cli", "main.js");

if (Number(process.versions.node.split(".")[0]) < 20) {
  console.error(`interactions-emulator: Node.js 20 or newer is needed (this is ${process.version})`);
  process.exit(1);
}
if (!fs.existsSync(entry)) {
  console.error(
    `interactions-emulator: ${entry} is missing: the TypeScript has not been compiled.\n` +
      `Run \`npm start\` once (it installs the dependencies, compiles and builds the sandbox image) or \`npm run build\` in ${root}, then try again.`,
  );
  process.exit(1);
}
process.setSourceMapsEnabled(true);
await import(pathToFileURL(entry).href);
