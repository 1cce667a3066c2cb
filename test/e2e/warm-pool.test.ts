// The warm pool (issue 11, part 1; docs/environments-and-files.md#the-warm-pool) through the official
// SDK against emulators started as `npm start` starts them, on the real engine. What must hold:
// - an environment taken from the pool starts with nothing of any other environment's: its files,
//   processes, variables, hook traces and egress log (one environment is made from the pool, dirtied in
//   every way, deleted; the next one from the pool shows none of it, in another container);
// - taking one starts its replacement in the background; sources, hooks, the files API, forks, the
//   disk guard and the TTL work on pooled environments as on any other;
// - a request the pool cannot serve (a repository source, a fork) is created cold, and works;
// - pool containers never count toward the environment limits, are removed at a clean shutdown, and are
//   cleared at a start after a crash (a pooled environment survives both);
// - EMULATOR_POOL_SIZE=0 makes no pool container at all.
// Traffic goes only to loopback (an echo server reached through EMULATOR_EGRESS_HOST_MAP); every
// emulator is destroyed with everything it made.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { LABEL_POOLED } from "../../server/sandbox/docker/labels.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { bash, type Interaction, resultsOf, script, waitFor } from "../support/fault-harness.js";
import { startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "warm-pool-e2e-key";
const DISK_MB = 16;
const docker = new Docker();
const emulators: EmulatorProcess[] = [];
let work: string;
let echo: EchoServer;
/** The main emulator: a pool of one, a small disk limit, an echo server as pool-echo.example.com. */
let pooled: EmulatorProcess;
let ai: GoogleGenAI;

async function start(settings: Record<string, string>, reuse?: EmulatorProcess): Promise<EmulatorProcess> {
  const emulator = await startEmulatorProcess(settings, reuse);
  if (!emulators.includes(emulator)) emulators.push(emulator);
  return emulator;
}

const client = (emulator: EmulatorProcess, key = KEY): GoogleGenAI =>
  new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: emulator.url } });

/** Waits until the pool holds at least `ready` sandboxes that can be taken now (started, channel open; a miss grows the pool). */
async function poolReady(emulator: EmulatorProcess, ready = 1): Promise<string[]> {
  await waitFor(`${ready} ready pool sandbox(es)`, async () => ((await emulator.pool())!.ready >= ready ? true : undefined), 60_000);
  return emulator.pooledSandboxes();
}

/** The container of an environment (found by its name, as for any environment), or undefined once gone. */
async function containerOf(emulator: EmulatorProcess, environmentId: string): Promise<Docker.ContainerInfo | undefined> {
  const name = `/iemu-${emulator.instance}-${environmentId}`;
  await emulator.namesSettled();
  const found = await docker.listContainers({ all: true, filters: { name: [`^${name}$`] } });
  return found.find((container) => container.Names.includes(name));
}

const fromPool = (container: Docker.ContainerInfo | undefined): boolean => container?.Labels[LABEL_POOLED] === "true";

async function debug(emulator: EmulatorProcess, route: string): Promise<Record<string, any>> {
  const response = await fetch(`${emulator.url}/emulator/${route}`, { headers: { "x-goog-api-key": KEY } });
  assert.equal(response.status, 200, route);
  return (await response.json()) as Record<string, any>;
}

/** Checks an SDK error: a 400 whose Google error message matches. */
function refusedFor(message: RegExp): (error: unknown) => boolean {
  return (error) => {
    const failure = error as { status?: number; message?: string; error?: { error?: { message?: string } } };
    assert.equal(failure.status, 400);
    assert.match(failure.error?.error?.message ?? failure.message ?? "", message);
    return true;
  };
}

async function run(emulator: EmulatorProcess, environment: unknown, code: string): Promise<Interaction> {
  const done = (await client(emulator).interactions.create({
    agent: AGENT,
    input: script([bash(code)]),
    environment,
  } as never)) as Interaction;
  assert.equal(done.status, "completed", JSON.stringify(done.errors));
  return done;
}

