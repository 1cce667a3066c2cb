// Whether dist/ is the build of the sources as they are now, so that a warm `npm start` skips the
// TypeScript compiler (11–23 s on the 2-core machine even with --incremental, which still parses every
// file). Plain JavaScript with no dependencies: it runs before `npm ci` has installed anything.
//
// The stamp is a hash of every build input's path, size, mtime, ctime and inode, written after a build
// that succeeded. Any change of a file's content changes its ctime (the kernel sets it on every write
// and rename; no tool can set it back), so a stamp that matches means no input was changed, added or
// deleted since: the same test git's index makes. Outputs are checked too: a deleted dist/ file
// rebuilds rather than run without it.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { EXECUTOR_BINARY } from "./build-executor.mjs";

/** The folders tsconfig.json compiles (its "include"), and the files beside them that steer the build. */
export const SOURCE_FOLDERS = ["server", "clients", "tools", "sandbox-image", "proxy", "test"];
export const BUILD_SETTINGS = [
  "tsconfig.json",
  // The Go workspace file that lets `go build ./sandbox-image/executor-go` run from the root.
  "go.work",
  "package-lock.json",
  // What npm installed (TypeScript itself, @types/*): npm rewrites it on every install.
  "node_modules/.package-lock.json",
];
export const STAMP_FILE = path.join("dist", ".build-stamp");

/** The Go executor's sources (its .go files and go.mod): a changed one rebuilds the binary (build-executor.mjs). */
const isGoSource = (name) => name.endsWith(".go") || name === "go.mod";

/** Every TypeScript and Go source under the compiled folders, relative to root, sorted. */
export function listSources(root) {
  const found = [];
  const walk = (relative) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(child);
      } else if (entry.name.endsWith(".ts") || isGoSource(entry.name)) found.push(child);
    }
  };
  for (const folder of SOURCE_FOLDERS) walk(folder);
  return found.sort();
}

/** One line per input: its path and what any change to it changes; a missing settings file says so. */
export function describeInput(root, relative) {
  try {
    const stat = fs.statSync(path.join(root, relative), { bigint: true });
    return `${relative} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs} ${stat.ino}`;
  } catch {
    return `${relative} missing`;
  }
}

/** The hash of the build's inputs as they are now. */
export function buildFingerprint(root, sources = listSources(root)) {
  const hash = createHash("sha256");
  for (const relative of [...BUILD_SETTINGS, ...sources]) hash.update(`${describeInput(root, relative)}\n`);
  return hash.digest("hex");
}

/** What a source is built into: tsc's .js (declarations emit nothing: "declaration" is off), or the executor binary. */
export function outputOf(source) {
  if (isGoSource(path.basename(source))) return EXECUTOR_BINARY;
  return source.endsWith(".d.ts") ? null : path.join("dist", source.replace(/\.ts$/, ".js"));
}

/** Sources whose compiled file is not in dist/. */
export function missingOutputs(root, sources) {
  return sources.filter((source) => {
    const output = outputOf(source);
    return output !== null && !fs.existsSync(path.join(root, output));
  });
}

/**
 * Whether dist/ is current: the stamp of the last successful build matches the inputs now, and every
 * output is there. Returns the fingerprint to stamp after a build when it is not.
 */
export function checkBuild(root) {
  const sources = listSources(root);
  const fingerprint = buildFingerprint(root, sources);
  let stamped = "";
  try {
    stamped = fs.readFileSync(path.join(root, STAMP_FILE), "utf8").trim();
  } catch {}
  const current = stamped === fingerprint && missingOutputs(root, sources).length === 0;
  return { current, fingerprint };
}

/**
 * Records a successful build of the inputs as they were when `fingerprint` was taken, before it ran: a
 * file saved during the build no longer matches it, so the next start builds again.
 */
export function writeBuildStamp(root, fingerprint) {
  fs.mkdirSync(path.join(root, "dist"), { recursive: true });
  const file = path.join(root, STAMP_FILE);
  fs.writeFileSync(`${file}.tmp`, `${fingerprint}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/** Before a build: a build that fails or is interrupted must leave no stamp that could match. */
export function clearBuildStamp(root) {
  fs.rmSync(path.join(root, STAMP_FILE), { force: true });
}
