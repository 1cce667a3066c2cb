// Builds the sandbox's executor, a static Go binary (sandbox-image/executor-go), into
// dist/sandbox-image/sandbox-executor. Plain JavaScript with no dependencies, like build-stamp.mjs: it
// runs as part of the build before anything else is known to work. Offline by construction: the
// module has no requirements, and GOPROXY=off makes Go fail rather than reach for the network.

import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const EXECUTOR_SOURCE_FOLDER = path.join("sandbox-image", "executor-go");
export const EXECUTOR_BINARY = path.join("dist", "sandbox-image", "sandbox-executor");

/** How to get Go where it is missing: Debian's package builds the executor offline. */
export const GO_MISSING_MESSAGE =
  "the sandbox's executor is written in Go, and `go` was not found on PATH: install it with `apt-get install golang-go` (Go 1.19 or newer), then build again";

/**
 * The go build command line. -buildvcs=false: in a git checkout Go stamps the commit and whether the
 * tree is dirty into the binary, so every commit, even one touching no Go source, made a new executor,
 * hence a new sandbox image tag (its hash covers the binary) and a rebuild of the image. Without it the
 * same sources make the same bytes, here and in server/Dockerfile's build.
 */
export function executorBuildArguments() {
  return ["build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", EXECUTOR_BINARY, `./${EXECUTOR_SOURCE_FOLDER}`];
}

/** Builds the binary; throws with what to do when Go is missing or the build fails. */
export function buildExecutor(root, env = process.env) {
  const version = spawnSync("go", ["version"], { cwd: root, encoding: "utf8", env });
  if (version.error || version.status !== 0) throw new Error(GO_MISSING_MESSAGE);
  // Static: no C library, so the binary runs in any Linux image (Alpine, BusyBox, distroless).
  const buildEnv = { ...env, CGO_ENABLED: "0", GOPROXY: "off" };
  const built = spawnSync("go", executorBuildArguments(), { cwd: root, stdio: "inherit", env: buildEnv });
  if (built.error || built.status !== 0) throw new Error(`building the executor failed (go ${executorBuildArguments().join(" ")})`);
}

// `node server/bootstrap/build-executor.mjs` (npm run build): the binary alone, from the project root.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    buildExecutor(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."));
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
}
