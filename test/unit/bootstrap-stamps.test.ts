// The two stamps that make a warm `npm start` cheap (server/bootstrap/build-stamp.mjs and
// install-stamp.mjs): dist/ counts as current only while no build input was changed, added or deleted
// and every output is there; node_modules counts as current after our install of this lock on this
// Node.js, or after npm's own install of this lock (its hidden lockfile), never after a changed lock or
// a Node.js changed since our stamp. Real files in a scratch project for the first.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, beforeEach, describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";

interface BuildStamp {
  checkBuild(root: string): { current: boolean; fingerprint: string };
  writeBuildStamp(root: string, fingerprint: string): void;
  clearBuildStamp(root: string): void;
  listSources(root: string): string[];
}
interface InstallStamp {
  wantedStamp(lockText: string, nodeVersion: string): string;
  npmInstalledLock(lock: unknown, record: unknown): boolean;
  dependencyDecision(input: {
    lockText: string;
    nodeVersion: string;
    stamp: string | null;
    stampMtimeMs: number;
    record: string | null;
    recordMtimeMs: number;
  }): "current" | "check-npm-install" | "install";
}

// Plain JavaScript that runs before anything is installed, so not compiled into dist/: loaded from the sources.
const load = (name: string) => import(pathToFileURL(path.join(projectRoot, "server", "bootstrap", name)).href);
const buildStamp = (await load("build-stamp.mjs")) as BuildStamp;
const installStamp = (await load("install-stamp.mjs")) as InstallStamp;

describe("the build stamp", () => {
  let root: string;
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  };
  /** A build, as far as the stamp can tell: every source's output, then the stamp of the inputs taken before. */
  const build = () => {
    const { fingerprint } = buildStamp.checkBuild(root);
    for (const source of buildStamp.listSources(root))
      if (!source.endsWith(".d.ts")) write(path.join("dist", source.replace(/\.ts$/, ".js")), "//");
    buildStamp.writeBuildStamp(root, fingerprint);
  };
  const current = () => buildStamp.checkBuild(root).current;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "build-stamp-"));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    write("tsconfig.json", "{}");
    write("package-lock.json", "{}");
    write("server/a.ts", "export const a = 1;\n");
    write("test/unit/b.test.ts", "export {};\n");
    write("server/types.d.ts", "declare const x: number;\n");
    build();
  });

  it("is current after a build, and stays so while nothing changes", () => {
    assert.equal(current(), true);
    assert.equal(current(), true);
  });

  it("is not current without a build, or after the stamp is cleared (a build that failed)", () => {
    fs.rmSync(path.join(root, "dist"), { recursive: true });
    assert.equal(current(), false);
    build();
    buildStamp.clearBuildStamp(root);
    assert.equal(current(), false);
  });

  it("is not current after a source changed, even to the same size with its mtime put back", () => {
    const file = path.join(root, "server/a.ts");
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, "export const a = 2;\n");
    fs.utimesSync(file, mtime, mtime);
    assert.equal(current(), false);
    build();
    assert.equal(current(), true);
  });

  it("is not current after a source was added or deleted, or a setting changed", () => {
    write("proxy/c.ts", "export {};\n");
    assert.equal(current(), false, "added");
    build();
    fs.rmSync(path.join(root, "proxy/c.ts"));
    assert.equal(current(), false, "deleted");
    build();
    write("tsconfig.json", '{"compilerOptions":{}}');
    assert.equal(current(), false, "tsconfig.json");
    build();
    write("node_modules/.package-lock.json", "{}");
    assert.equal(current(), false, "npm installed something");
  });

  it("is not current when an output is missing (a declaration has none)", () => {
    fs.rmSync(path.join(root, "dist/server/a.js"));
    assert.equal(current(), false);
  });

  it("is not current after a file saved while the build ran", () => {
    const { fingerprint } = buildStamp.checkBuild(root);
    write("server/a.ts", "export const a = 3;\n");
    buildStamp.writeBuildStamp(root, fingerprint);
    assert.equal(current(), false);
  });
});

