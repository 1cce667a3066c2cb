// dockerode, without what it loads for features the emulator does not use. Two of its modules load
// heavy packages at require time for one function each:
// - dockerode's lib/session.js (a BuildKit session) requires @grpc/grpc-js, @grpc/proto-loader and
//   protobufjs; the emulator builds its images with the classic builder, never `version: "2"`;
// - docker-modem's lib/ssh.js (an ssh:// DOCKER_HOST) requires ssh2; the emulator speaks to a socket
//   or a TCP address unless DOCKER_HOST says ssh://.
// Together they were a sixth of a warm `npm start`'s module loading. So before dockerode loads,
// require's cache gets a stand-in for each (Node documents adding entries to require.cache): a
// function that loads the real module the first time it is called and hands the call to it. A
// BuildKit build or an ssh:// engine still works, and pays for its packages only then.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type DockerodeModule from "dockerode";

const require = createRequire(import.meta.url);

type ModuleWithFields = NodeJS.Module & { filename: string; loaded: boolean };

/** Where `specifier` resolves from the module at `fromPath`; null when it does not (another layout: left as it is). */
function resolveFrom(fromPath: string | null, specifier: string): string | null {
  if (fromPath === null) return null;
  try {
    return createRequire(fromPath).resolve(specifier);
  } catch {
    return null;
  }
}

/** Puts in require's cache, for the module at `modulePath` exporting one function, a stand-in that loads it on first call. */
function deferFunctionModule(modulePath: string | null): void {
  if (modulePath === null || require.cache[modulePath]) return;
  const Module = require("node:module") as { new (id: string): ModuleWithFields };
  const standIn = new Module(modulePath);
  standIn.filename = modulePath;
  standIn.loaded = true;
  let real: ((...args: unknown[]) => unknown) | undefined;
  standIn.exports = function loadedOnFirstCall(this: unknown, ...args: unknown[]): unknown {
    if (real === undefined) {
      delete require.cache[modulePath];
      real = require(modulePath) as (...args: unknown[]) => unknown;
    }
    return real.apply(this, args);
  };
  require.cache[modulePath] = standIn;
}

const dockerodeMain = resolveFrom(fileURLToPath(import.meta.url), "dockerode/lib/docker.js");
deferFunctionModule(resolveFrom(dockerodeMain, "./session.js"));
deferFunctionModule(resolveFrom(resolveFrom(dockerodeMain, "docker-modem/lib/modem.js"), "./ssh.js"));

/** The dockerode constructor, as `import Docker from "dockerode"` gives it (types: `import type Docker from "dockerode"`). */
export const DockerClient = require("dockerode") as typeof DockerodeModule;
