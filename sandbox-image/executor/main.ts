// The executor's entry point: runs inside a sandbox container and speaks the frame protocol on
// stdin/stdout (executor.ts). Only node: built-ins here: this runs on the image's Node.js 18 with no
// node_modules.
//
// In a sandbox it runs as root with only CAP_SETUID and CAP_SETGID, given the identities to act as
// (identities.ts): commands start as the user their request names, file operations go to a file worker
// acting as the sandbox user (the same program, started with --file-worker), and nothing the sandbox
// user runs can signal, trace or stop either process.

import { describeError, logDiagnostic } from "./diagnostics.js";
import { parseExecutorArguments, whyIdentitiesCannotBeUsed, type ExecutorArguments } from "./identities.js";

let parsed: ExecutorArguments;
try {
  parsed = parseExecutorArguments(process.argv.slice(2));
  const problem = parsed.identities.size > 0 ? whyIdentitiesCannotBeUsed() : null;
  if (problem !== null) throw new Error(`identities were given, but ${problem}`);
} catch (error) {
  // Refusing to start is the only safe answer: running sandbox code as ourselves would undo the separation.
  logDiagnostic(`cannot start: ${describeError(error)}`);
  process.exit(78);
}

// Each role loads only its own modules: the file worker's start is on the way of a new sandbox's first
// file request, and loading the executor's modules too would add half again to it.
const fileWorkerIdentity = parsed.fileWorkerFor === null ? undefined : parsed.identities.get(parsed.fileWorkerFor);
if (fileWorkerIdentity !== undefined) (await import("./file-worker.js")).runFileWorker(fileWorkerIdentity);
else (await import("./executor.js")).runExecutor(parsed.identities, parsed.diskLimitMb);
