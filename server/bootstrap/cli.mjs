#!/usr/bin/env node
// `npm start` / `npm test` / `npm run image` from a fresh clone: each step is idempotent and cheap
// when already done (dependencies, TypeScript build, Docker engine, sandbox image), and shows
// progress for anything slow. Plain JavaScript with no dependencies, because it runs before
// `npm ci` has installed anything.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildExecutor } from "./build-executor.mjs";
import { checkBuild, clearBuildStamp, writeBuildStamp } from "./build-stamp.mjs";
import { engineReady, engineSocket, engineUnanswered, hungEngineAdvice } from "./engine-check.mjs";
import {
  dependencyDecision,
  NATIVE_MODULES_PROGRAM,
  NPM_RECORD_FILE,
  STAMP_FILE as DEPS_STAMP_FILE,
  wantedStamp,
} from "./install-stamp.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const command = process.argv[2];
const passThrough = process.argv.slice(3);

function step(message) {
  console.log(`\u25b8 ${message}`);
}

function run(argv, options = {}) {
  const result = spawnSync(argv[0], argv.slice(1), { cwd: root, stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function mustRun(argv, what) {
  const status = run(argv);
  if (status !== 0) {
    console.error(`error: ${what} failed (exit ${status})`);
    process.exit(status);
  }
}

function checkNode() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 20) {
    console.error(`error: Node.js 20 or newer is needed (this is ${process.version})`);
    process.exit(1);
  }
}

/**
 * Runs a slow step with its output kept out of sight (native builds print thousands of compiler
 * lines) and a heartbeat instead; the output is shown only if the step fails.
 */
function runQuietly(argv, what) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(argv[0], argv.slice(1), { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk) => {
      output = (output + chunk.toString("utf8")).slice(-20000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const heartbeat = setInterval(() => console.log(`  … ${what}: ${Math.round((Date.now() - started) / 1000)} s`), 15000);
    child.on("close", (status) => {
      clearInterval(heartbeat);
      if (status !== 0) {
        console.error(output);
        console.error(`error: ${what} failed (exit ${status})`);
        process.exit(status ?? 1);
      }
      console.log(`  ${what} done in ${Math.round((Date.now() - started) / 1000)} s`);
      resolve();
    });
  });
}

/**
 * npm ci when node_modules does not match package-lock.json and this Node.js (install-stamp.mjs: our
 * stamp, or npm's own record of an install of this lock whose native modules load here).
 */
async function ensureDependencies() {
  const lockText = fs.readFileSync(path.join(root, "package-lock.json"), "utf8");
  const read = (relative) => {
    try {
      const file = path.join(root, relative);
      return { text: fs.readFileSync(file, "utf8"), mtimeMs: fs.statSync(file).mtimeMs };
    } catch {
      return { text: null, mtimeMs: 0 };
    }
  };
  const stamp = read(DEPS_STAMP_FILE);
  const record = read(NPM_RECORD_FILE);
  const decision = dependencyDecision({
    lockText,
    nodeVersion: process.version,
    stamp: stamp.text,
    stampMtimeMs: stamp.mtimeMs,
    record: record.text,
    recordMtimeMs: record.mtimeMs,
  });
  const want = `${wantedStamp(lockText, process.version)}\n`;
  if (decision === "current") return;
  if (decision === "check-npm-install") {
    const loads = spawnSync(process.execPath, ["-e", NATIVE_MODULES_PROGRAM], { cwd: root, stdio: "ignore" });
    if (loads.status === 0) {
      fs.writeFileSync(path.join(root, DEPS_STAMP_FILE), want);
      return;
    }
    step("the native modules in node_modules were built for another Node.js…");
  }
  step("installing dependencies (npm ci; native modules compile from source, re2 takes about two minutes)…");
  await runQuietly(["npm", "ci", "--no-audit", "--no-fund"], "npm ci");
  fs.writeFileSync(path.join(root, DEPS_STAMP_FILE), want);
}

/**
 * tsc never deletes what it once emitted: a moved or removed source would live on in dist/ (a test
 * that still runs, an executor file copied into the sandbox image). Outputs without a source go.
 */
function pruneStaleOutputs(relative = "") {
  const compiled = path.join(root, "dist", relative);
  if (!fs.existsSync(compiled)) return;
  for (const entry of fs.readdirSync(compiled, { withFileTypes: true })) {
    const child = path.join(relative, entry.name);
    if (entry.isDirectory()) {
      pruneStaleOutputs(child);
      continue;
    }
    const source = /^(.*)\.js(\.map)?$/.exec(child);
    if (source && !fs.existsSync(path.join(root, `${source[1]}.ts`))) fs.rmSync(path.join(compiled, entry.name));
  }
}

/** Compiles what changed; nothing when dist/ is the build of the sources as they are (build-stamp.mjs). */
function build() {
  const { current, fingerprint } = checkBuild(root);
  if (current) return;
  clearBuildStamp(root);
  pruneStaleOutputs();
  step("compiling TypeScript…");
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  mustRun([process.execPath, tsc, "-p", "tsconfig.json"], "the TypeScript build");
  step("building the sandbox's executor (Go)…");
  // Installs Debian's golang-go where Go is missing and we may (root, apt-get), as the engine is.
  mustRun(["bash", path.join(root, "server", "bootstrap", "ensure-go.sh")], "the Go check");
  try {
    buildExecutor(root);
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
  writeBuildStamp(root, fingerprint);
}

const DOCKER_SCRIPT = path.join(root, "server", "bootstrap", "ensure-docker.sh");

/** Whether ensure-docker.sh would find nothing to do, asked of the engine in one request (engine-check.mjs). */
function dockerNeedsNothing() {
  return engineReady(process.env, fs.readFileSync(DOCKER_SCRIPT, "utf8"));
}

function runDockerScript() {
  mustRun(["bash", DOCKER_SCRIPT], "the Docker engine check");
}

/** How long the engine has to answer a container's inspect before it is called hung (a busy one takes under a second). */
const ENGINE_HANG_MS = 10_000;

/** What of a hung engine did not answer (engine-check.mjs); "" when it answers, or is not on a local socket. */
async function engineHang() {
  const socket = engineSocket(process.env.DOCKER_HOST);
  return socket === null ? "" : engineUnanswered(socket, ENGINE_HANG_MS);
}

/** The engine, as ensure-docker.sh leaves it; a hung one ends this command at once, saying what to do, rather than every test or step waiting on it. */
async function ensureDocker() {
  step("checking the Docker engine…");
  if (!(await dockerNeedsNothing())) runDockerScript();
  const unanswered = await engineHang();
  if (unanswered !== "") {
    console.error(`error: ${hungEngineAdvice(unanswered, ENGINE_HANG_MS)}`);
    process.exit(1);
  }
}

/**
 * The dashboard's browser test drives a Chromium (docs/testing.md#the-dashboard-in-a-browser): installed
 * when missing, as the Docker engine is. Its path goes to the tests as EMULATOR_CHROMIUM. When none can
 * be had, the other tests still run; the browser test then fails in CI and is skipped elsewhere, each
 * saying how to install one.
 */
function ensureChromium() {
  step("checking for Chromium (the dashboard's browser test)…");
  const script = path.join(root, "server", "bootstrap", "ensure-chromium.sh");
  if (run(["bash", script]) !== 0) {
    console.warn("warning: no Chromium: the dashboard's browser test will fail in CI and be skipped elsewhere");
    return;
  }
  const found = spawnSync("bash", ["-c", `source "$1" && find_chromium`, "bash", script], { cwd: root, encoding: "utf8" });
  const browser = found.stdout.trim().split("\n").pop();
  if (found.status === 0 && browser) process.env.EMULATOR_CHROMIUM = browser;
}

/** The tests that drive the dashboard in Chromium (dashboard.test.js, dashboard-webhooks.test.js, model-agent.test.js's turns). */
const BROWSER_TESTS = /^(dashboard(-[a-z-]+)?|model-agent)\.test\.js$/;

/** Whether the files to run include one of the browser tests. */
function includesBrowserTest(files) {
  return files.some((file) => BROWSER_TESTS.test(path.basename(file)) && needsDocker(file));
}

/**
 * The Node.js image docker-compose.yml builds on by default (build-node-image.sh: the sandbox's base
 * image plus this Node.js), so that `docker compose up --build` needs no registry. Not needed to run the
 * emulator itself, so a failure is a warning, with the way round it.
 */
function ensureComposeNodeImage() {
  step("checking docker-compose's Node.js image…");
  const status = run(["bash", path.join(root, "server", "bootstrap", "build-node-image.sh")], {
    env: { ...process.env, NODE_BINARY: process.execPath },
  });
  if (status !== 0)
    console.warn("warning: docker-compose.yml's local Node.js image was not built (above); the emulator itself is not affected");
}

/** docker compose (or docker-compose 1.29), for the docker-compose test; installed as root on Debian. */
function ensureCompose() {
  const status = run(["bash", path.join(root, "server", "bootstrap", "ensure-compose.sh")], { stdio: ["ignore", "ignore", "inherit"] });
  if (status !== 0) console.warn("warning: no docker-compose command: the docker-compose test will fail (above)");
}

/** The test of a sandbox FROM BusyBox alone builds its base from the host's /bin/busybox (Debian's busybox-static). */
const BUSYBOX_TEST = "base-image-without-node.test.js";

function ensureBusybox() {
  step("checking for BusyBox (the test of a sandbox FROM BusyBox alone)…");
  if (run(["bash", path.join(root, "server", "bootstrap", "ensure-busybox.sh")]) !== 0)
    console.warn("warning: no /bin/busybox: the test of a sandbox FROM BusyBox alone will fail (above)");
}

/**
 * Test tiers (test/<tier>/): unit and integration need no Docker engine, docker and e2e do. Compiled
 * files count only while their source exists, so a test moved or deleted does not run from a stale dist/.
 */
const TIERS_WITHOUT_DOCKER = ["unit", "integration"];
const TIERS_WITH_DOCKER = ["docker", "e2e", "fault"];

function findTests(tier) {
  const walk = (relative) => {
    const compiled = path.join(root, "dist", "test", relative);
    if (!fs.existsSync(compiled)) return [];
    return fs.readdirSync(compiled, { withFileTypes: true }).flatMap((entry) => {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) return walk(child);
      if (!entry.name.endsWith(".test.js")) return [];
      const source = path.join(root, "test", child.replace(/\.js$/, ".ts"));
      return fs.existsSync(source) ? [path.join(compiled, entry.name)] : [];
    });
  };
  return walk(tier).sort();
}

/** Whether a test file given on the command line lives in a tier that needs Docker. */
function needsDocker(file) {
  const relative = path.relative(path.join(root, "dist", "test"), path.resolve(root, file));
  const tier = relative.split(path.sep)[0];
  return !TIERS_WITHOUT_DOCKER.includes(tier);
}

/**
 * Every emulator the tests start (child processes, embedded and fake-runtime ones alike inherit it)
 * checks each answer it sends against the service's OpenAPI document, so an answer that violates it
 * fails the test that received it (docs/testing.md#the-openapi-document-as-a-contract).
 * EMULATOR_CONTRACT_CHECK=false in the environment turns it off.
 */
function runTests(files, extraFlags = []) {
  step(`running ${files.length} test files…`);
  const env = { ...process.env, EMULATOR_CONTRACT_CHECK: process.env.EMULATOR_CONTRACT_CHECK ?? "true" };
  return run([process.execPath, "--enable-source-maps", "--test", "--test-reporter=spec", ...extraFlags, ...files], { env });
}

checkNode();
switch (command) {
  case "start": {
    await ensureDependencies();
    build();
    // The engine answers while the emulator's modules load (they take most of a warm start, the
    // engine's one request a tenth of it); only an engine that did not answer waits for the script.
    step("checking the Docker engine…");
    const engineChecked = dockerNeedsNothing();
    // In this process rather than a second Node.js (its start is a tenth of a warm start on a busy
    // machine). serve() reads only the environment and handles SIGINT/SIGTERM itself. Without source
    // maps: reading and decoding every module's map took a fifth of the start-up's module loading;
    // stack traces name dist/'s files, and NODE_OPTIONS=--enable-source-maps maps them to the sources.
    process.argv = [process.argv[0], path.join(root, "dist", "server", "main.js"), ...passThrough];
    const serving = import(pathToFileURL(path.join(root, "dist", "server", "serve.js")).href);
    if (!(await engineChecked)) runDockerScript();
    // A hung engine does not stop the emulator (its /health says so, and it goes on once the engine is
    // back): a warning, not waited for.
    void engineHang().then((unanswered) => {
      if (unanswered !== "") console.warn(`warning: ${hungEngineAdvice(unanswered, ENGINE_HANG_MS)}`);
    });
    // Not docker-compose's Node.js image: only compose needs it (`npm run image` builds it, as the
    // compose instructions say, and so does the compose test), and checking it took seconds.
    step("starting the emulator (the sandbox image is built on first start)…");
    (await serving).serveOrExit();
    break;
  }
  case "image":
    // Refused before the slow steps, not after them.
    if (passThrough.includes("--save") && !/^[^-]/.test(passThrough[passThrough.indexOf("--save") + 1] ?? "")) {
      console.error("usage: npm run image -- --save FILE (the tar to write, for docker load on a swarm's nodes)");
      process.exit(2);
    }
    await ensureDependencies();
    build();
    await ensureDocker();
    mustRun([process.execPath, path.join(root, "dist", "tools", "prepare-image.js")], "preparing the sandbox image");
    ensureComposeNodeImage();
    // --save FILE: both images deploy/swarm.yml needs, in one tar for `docker load` (tools/save-images.ts).
    if (passThrough.includes("--save")) {
      step("saving the stack's images…");
      mustRun(
        [process.execPath, path.join(root, "dist", "tools", "save-images.js"), passThrough[passThrough.indexOf("--save") + 1] ?? ""],
        "saving the images",
      );
    }
    break;
  case "test": {
    await ensureDependencies();
    build();
    const files = passThrough.length > 0 ? passThrough : [...TIERS_WITHOUT_DOCKER, ...TIERS_WITH_DOCKER].flatMap(findTests);
    // Only what needs Docker waits for it: `npm test -- dist/test/unit/x.test.js` runs at once.
    if (files.some(needsDocker)) {
      await ensureDocker();
      step("preparing the sandbox image…");
      mustRun([process.execPath, path.join(root, "dist", "tools", "prepare-image.js")], "preparing the sandbox image");
      ensureCompose();
    }
    if (includesBrowserTest(files)) ensureChromium();
    if (files.some((file) => path.basename(file) === BUSYBOX_TEST)) ensureBusybox();
    process.exit(runTests(files));
    break;
  }
  case "test:unit":
    await ensureDependencies();
    build();
    // These files mostly wait on child processes and timers, so running four at once is what makes
    // the tier fast on two cores (the executor's conformance suite alone takes about half a minute).
    process.exit(runTests(TIERS_WITHOUT_DOCKER.flatMap(findTests), ["--test-concurrency=4"]));
    break;
  case "lint":
  case "format": {
    // Biome formats and lints in one pass (biome.jsonc); `lint` only reports, `format` rewrites.
    await ensureDependencies();
    const biome = path.join(root, "node_modules", "@biomejs", "biome", "bin", "biome");
    const argv = command === "lint" ? ["check", "."] : ["check", "--write", "."];
    process.exit(run([process.execPath, biome, ...argv, ...passThrough]));
    break;
  }
  case "schemas":
    // schemas/hooks.schema.json from the hooks parser's zod schema, schemas/sdk-request-fields.json from the SDK's types (tools/write-schemas.ts).
    await ensureDependencies();
    build();
    process.exit(run([process.execPath, path.join(root, "dist", "tools", "write-schemas.js")]));
    break;
  case "coverage":
    // docs/coverage.md, the parity table, from the SDK's types, the tests' `// covers:` lines and tools/parity/parity-notes.ts.
    await ensureDependencies();
    build();
    process.exit(run([process.execPath, path.join(root, "dist", "tools", "parity", "write-coverage.js")]));
    break;
  case "bench":
    await ensureDependencies();
    build();
    await ensureDocker();
    process.exit(run([process.execPath, "--enable-source-maps", path.join(root, "dist", "test", "bench", "main.js"), ...passThrough]));
    break;
  case "load":
    // The bounded load test (test/load/load.ts), or with --soak the shared-emulator soak (test/load/soak.ts:
    // ten keys, webhooks and triggers, LOAD_SOAK_SECONDS long): not part of `npm test`, which they would slow down.
    await ensureDependencies();
    build();
    await ensureDocker();
    step("preparing the sandbox image…");
    mustRun([process.execPath, path.join(root, "dist", "tools", "prepare-image.js")], "preparing the sandbox image");
    process.exit(
      run([
        process.execPath,
        "--enable-source-maps",
        path.join(root, "dist", "test", "load", passThrough.includes("--soak") ? "soak.js" : "load.js"),
      ]),
    );
    break;
  default:
    console.error("usage: node server/bootstrap/cli.mjs start|test|test:unit|lint|format|image|schemas|coverage|bench|load [args]");
    process.exit(2);
}
