// Network clones of repository sources go through the egress proxy's address guard (issue 9, defect 4):
// a git server on loopback records every request, so a refused clone is shown never to reach it; an
// allowed one arrives through the operator's host map, or through a "public" name that an injected
// resolver answers and a recording dialer sends to the same local server (nothing leaves the machine).

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startEgressProxy, type EgressEntry, type EgressProxy } from "../../proxy/index.js";
import { UnavailableError } from "../../server/common/errors.js";
import { packRepository, type RepositorySettings } from "../../server/sources/repository-source.js";
import { readTar } from "../support/archives.js";
import { makeBareRepository, startGitHttpServer, type GitHttpServer } from "../support/git-http-server.js";
import { RecordingDialer, ScriptedResolver, TEST_SECRET } from "../support/proxy-fixtures.js";

const PUBLIC_ADDRESS = "93.184.216.34"; // only ever a string handed to the recording dialer
const LIMITS = { maxBytes: 4 << 20, maxEntries: 1000 };

let work: string;
let server: GitHttpServer;
let tarpit: net.Server;
let tarpitPort: number;
const tarpitSockets = new Set<net.Socket>();
let proxy: EgressProxy;
const dialer = new RecordingDialer();
const resolver = new ScriptedResolver((host) =>
  host === "git.public.test"
    ? [PUBLIC_ADDRESS]
    : host === "git.internal.test"
      ? ["10.1.2.3"]
      : host === "sneaky.test"
        ? [PUBLIC_ADDRESS, "127.0.0.1"]
        : [],
);
const egress: EgressEntry[] = [];

function settings(over: Partial<RepositorySettings> = {}): RepositorySettings {
  return {
    map: [],
    roots: [],
    protectedFolders: [],
    cloneTimeoutMs: 30_000,
    egressProxy: { host: proxy.host, port: proxy.port, secret: TEST_SECRET },
    ...over,
  };
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "emu-clone-guard-"));
  const repos = path.join(work, "repos");
  fs.mkdirSync(repos);
  makeBareRepository(repos, "tools", { "README.md": "tools\n", ".agents/hooks.json": "{}" });
  makeBareRepository(repos, "big", { "blob.bin": "x".repeat(300_000) });
  server = await startGitHttpServer(repos);
  dialer.redirect(PUBLIC_ADDRESS, 80, server.port);
  // Accepts and never answers: a clone that would hang without a deadline.
  tarpit = net.createServer((socket) => {
    tarpitSockets.add(socket);
    socket.on("close", () => tarpitSockets.delete(socket));
  });
  await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
  tarpitPort = (tarpit.address() as net.AddressInfo).port;
  proxy = await startEgressProxy({
    secret: TEST_SECRET,
    caDirectory: path.join(work, "ca"),
    resolver,
    dialer,
    hostMap: new Map([
      ["git.mapped.test", { host: "127.0.0.1", port: server.port }],
      ["slow.mapped.test", { host: "127.0.0.1", port: tarpitPort }],
    ]),
    onEgress: (entry) => egress.push(entry),
  });
});

after(async () => {
  await proxy?.close();
  await server?.close();
  for (const socket of tarpitSockets) socket.destroy();
  await new Promise<void>((resolve) => tarpit?.close(() => resolve()));
  fs.rmSync(work, { recursive: true, force: true });
});

