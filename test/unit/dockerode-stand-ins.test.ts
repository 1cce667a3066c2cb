// server/sandbox/docker/dockerode.ts: dockerode loads without gRPC and ssh2, and a BuildKit session or
// an ssh:// engine still works (each stand-in hands the call to the real module, loading its packages then).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { DockerClient } from "../../server/sandbox/docker/dockerode.js";

const require = createRequire(import.meta.url);
const loaded = (pattern: RegExp): string[] => Object.keys(require.cache).filter((file) => pattern.test(file));

describe("dockerode as the emulator loads it", () => {
  it("is dockerode, with no gRPC or protobufjs loaded", () => {
    assert.equal(typeof DockerClient, "function");
    assert.equal(typeof new DockerClient({ socketPath: "/nonexistent.sock" }).listContainers, "function");
    assert.ok(loaded(/node_modules\/dockerode\/lib\/docker\.js$/).length === 1, "dockerode itself is loaded");
    assert.deepEqual(loaded(/node_modules\/(@grpc|protobufjs|ssh2)\//), []);
  });

  it("runs docker-modem's own ssh agent when DOCKER_HOST is ssh://, loading ssh2 then, once", () => {
    const modemPath = createRequire(require.resolve("dockerode/lib/docker.js")).resolve("docker-modem/lib/modem.js");
    const ssh = createRequire(modemPath)("./ssh.js") as (options: object) => { createConnection: unknown };
    const agent = ssh({ host: "127.0.0.1", port: 1 });
    assert.equal(typeof agent.createConnection, "function", "an http.Agent that dials through ssh2");
    assert.ok(loaded(/node_modules\/ssh2\//).length > 0, "the real ssh module loaded ssh2");
    const ssh2Files = loaded(/node_modules\/ssh2\//).length;
    ssh({ host: "127.0.0.1", port: 1 });
    assert.equal(loaded(/node_modules\/ssh2\//).length, ssh2Files, "the second agent loads nothing again");
  });

  it("runs dockerode's own session code when a BuildKit session is asked for", async () => {
    const sessionPath = require.resolve("dockerode/lib/session.js");
    const withSession = require(sessionPath) as (docker: unknown, auth: unknown, handler: (error: Error | null) => void) => void;
    const dialed: Array<{ path: string; headers: Record<string, string> }> = [];
    const docker = {
      modem: {
        dial: (options: { path: string; headers: Record<string, string> }, callback: (error: Error) => void) => {
          dialed.push(options);
          callback(new Error("no engine here"));
        },
      },
    };
    const error = await new Promise<Error | null>((resolve) => withSession(docker, null, resolve));
    assert.equal(error?.message, "no engine here");
    assert.equal(dialed[0]?.path, "/session");
    assert.equal(dialed[0]?.headers["Upgrade"], "h2c");
    assert.ok(loaded(/node_modules\/@grpc\/grpc-js\//).length > 0, "the real session module loaded gRPC");
  });
});