/** Counts the processes not root's (by real uid) outside the command's own session: what earlier code left running. */
const OTHER_PROCESSES = `me=$(ps -o sid= -p $$ | tr -d " "); echo "other-processes:[$(ps -e -o ruser=,sid=,args= | awk -v me="$me" '$1 != "root" && $2 != me' | wc -l)]"`;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "emu-pool-"));
  fs.chmodSync(work, 0o755);
  fs.mkdirSync(path.join(work, "repo"), { mode: 0o755 });
  fs.writeFileSync(path.join(work, "repo", "data.txt"), "from a repository\n", { mode: 0o644 });
  echo = await startEchoServer("pool-echo");
  pooled = await start({
    EMULATOR_POOL_SIZE: "1",
    EMULATOR_SANDBOX_DISK_MB: String(DISK_MB),
    EMULATOR_EGRESS_HOST_MAP: `pool-echo.example.com=127.0.0.1:${echo.port}`,
    EMULATOR_REPO_ROOTS: work,
  });
  ai = client(pooled);
});

after(async () => {
  for (const emulator of emulators) await emulator.destroy().catch(() => undefined);
  await echo?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the warm pool", () => {
  it("gives a new environment nothing of an earlier one: files, processes, variables, hook traces, egress log", {
    timeout: 120_000,
  }, async () => {
    const [first] = await poolReady(pooled);
    // A: taken from the pool, then dirtied everywhere the sandbox user can reach.
    const hooks = JSON.stringify({
      trace: {
        pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "echo a-hook > /tmp/a-hook-ran" }] }],
      },
    });
    const dirty = [
      "echo a-file > /workspace/a-file",
      "echo a-tmp > /tmp/a-tmp",
      "echo 'export A_PROFILE=a-profile' >> ~/.bashrc",
      "mkdir -p ~/.a-cache && echo a > ~/.a-cache/a",
      "(setsid nohup bash -c 'exec -a a-sleeper sleep 100000' >/dev/null 2>&1 &)",
      "curl -s -o /dev/null -w 'egress:%{http_code}\\n' http://pool-echo.example.com/a-was-here",
      'echo "variable:$A_SECRET"',
      "sleep 0.2; pgrep -fc '^a-sleeper 100000$'",
      OTHER_PROCESSES,
    ].join("; ");
    const a = await run(
      pooled,
      {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: hooks },
          { type: "inline", target: "workspace/a-source.txt", content: "a-source\n" },
        ],
        env: { A_SECRET: "a-secret-value" },
        network: { allowlist: [{ domain: "pool-echo.example.com" }] },
      },
      dirty,
    );
    const aId = a.environment_id!;
    const aContainer = await containerOf(pooled, aId);
    assert.equal(aContainer?.Id, first, "A was the pooled sandbox");
    assert.ok(fromPool(aContainer));
    assert.deepEqual(
      resultsOf(a),
      ["egress:200\nvariable:a-secret-value\n1\nother-processes:[1]\n"],
      "A really was dirtied, its sleeper running",
    );
    const aTrace = (await debug(pooled, `interactions/${a.id}/hooks`)).tool_calls as Array<Record<string, any>>;
    assert.equal(aTrace[0]?.pre.handlers.length, 1, "A's hook ran");
    assert.equal((await debug(pooled, `environments/${aId}/egress`)).entries.length, 1, "A's connection is in its egress log");

    // The replacement was started when A took the first; A goes.
    const [second] = await poolReady(pooled);
    assert.notEqual(second, first);
    await ai.environments.delete(aId);
    assert.equal(await containerOf(pooled, aId), undefined, "A's container is gone");

    // B: the next from the pool.
    const look = [
      'echo "workspace:[$(ls -A /workspace)]"',
      'echo "tmp:[$(ls -A /tmp)]"',
      'echo "agents:[$(ls -A /.agents)]"',
      'echo "home:[$(ls -A ~ | grep -c a-cache)] bashrc:[$(grep -c A_PROFILE ~/.bashrc)]"',
      'echo "variables:[$A_SECRET$A_PROFILE] [$(env | grep -c a-secret-value)]"',
      `echo "processes:[$(pgrep -fc '^a-sleeper 100000$')]"`,
      OTHER_PROCESSES,
    ].join("; ");
    const b = await run(pooled, { type: "remote" }, look);
    const bId = b.environment_id!;
    const bContainer = await containerOf(pooled, bId);
    assert.equal(bContainer?.Id, second, "B was the next pooled sandbox");
    assert.ok(fromPool(bContainer));
    assert.notEqual(bContainer?.Id, aContainer?.Id, "B is another container");
    assert.deepEqual(resultsOf(b), [
      "workspace:[]\ntmp:[]\nagents:[]\nhome:[0] bashrc:[0]\nvariables:[] [0]\nprocesses:[0]\nother-processes:[0]\n",
    ]);
    const bTrace = (await debug(pooled, `interactions/${b.id}/hooks`)).tool_calls as Array<Record<string, any>>;
    const bHooks = bTrace.flatMap((call) => [call.pre, call.post]);
    assert.equal(bHooks.length, 2);
    assert.deepEqual(
      bHooks.flatMap((hook) => hook.files.map((file: { status: string }) => file.status)),
      ["missing", "missing", "missing", "missing"],
      "no hooks.json of A's: no hook ran, before or after the call",
    );
    assert.deepEqual(
      bHooks.flatMap((hook) => hook.handlers),
      [],
    );
    assert.deepEqual((await debug(pooled, `environments/${bId}/egress`)).entries, []);
    await ai.environments.delete(bId);
  });

  it("takes a ready sandbox, starts its replacement, and keeps sources, hooks, files, forks and the disk guard working", {
    timeout: 120_000,
  }, async () => {
    const [ready] = await poolReady(pooled);
    // Long enough for an executor that measured its disk 1 s after it started (before issue 11) to have
    // found its folders before the sources below made /data.
    await sleep(1500);
    const environmentsBefore = await pooled.sandboxCount();
    const deny = JSON.stringify({
      gate: {
        pre_tool_execution: [
          { matcher: "code_execution", hooks: [{ type: "command", command: `echo '{"decision":"deny","reason":"gated"}'` }] },
        ],
      },
    });
    // Sources in a folder the image does not have (/data): the disk guard must still see it.
    const environment = (await ai.environments.create({
      sources: [
        { type: "inline", target: "workspace/.agents/hooks.json", content: deny },
        { type: "inline", target: "/data/seed.txt", content: "seed\n" },
      ],
    } as never)) as { id: string };
    const container = await containerOf(pooled, environment.id);
    assert.equal(container?.Id, ready);
    assert.ok(fromPool(container));
    // Labelled for its environment from the start (labels cannot change): found as any environment's is.
    const byLabel = await docker.listContainers({
      all: true,
      filters: { label: [`dev.interactions-emulator.environment=${environment.id}`] },
    });
    assert.deepEqual(
      byLabel.map((each) => each.Id),
      [ready],
    );
    const [replacement] = await poolReady(pooled);
    assert.notEqual(replacement, ready, "a new sandbox took its place in the background");
    assert.equal(await pooled.sandboxCount(), environmentsBefore + 1, "the pool's sandbox is not counted as an environment");

    // Sources, as root-made files owned by the sandbox user; hooks apply.
    const denied = (await ai.interactions.create({
      agent: AGENT,
      input: script([bash("cat /data/seed.txt")]),
      environment: environment.id,
    })) as Interaction;
    assert.deepEqual(resultsOf(denied), ['Tool call denied by hook "gate": gated']);
    await ai.environments.files.upload({
      environment: environment.id,
      path: "workspace/.agents/hooks.json",
      file: Buffer.from("{}"),
      overwrite: true,
    });
    const owned = await run(pooled, environment.id, "stat -c '%U %a %n' /data /data/seed.txt; cat /data/seed.txt");
    assert.deepEqual(resultsOf(owned), ["sandbox 755 /data\nsandbox 644 /data/seed.txt\nseed\n"]);

    // The files API.
    await ai.environments.files.upload({ environment: environment.id, path: "workspace/up.txt", file: Buffer.from("uploaded\n") });
    const listed = await ai.environments.files.list({ environment: environment.id, path: "workspace" });
    assert.ok((listed.files ?? []).some((file: { path?: string }) => file.path === "workspace/up.txt"));
    const downloaded = await ai.environments.files.download({ environment: environment.id, path: "workspace/up.txt" });
    assert.equal(Buffer.from(await new Response(downloaded as never).arrayBuffer()).toString(), "uploaded\n");

    // A fork: created cold (from the pooled container's copy), with the files.
    const fork = (await ai.environments.create({ from_environment: `environments/${environment.id}` } as never)) as { id: string };
    const forkContainer = await containerOf(pooled, fork.id);
    assert.ok(forkContainer);
    assert.equal(forkContainer.Labels[LABEL_POOLED], "false", "a fork is made cold, and does not inherit the pool's label");
    assert.deepEqual(resultsOf(await run(pooled, fork.id, "cat /workspace/up.txt /data/seed.txt")), ["uploaded\nseed\n"]);
    await ai.environments.delete(fork.id);

    // The disk guard measures /data, made by the sources after the pooled executor had started.
    const info = await docker.getContainer(container!.Id).inspect();
    if (info.HostConfig.StorageOpt?.["size"] === undefined) {
      const filled = await run(
        pooled,
        environment.id,
        `for i in 1 2 3; do head -c ${DISK_MB / 2}M /dev/zero > /data/f$i; done; sleep 60; echo never`,
      );
      assert.match(
        resultsOf(filled)[0] ?? "",
        /\[killed: the sandbox's files passed its disk limit of 16 MiB \(EMULATOR_SANDBOX_DISK_MB\) in total/,
      );
    }
    await ai.environments.delete(environment.id);
  });

  it("creates cold what the pool cannot serve (a repository source), leaving the pool as it was", { timeout: 60_000 }, async () => {
    const [ready] = await poolReady(pooled);
    const made = await run(
      pooled,
      { type: "remote", sources: [{ type: "repository", source: path.join(work, "repo"), target: "workspace/repo" }] },
      "cat /workspace/repo/data.txt",
    );
    assert.deepEqual(resultsOf(made), ["from a repository\n"]);
    const container = await containerOf(pooled, made.environment_id!);
    assert.equal(container?.Labels[LABEL_POOLED], "false", "created cold");
    assert.deepEqual(await pooled.pooledSandboxes(), [ready], "the pool's sandbox is still there, untaken");
    await ai.environments.delete(made.environment_id!);
  });

  it("creates cold when the ready sandbox was removed by hand, and replaces it", { timeout: 60_000 }, async () => {
    const [ready] = await poolReady(pooled);
    await docker.getContainer(ready!).remove({ force: true });
    // Whether the pool noticed first (its channel cut) or the take found it gone: a cold create serves it.
    const made = await run(
      pooled,
      { type: "remote", sources: [{ type: "inline", target: "workspace/a.txt", content: "a\n" }] },
      "cat a.txt",
    );
    assert.deepEqual(resultsOf(made), ["a\n"]);
    assert.equal((await containerOf(pooled, made.environment_id!))?.Labels[LABEL_POOLED], "false", "created cold");
    const [replacement] = await poolReady(pooled);
    assert.notEqual(replacement, ready);
    await ai.environments.delete(made.environment_id!);
  });

  it("never counts pool sandboxes toward EMULATOR_MAX_ENVIRONMENTS(_PER_KEY)", { timeout: 60_000 }, async () => {
    // A pool that does not grow: two takes in a row would grow it (that is the next test).
    const limited = await start({
      EMULATOR_POOL_SIZE: "2",
      EMULATOR_POOL_MAX_SIZE: "2",
      EMULATOR_MAX_ENVIRONMENTS: "2",
      EMULATOR_MAX_ENVIRONMENTS_PER_KEY: "1",
    });
    await poolReady(limited, 2);
    const first = client(limited, "key-one");
    const one = (await first.environments.create({})) as { id: string };
    assert.ok(fromPool(await containerOf(limited, one.id)));
    await assert.rejects(first.environments.create({}), refusedFor(/EMULATOR_MAX_ENVIRONMENTS_PER_KEY = 1/));
    const two = (await client(limited, "key-two").environments.create({})) as { id: string };
    assert.ok(fromPool(await containerOf(limited, two.id)));
    await assert.rejects(client(limited, "key-three").environments.create({}), refusedFor(/EMULATOR_MAX_ENVIRONMENTS = 2/));
    await poolReady(limited, 2);
    assert.equal(await limited.sandboxCount(), 2);
    assert.equal((await limited.pooledSandboxes()).length, 2);
  });

  it("grows when new environments outrun it, refilling at once, up to EMULATOR_POOL_MAX_SIZE", { timeout: 90_000 }, async () => {
    const growing = await start({ EMULATOR_POOL_SIZE: "1", EMULATOR_POOL_MAX_SIZE: "2" });
    await poolReady(growing, 1);
    const made = (await Promise.all([0, 1].map(() => client(growing).environments.create({})))) as Array<{ id: string }>;
    const labels = await Promise.all(made.map(async (one) => fromPool(await containerOf(growing, one.id))));
    assert.deepEqual(labels.sort(), [false, true], "one from the pool, one created cold: the pool missed");
    // A grown pool does not wait a second after each take: it makes both at once (fill concurrency 2).
    const grown = await waitFor(
      "the grown pool to fill",
      async () => {
        const state = await growing.pool();
        return state?.ready === 2 ? state : undefined;
      },
      60_000,
    );
    assert.deepEqual(grown, { size: 1, target: 2, ready: 2, filling: 0, naming: 0 });
    assert.equal((await growing.pooledSandboxes()).length, 2, "the engine holds the two, no more");
    for (const one of made) await client(growing).environments.delete(one.id);
  });

  it("expires a pooled environment after the TTL like any other, and leaves the pool's sandbox alone", { timeout: 60_000 }, async () => {
    const short = await start({ EMULATOR_POOL_SIZE: "1", EMULATOR_ENVIRONMENT_TTL_SECONDS: "2" });
    await poolReady(short);
    const environment = (await client(short).environments.create({})) as { id: string };
    assert.ok(fromPool(await containerOf(short, environment.id)));
    const [waiting] = await poolReady(short);
    await waitFor("the environment to expire", async () => {
      const now = (await client(short).environments.get(environment.id)) as { status?: string };
      return now.status === "expired" ? true : undefined;
    });
    assert.equal(await containerOf(short, environment.id), undefined);
    assert.deepEqual(await short.pooledSandboxes(), [waiting], "the pool's sandbox is not an environment: it never expires");
  });

  it("removes pool sandboxes at shutdown and clears them at a start after a crash; a pooled environment survives both", {
    timeout: 120_000,
  }, async () => {
    let restarted = await start({ EMULATOR_POOL_SIZE: "1" });
    await poolReady(restarted);
    const kept = await run(restarted, { type: "remote" }, "echo kept > /workspace/kept.txt");
    const environmentId = kept.environment_id!;
    assert.ok(fromPool(await containerOf(restarted, environmentId)));
    await poolReady(restarted);

    await restarted.stop();
    assert.deepEqual(await restarted.pooledSandboxes(), [], "a clean shutdown removes the pool's sandboxes");
    assert.equal(await restarted.sandboxCount(), 1, "and keeps the environments'");

    restarted = await start({}, restarted);
    const [left] = await poolReady(restarted);
    assert.deepEqual(resultsOf(await run(restarted, environmentId, "cat /workspace/kept.txt")), ["kept\n"]);

    await restarted.crash();
    assert.deepEqual(await restarted.pooledSandboxes(), [left], "a crash leaves the pool's sandbox behind");
    restarted = await start({}, restarted);
    const [fresh] = await poolReady(restarted);
    assert.notEqual(fresh, left);
    assert.deepEqual(await restarted.pooledSandboxes(), [fresh], "the next start cleared the one left behind");
    assert.deepEqual(resultsOf(await run(restarted, environmentId, "cat /workspace/kept.txt")), ["kept\n"]);
    assert.equal(await restarted.sandboxCount(), 1);
  });

  it("with EMULATOR_POOL_SIZE=0 starts no pool sandbox, and creates every environment cold", { timeout: 60_000 }, async () => {
    const off = await start({ EMULATOR_POOL_SIZE: "0" });
    assert.equal(await off.pool(), null, "/health shows no pool");
    const made = await run(off, { type: "remote", sources: [{ type: "inline", target: "workspace/a.txt", content: "a\n" }] }, "cat a.txt");
    assert.deepEqual(resultsOf(made), ["a\n"]);
    const container = await containerOf(off, made.environment_id!);
    assert.equal(container?.Labels[LABEL_POOLED], "false");
    const all = await docker.listContainers({ all: true, filters: { label: [`${LABEL_POOLED}=true`] } });
    assert.deepEqual(
      all.filter((each) => each.Names.some((name) => name.startsWith(`/iemu-${off.instance}-`))),
      [],
      "no container of this emulator's is a pool container",
    );
  });
});
