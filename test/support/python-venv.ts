// The official Python SDK in a scratch virtual environment, for tests that run Python against the
// emulator: `pip install ./clients/python google-genai pytest` into a venv kept between runs under the
// temporary folder, keyed by a hash of the package's files, in a folder of this clone's own (the build
// records the clone's path), so only a changed plugin installs again (a few minutes on a busy machine; a
// kept one starts at once); only the newest is kept. Without python3 or a reachable package index a test
// using it skips, except in CI (CI=true), where it fails saying so: CI must run the Python tests.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestContext } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { runningInCi } from "./browser.js";

const PACKAGE_DIR = path.join(projectRoot, "clients", "python");
/** One folder per clone (the build records the clone's path), so that clones never prune each other's venvs. */
const VENV_CACHE = path.join(
  os.tmpdir(),
  "interactions-emulator-python-venvs",
  createHash("sha256").update(projectRoot).digest("hex").slice(0, 12),
);
const READY_MARKER = ".installed";
/** pip's lines worth showing while it works: what it fetches, builds and installs. */
const PIP_PROGRESS = /^(Processing|Collecting|Building|Installing|Successfully|ERROR|error)/;
const UNREACHABLE_INDEX =
  /No matching distribution|Could not find a version|NewConnectionError|Name or service not known|Network is unreachable/;

/** Bounds far above what each takes here (pip 7 s from the local mirror, pytest about 40 s). */
const PIP_LIMIT_SECONDS = 600;
export const PYTEST_LIMIT_SECONDS = 900;

const progress = (line: string) => console.log(`  python: ${line}`);

function packageFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => !["build", "__pycache__"].includes(entry.name) && !entry.name.endsWith(".egg-info"))
    .flatMap((entry) => {
      const full = path.join(folder, entry.name);
      return entry.isDirectory() ? packageFiles(full) : [full];
    })
    .sort();
}

/** What the installed package is made of: its files (tests excluded: they run from the clone). */
function packageHash(): string {
  const hash = createHash("sha256");
  for (const file of packageFiles(PACKAGE_DIR).filter((file) => !file.startsWith(path.join(PACKAGE_DIR, "tests")))) {
    hash.update(path.relative(PACKAGE_DIR, file)).update(fs.readFileSync(file));
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Runs argv to its end, its output shown line by line through `show` (all of it when `show` is omitted).
 * Killed past `limitSeconds`, with a line saying so at the end of its output: a hung pip or pytest is
 * a failure that shows where it stood, not a CI run that never ends.
 */
export function run(
  argv: string[],
  options: { cwd: string; limitSeconds: number; env?: NodeJS.ProcessEnv; show?: RegExp },
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const limit = setTimeout(() => {
      output += `\n[killed: still running after ${options.limitSeconds} s]\n`;
      child.kill("SIGKILL");
    }, options.limitSeconds * 1000);
    let partial = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      const lines = (partial + text).split(/\r?\n/);
      partial = lines.pop() ?? "";
      for (const line of lines) if (options.show === undefined || options.show.test(line)) progress(line.slice(0, 200));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(limit);
      reject(error);
    });
    child.once("close", (status) => {
      clearTimeout(limit);
      resolve({ status, output });
    });
  });
}

/** A test that cannot run here: a skip outside CI, a failure in CI. */
export function unavailable(t: TestContext, reason: string): void {
  if (runningInCi()) assert.fail(`CI must run the pytest plugin's tests, but ${reason}`);
  t.skip(reason);
}

/** The cached virtual environment's python, installing it when missing; null (after unavailable()) when it cannot be made. */
export async function scratchVenv(t: TestContext): Promise<string | null> {
  const python3 = spawnSync("python3", ["--version"], { encoding: "utf8" });
  if (python3.status !== 0) {
    unavailable(t, "python3 is not on PATH (the plugin needs Python 3.9 or newer with its venv module)");
    return null;
  }
  const venv = path.join(VENV_CACHE, packageHash());
  const python = path.join(venv, "bin", "python");
  if (fs.existsSync(path.join(venv, READY_MARKER))) {
    progress(`reusing ${venv}`);
    return python;
  }
  // Half made (an interrupted run): made again from nothing.
  fs.rmSync(venv, { recursive: true, force: true });
  fs.mkdirSync(VENV_CACHE, { recursive: true });
  progress(`python3 -m venv ${venv}`);
  const made = await run(["python3", "-m", "venv", venv], { cwd: projectRoot, limitSeconds: 120 });
  assert.equal(made.status, 0, `python3 -m venv failed:\n${made.output}`);
  progress("pip install ./clients/python google-genai pytest");
  // pip retries an index it cannot reach five times, with back-off, for every package it looks up: on a
  // machine whose pip lists a local mirror beside an unreachable default index (this project's, and
  // CI's), that was 150 retries and 3 min 51 s of waiting for 7 s of work. One try each, unless the
  // user's own PIP_RETRIES says otherwise.
  const retries = process.env.PIP_RETRIES ? [] : ["--retries", "0"];
  const installed = await run([python, "-m", "pip", "install", ...retries, "./clients/python", "google-genai", "pytest"], {
    cwd: projectRoot,
    limitSeconds: PIP_LIMIT_SECONDS,
    show: PIP_PROGRESS,
  });
  if (installed.status !== 0) {
    fs.rmSync(venv, { recursive: true, force: true });
    const tail = installed.output.split("\n").slice(-15).join("\n");
    if (UNREACHABLE_INDEX.test(installed.output)) {
      unavailable(
        t,
        `pip could not reach a package index (or mirror) with pytest and google-genai; check pip's index settings (pip config list):\n${tail}`,
      );
      return null;
    }
    assert.fail(`pip install ./clients/python google-genai pytest failed:\n${tail}`);
  }
  // pip builds a local folder in place (which is how the build can record this clone's path); its
  // build folders are git-ignored, and removed so that the next build starts clean.
  fs.rmSync(path.join(PACKAGE_DIR, "build"), { recursive: true, force: true });
  for (const entry of fs.readdirSync(PACKAGE_DIR)) {
    if (entry.endsWith(".egg-info")) fs.rmSync(path.join(PACKAGE_DIR, entry), { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(venv, READY_MARKER), `${new Date().toISOString()}\n`);
  // One is kept: those of earlier versions of the package would only fill the disk.
  for (const entry of fs.readdirSync(VENV_CACHE)) {
    if (entry !== path.basename(venv)) fs.rmSync(path.join(VENV_CACHE, entry), { recursive: true, force: true });
  }
  return python;
}