describe("the install stamp", () => {
  const lock = {
    name: "p",
    lockfileVersion: 3,
    packages: {
      "": { name: "p", dependencies: { zod: "4.0.0" } },
      "node_modules/zod": { version: "4.0.0", integrity: "sha512-z", license: "MIT" },
      "node_modules/@biomejs/cli-darwin-arm64": { version: "2.0.0", optional: true, cpu: ["arm64"] },
    },
  };
  const lockText = JSON.stringify(lock, null, 2);
  // npm's hidden lockfile of an install of that lock on Linux: no root entry, no other platform's binary, keys in its own order.
  const record = JSON.stringify({
    name: "p",
    lockfileVersion: 3,
    packages: { "node_modules/zod": { license: "MIT", integrity: "sha512-z", version: "4.0.0" } },
  });
  const ours = installStamp.wantedStamp(lockText, "v20.1.0");
  const decide = (input: Partial<Parameters<InstallStamp["dependencyDecision"]>[0]>) =>
    installStamp.dependencyDecision({
      lockText,
      nodeVersion: "v20.1.0",
      stamp: null,
      stampMtimeMs: 0,
      record: null,
      recordMtimeMs: 0,
      ...input,
    });

  it("is current after our install of this lock on this Node.js", () => {
    assert.equal(decide({ stamp: `${ours}\n`, stampMtimeMs: 2, record, recordMtimeMs: 1 }), "current");
  });

  it("installs when nothing was installed", () => {
    assert.equal(decide({}), "install");
  });

  it("takes npm's own install of this lock (`npm ci` writes no stamp of ours), once its native modules load", () => {
    assert.equal(decide({ record, recordMtimeMs: 5 }), "check-npm-install");
  });

  it("reinstalls after the lock changed, whoever installed", () => {
    const changed = JSON.stringify({
      ...lock,
      packages: { ...lock.packages, "node_modules/zod": { version: "4.1.0", integrity: "sha512-y" } },
    });
    assert.equal(decide({ lockText: changed, stamp: ours, stampMtimeMs: 2, record, recordMtimeMs: 1 }), "install");
    assert.equal(decide({ lockText: changed, record, recordMtimeMs: 1 }), "install");
  });

  it("reinstalls after Node.js changed since our install, though npm's record still matches the lock", () => {
    assert.equal(decide({ nodeVersion: "v22.0.0", stamp: ours, stampMtimeMs: 2, record, recordMtimeMs: 1 }), "install");
  });

  it("takes npm's install made after our stamp (npm ci again, on another Node.js) when it is of this lock", () => {
    assert.equal(decide({ nodeVersion: "v22.0.0", stamp: ours, stampMtimeMs: 1, record, recordMtimeMs: 2 }), "check-npm-install");
  });

  it("tells an install of this lock from others: a package missing, extra, or different; a non-optional one left out", () => {
    const installed = JSON.parse(record) as { packages: Record<string, unknown> };
    assert.equal(installStamp.npmInstalledLock(lock, installed), true);
    assert.equal(installStamp.npmInstalledLock(lock, { packages: {} }), false, "zod is not optional");
    assert.equal(
      installStamp.npmInstalledLock(lock, { packages: { ...installed.packages, "node_modules/left-pad": { version: "1.0.0" } } }),
      false,
    );
    assert.equal(
      installStamp.npmInstalledLock(lock, {
        packages: { "node_modules/zod": { version: "4.0.1", integrity: "sha512-z", license: "MIT" } },
      }),
      false,
    );
    assert.equal(installStamp.npmInstalledLock(lock, null), false);
    assert.equal(decide({ record: "not json", recordMtimeMs: 5 }), "install");
  });
});

interface EngineCheck {
  engineSocket(dockerHost: string | undefined): string | null;
  engineInfo(socketPath: string, timeoutMs?: number): Promise<unknown>;
  engineUnanswered(socketPath: string, timeoutMs?: number): Promise<string>;
  hungEngineAdvice(what: string, timeoutMs: number): string;
  scriptRunscArgs(scriptText: string): unknown;
  nothingToDo(info: unknown, facts: { runscWanted: boolean; runscInstalled: boolean; runscArgs: unknown }): boolean;
}
const engineCheck = (await load("engine-check.mjs")) as EngineCheck;