describe("network clones of repository sources", () => {
  it("never reach loopback, a private address or a name resolving there, and say why (even with NO_PROXY=* on the host)", async () => {
    const saved = { NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy, http_proxy: process.env.http_proxy };
    // The host's proxy variables must not let git around the guard.
    Object.assign(process.env, { NO_PROXY: "*", no_proxy: "*", http_proxy: `http://127.0.0.1:${server.port}` });
    try {
      const cases: Array<[string, RegExp]> = [
        [`http://127.0.0.1:${server.port}/tools.git`, /blocked-address:loopback/],
        [`http://127.1:${server.port}/tools.git`, /blocked-address:loopback/],
        [`http://[::1]:${server.port}/tools.git`, /blocked-address:loopback/],
        [`http://localhost:${server.port}/tools.git`, /blocked-address:loopback/],
        [`https://127.0.0.1:${server.port}/tools.git`, /blocked-address:loopback/],
        ["http://git.internal.test/tools.git", /blocked-address:private/],
        ["http://169.254.169.254/latest/meta-data", /blocked-address:link-local/],
        ["http://sneaky.test/tools.git", /blocked-address:loopback/],
      ];
      for (const [url, reason] of cases) {
        await assert.rejects(packRepository(url, settings(), LIMITS), (error: unknown) => {
          const message = (error as Error).message;
          assert.equal((error as Error).name, "RepositorySourceError", message);
          assert.match(message, /refused by the address guard/);
          assert.match(message, reason);
          assert.match(message, /EMULATOR_EGRESS_HOST_MAP/);
          return true;
        });
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    assert.deepEqual(server.requests, [], "the git server on loopback saw no request");
    assert.deepEqual(
      dialer.dials.filter((dial) => dial.address !== PUBLIC_ADDRESS),
      [],
      "nothing refused was dialled",
    );
    assert.ok(egress.some((entry) => entry.environment_id === "emulator/repository-source" && entry.decision === "refused"));
  });

  it("clone through the operator's host map (the git server sees the mapped name)", async () => {
    const before = server.requests.length;
    const packed = await packRepository("http://git.mapped.test/tools.git", settings(), LIMITS);
    const files = await readTar(packed.tar);
    assert.equal(files.get("README.md")?.content, "tools\n");
    assert.ok(files.has(".git/shallow"), "shallow");
    const seen = server.requests.slice(before);
    assert.ok(seen.length > 0 && seen.every((request) => request.endsWith(" git.mapped.test")), seen.join("\n"));
  });

  it("clone a public name at the address its one lookup gave (pinned: no second resolution)", async () => {
    const lookupsBefore = resolver.lookups.filter((host) => host === "git.public.test").length;
    const packed = await packRepository("http://git.public.test/tools.git", settings(), LIMITS);
    assert.equal((await readTar(packed.tar)).get(".agents/hooks.json")?.content, "{}");
    assert.ok(dialer.dials.some((dial) => dial.address === PUBLIC_ADDRESS && dial.port === 80));
    assert.ok(resolver.lookups.filter((host) => host === "git.public.test").length > lookupsBefore);
  });

  it("refuse every transport but https and http before git runs", async () => {
    const before = server.requests.length;
    for (const source of [
      `git://127.0.0.1:${server.port}/tools.git`,
      `ssh://git@127.0.0.1:${server.port}/tools.git`,
      "git@github.com:acme/tools.git",
      `ext::sh -c touch% ${work}/pwned`,
      "file::/etc",
      "fd::3",
      "-uhttp://x",
      "--upload-pack=touch /tmp/x",
    ]) {
      await assert.rejects(packRepository(source, settings(), LIMITS), /only those are cloned|not an https:\/\/ or http:\/\/ URL/, source);
    }
    assert.equal(fs.existsSync(path.join(work, "pwned")), false);
    assert.equal(server.requests.length, before);
  });

  it("give up on a server that never answers at the deadline", async () => {
    const started = Date.now();
    await assert.rejects(
      packRepository("http://slow.mapped.test/tools.git", settings({ cloneTimeoutMs: 1500 }), LIMITS),
      /did not finish within 1.5 s \(EMULATOR_REPO_CLONE_TIMEOUT_SECONDS\)/,
    );
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  });

  it("stop a clone that grows past the size limit", async () => {
    await assert.rejects(
      packRepository("http://git.mapped.test/big.git", settings(), { maxBytes: 50_000, maxEntries: 1000 }),
      /larger than 50000 bytes \(EMULATOR_MAX_SOURCES_BYTES\)/,
    );
  });

  it("answer a host without git with a 5xx-class error that says what to install, not a 400", async () => {
    const saved = process.env.PATH;
    process.env.PATH = path.join(work, "no-such-bin");
    try {
      await assert.rejects(packRepository("http://git.mapped.test/tools.git", settings(), LIMITS), (error: unknown) => {
        assert.equal((error as Error).name, "Error", "not a RepositorySourceError, so the API answers 500");
        assert.match((error as Error).message, /git could not be started on the emulator's host \(ENOENT\); install git/);
        return true;
      });
    } finally {
      process.env.PATH = saved;
    }
  });

  it("answer 503 UNAVAILABLE (ours, not the request's) when the egress proxy does not answer", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(
      packRepository(
        "http://git.mapped.test/tools.git",
        settings({ egressProxy: { host: "127.0.0.1", port, secret: TEST_SECRET } }),
        LIMITS,
      ),
      (error: unknown) => {
        assert.ok(error instanceof UnavailableError, String(error));
        assert.match(error.message, /egress proxy that repository clones go through did not answer \(127\.0\.0\.1:\d+: ECONNREFUSED\)/);
        return true;
      },
    );
  });

  it("clone nothing from the network without an egress proxy to go through", async () => {
    await assert.rejects(
      packRepository("http://git.mapped.test/tools.git", settings({ egressProxy: undefined }), LIMITS),
      /no egress proxy/,
    );
  });
});
