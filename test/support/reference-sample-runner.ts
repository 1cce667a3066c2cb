// Runs the API reference's samples (the OpenAPI document's x-codeSamples) against an emulator as a
// reader of the page would: the sh sample with bash and curl, the JavaScript sample as an ES module with
// node and this repository's @google/genai, the Python sample with the google-genai SDK of the scratch
// venv (test/support/python-venv.ts). The code is the document's; what changes is what a reader changes:
// the base URL (the sh sample's https://generativelanguage.googleapis.com; the SDKs' documented
// GOOGLE_GEMINI_BASE_URL), the key (GEMINI_API_KEY, which all three read), the placeholders a page's
// sample names (literal IDs replaced in the code, shell variables set), and the variables that the
// pages' SDK samples use but leave out (`created`, `agent_id`/`agentId`, `source_env`/`sourceEnv`),
// defined before the sample as the reader's earlier lines would.

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { projectRoot } from "../../server/common/paths.js";

export interface SampleOutcome {
  /** The exit status (Python: 0, or 1 when the sample raised). */
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface SampleSetup {
  /** Literal text of the sample replaced before it runs (a placeholder ID, `BASE64_ENCODED_IMAGE`). */
  replace?: Record<string, string>;
  /** Shell variables the sh sample reads (`INTERACTION_ID`). */
  env?: Record<string, string>;
  /** Variables the SDK samples use but the page leaves out, by their JavaScript name (Python's is its snake_case). */
  vars?: Record<string, string | { id: string }>;
  /** Files in the folder the sample runs in (the sh upload's main.py). */
  files?: Record<string, string>;
}

/** How long one sample may run: far above what each takes (a second or two); a hung one fails, showing its output. */
const SAMPLE_LIMIT_SECONDS = 120;
const DOCUMENT_HOST = "https://generativelanguage.googleapis.com";

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The sample's code with the setup's replacements made (each must occur: a placeholder gone from the page is a change to look at). */
export function substituted(source: string, setup: SampleSetup): string {
  let code = source;
  for (const [from, to] of Object.entries(setup.replace ?? {})) {
    if (!code.includes(from)) throw new Error(`the sample no longer holds ${JSON.stringify(from)}:\n${source}`);
    code = code.split(from).join(to);
  }
  return code;
}

function writeFiles(folder: string, files: Record<string, string> = {}): void {
  fs.mkdirSync(folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), text);
}

async function runProcess(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<SampleOutcome> {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  const limit = setTimeout(() => child.kill("SIGKILL"), SAMPLE_LIMIT_SECONDS * 1000);
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  }).finally(() => clearTimeout(limit));
  return { status, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") };
}

/** The environment of a sample's process: the key and base URL a reader sets, nothing of ours that a client would read. */
function sampleEnv(url: string, key: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { GEMINI_API_KEY: _key, GOOGLE_API_KEY: _google, GOOGLE_GEMINI_BASE_URL: _base, ...rest } = process.env;
  return { ...rest, ...extra, GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: url };
}

/** The sh sample with bash in `folder` (made with the setup's files): the document's host replaced by the emulator's URL. */
export function runShellSample(
  source: string,
  setup: SampleSetup,
  options: { url: string; key: string; folder: string },
): Promise<SampleOutcome> {
  writeFiles(options.folder, setup.files);
  const code = substituted(source, setup).split(DOCUMENT_HOST).join(options.url);
  fs.writeFileSync(path.join(options.folder, "sample.sh"), code);
  return runProcess(["bash", "sample.sh"], options.folder, sampleEnv(options.url, options.key, setup.env));
}

/**
 * The JavaScript sample as `sample.mjs` in `folder`, run by node: the pages' samples are ES modules with
 * top-level await. A node_modules link to this repository's resolves `@google/genai`; the variables the
 * page leaves out are `const` lines before the sample (its imports are hoisted above them).
 */
export function runJavaScriptSample(
  source: string,
  setup: SampleSetup,
  options: { url: string; key: string; folder: string },
): Promise<SampleOutcome> {
  writeFiles(options.folder, setup.files);
  const modules = path.join(options.folder, "node_modules");
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(projectRoot, "node_modules"), modules);
  const prelude = Object.entries(setup.vars ?? {}).map(([name, value]) => `const ${name} = ${JSON.stringify(value)};\n`);
  fs.writeFileSync(path.join(options.folder, "sample.mjs"), `${prelude.join("")}${substituted(source, setup)}`);
  return runProcess([process.execPath, "sample.mjs"], options.folder, sampleEnv(options.url, options.key));
}

/**
 * One Python process for all Python samples (the SDK takes seconds to import on a busy machine): each
 * sample's code is compiled and run as `__main__` in a fresh namespace that holds only the variables the
 * page leaves out, with GEMINI_API_KEY set for it, its stdout and stderr captured; an exception is exit
 * status 1 with its traceback on stderr, as `python sample.py` would show it.
 */
const PYTHON_WORKER = `
import contextlib, io, json, os, sys, traceback, types
for line in sys.stdin:
    request = json.loads(line)
    os.environ["GEMINI_API_KEY"] = request["key"]
    scope = {"__name__": "__main__"}
    for name, value in request["vars"].items():
        scope[name] = types.SimpleNamespace(**value) if isinstance(value, dict) else value
    out, err, status = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(request["source"], "sample.py", "exec"), scope)
        except SystemExit as exit:
            status = exit.code if isinstance(exit.code, int) else 1
        except BaseException:
            traceback.print_exc()
            status = 1
    sys.__stdout__.write(json.dumps({"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}) + "\\n")
    sys.__stdout__.flush()
`;

export interface PythonSamples {
  run(source: string, setup: SampleSetup, key: string): Promise<SampleOutcome>;
  close(): Promise<void>;
}

export function startPythonSamples(python: string, url: string): PythonSamples {
  const child: ChildProcess = spawn(python, ["-c", PYTHON_WORKER], {
    cwd: projectRoot,
    env: sampleEnv(url, ""),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-20_000);
  });
  const answers = readline.createInterface({ input: child.stdout! });
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  answers.on("line", (line) => waiting.shift()?.resolve(line));
  child.once("exit", (code) => {
    for (const waiter of waiting.splice(0)) waiter.reject(new Error(`the Python worker exited (${code}):\n${stderr}`));
  });
  let queue = Promise.resolve();
  const runOne = (source: string, setup: SampleSetup, key: string): Promise<SampleOutcome> =>
    new Promise<SampleOutcome>((resolve, reject) => {
      const limit = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`a Python sample ran past ${SAMPLE_LIMIT_SECONDS} s:\n${source}\n${stderr}`));
      }, SAMPLE_LIMIT_SECONDS * 1000);
      waiting.push({
        resolve: (line) => {
          clearTimeout(limit);
          resolve(JSON.parse(line) as SampleOutcome);
        },
        reject: (error) => {
          clearTimeout(limit);
          reject(error);
        },
      });
      const vars = Object.fromEntries(Object.entries(setup.vars ?? {}).map(([name, value]) => [snakeCase(name), value]));
      child.stdin!.write(`${JSON.stringify({ source: substituted(source, setup), vars, key })}\n`);
    });
  return {
    run: (source, setup, key) => {
      const outcome = queue.then(() => runOne(source, setup, key));
      queue = outcome.then(
        () => undefined,
        () => undefined,
      );
      return outcome;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin!.end();
      await exited;
    },
  };
}