describe("the engine check's fast path (the script is skipped only where it would do nothing)", () => {
  const script = fs.readFileSync(path.join(projectRoot, "server", "bootstrap", "ensure-docker.sh"), "utf8");
  const runscArgs = engineCheck.scriptRunscArgs(script);
  const registered = { Runtimes: { runc: { path: "runc" }, runsc: { path: "/usr/bin/runsc", runtimeArgs: runscArgs } } };

  it("reads the script's own runsc arguments", () => {
    assert.ok(Array.isArray(runscArgs) && runscArgs.includes("--network=none"), JSON.stringify(runscArgs));
  });

  it("talks to the engine's socket only: the default one, or DOCKER_HOST's unix socket; never a TCP engine", () => {
    assert.equal(engineCheck.engineSocket(undefined), "/var/run/docker.sock");
    assert.equal(engineCheck.engineSocket("unix:///run/user/1000/docker.sock"), "/run/user/1000/docker.sock");
    assert.equal(engineCheck.engineSocket("tcp://10.0.0.2:2376"), null);
  });

  it("runs the script when the engine does not answer, or when gVisor is installed or wanted but not registered as the script registers it", () => {
    const facts = { runscWanted: false, runscInstalled: false, runscArgs };
    assert.equal(engineCheck.nothingToDo(null, facts), false);
    assert.equal(engineCheck.nothingToDo({ Runtimes: { runc: {} } }, facts), true, "no gVisor anywhere: nothing to do");
    assert.equal(engineCheck.nothingToDo({ Runtimes: { runc: {} } }, { ...facts, runscInstalled: true }), false);
    assert.equal(engineCheck.nothingToDo({ Runtimes: { runc: {} } }, { ...facts, runscWanted: true }), false);
    const older = { Runtimes: { runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=ptrace"] } } };
    assert.equal(engineCheck.nothingToDo(older, { ...facts, runscInstalled: true }), false, "registered with other arguments");
    assert.equal(engineCheck.nothingToDo(registered, { ...facts, runscInstalled: true, runscWanted: true }), true);
    assert.equal(engineCheck.nothingToDo(registered, { ...facts, runscInstalled: true, runscArgs: null }), false, "arguments unreadable");
  });
});

/**
 * A fake engine on a Unix socket: each route answers its JSON, or never answers when it maps to
 * "hang" (as an engine hung in libnetwork's deadlock leaves an inspect); others are 404.
 */
async function fakeEngine(routes: Record<string, unknown>): Promise<{ socket: string; close: () => Promise<void> }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "fake-engine-"));
  const socket = path.join(folder, "docker.sock");
  const server = http.createServer((request, response) => {
    const route = Object.keys(routes).find((prefix) => request.url?.startsWith(prefix));
    if (route === undefined) {
      response.statusCode = 404;
      response.end("{}");
      return;
    }
    if (routes[route] === "hang") return;
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(routes[route]));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(folder, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

describe("the engine check's look for a hung engine", () => {
  const container = { Id: "0123456789abcdef0123" };

  it("finds nothing when the engine lists and inspects, or has no container to inspect", async () => {
    const engine = await fakeEngine({
      "/info": { Runtimes: {} },
      "/containers/json": [container],
      [`/containers/${container.Id}/json`]: {},
    });
    try {
      assert.equal(await engineCheck.engineUnanswered(engine.socket, 500), "");
      assert.deepEqual(await engineCheck.engineInfo(engine.socket, 500), { Runtimes: {} });
    } finally {
      await engine.close();
    }
    const empty = await fakeEngine({ "/containers/json": [], "/containers/": "hang" });
    try {
      assert.equal(await engineCheck.engineUnanswered(empty.socket, 500), "");
    } finally {
      await empty.close();
    }
  });

  it("names what did not answer: a container's inspect (the deadlock's case), or the list itself", async () => {
    const hung = await fakeEngine({
      "/info": { Runtimes: {} },
      "/containers/json": [container],
      [`/containers/${container.Id}/json`]: "hang",
    });
    try {
      const asked = performance.now();
      assert.equal(await engineCheck.engineUnanswered(hung.socket, 300), "an inspect of its newest container (0123456789ab)");
      assert.ok(performance.now() - asked < 5_000, "bounded by its timeout");
    } finally {
      await hung.close();
    }
    const unlisted = await fakeEngine({ "/containers/json": "hang" });
    try {
      assert.equal(await engineCheck.engineUnanswered(unlisted.socket, 300), "the list of its containers");
      assert.equal(await engineCheck.engineInfo(unlisted.socket, 300), null, "a 404 is no engine info");
    } finally {
      await unlisted.close();
    }
    assert.match(
      engineCheck.hungEngineAdvice("an inspect of its newest container (0123456789ab)", 10_000),
      /not an inspect .* within 10 s: it is hung.*Restart it/,
    );
  });
});
