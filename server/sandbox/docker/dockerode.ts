// dockerode, without what it loads for BuildKit sessions. Its lib/docker.js requires lib/session.js at
// load, and that requires @grpc/grpc-js, @grpc/proto-loader and protobufjs: about a sixth of a warm
// `npm start`'s module loading, for a session the emulator never opens (it builds its images with the
// classic builder, never `version: "2"`). So before dockerode loads, require's cache gets a stand-in
// for session.js (Node documents adding entries to require.cache) that loads the real one the first
// time it is called: a BuildKit build still works, and pays for gRPC only then.

import { createRequire } from "node:module";
import type DockerodeModule from "dockerode";

const require = createRequire(import.meta.url);

function deferSessionModule(): void {
  let sessionPath: string;
  try {
    sessionPath = require.resolve("dockerode/lib/session.js");
  } catch {
    // Another dockerode layout: it loads as it is.
    return;
  }
  if (require.cache[sessionPath]) return;
  const Module = require("node:module") as typeof import("node:module") & {
    new (id: string): NodeJS.Module & { filename: string; loaded: boolean };
  };
  const standIn = new Module(sessionPath);
  standIn.filename = sessionPath;
  standIn.loaded = true;
  standIn.exports = function withSession(this: unknown, ...args: unknown[]): unknown {
    delete require.cache[sessionPath];
    const real = require(sessionPath) as (...args: unknown[]) => unknown;
    return real.apply(this, args);
  };
  require.cache[sessionPath] = standIn;
}

deferSessionModule();

/** The dockerode constructor, as `import Docker from "dockerode"` gives it (types: `import type Docker from "dockerode"`). */
export const DockerClient = require("dockerode") as typeof DockerodeModule;
