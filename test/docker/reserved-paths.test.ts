// Issue 29, item 1: a planted executor. Only /opt/emulator was reserved, not /opt: a repository source
// with target "opt" was mounted over it, and a state file of an environment with a source under opt/
// carried (and put back) /opt/emulator/sandbox-executor, which the emulator `docker exec`s as root; that
// root held CAP_DAC_READ_SEARCH, with which open_by_handle_at() reads the host's files through the
// /etc/hostname bind mount. Here a program that records that it ran is planted through every input
// that places a file (inline, repository and gcs sources, the files API's uploads and archives, sandbox
// code itself, a state file's saved files, a plain export and import), at every reserved folder, the
// folders above them and their other spellings. Every one must be refused, and no planted program may
// ever run: each sandbox made on the way is checked for the record, and for the real executor at
// EXECUTOR_PATH. Then the capability set: no process of a sandbox holds CAP_DAC_READ_SEARCH and
// open_by_handle_at fails with EPERM as root, while the disk guard still counts a chmod-000 folder.

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { extract, type Header } from "tar-stream";
import { executorBinaryPath } from "../../server/common/paths.js";
import { tarBuffer, type TarEntry } from "../../server/common/tar.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { EXECUTOR_PATH } from "../../server/sandbox/docker/image.js";
import { execAsRoot, removeAllSandboxes, testDockerRuntime, UNDER_GVISOR } from "../support/docker-fixture.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { messageOf, statusOf } from "../support/environments-harness.js";
import { startFakeGcs, type FakeGcs } from "../support/fake-gcs-server.js";

const KEY = "reserved-paths-key";
/** The state snapshots' key: its state is the one environment the test makes, nothing of the other tests'. */
const STATE_KEY = "reserved-paths-state-key";
const AGENT = "antigravity-preview-05-2026";
/** Where a planted program, should it ever run, records it: root's /tmp of the sandbox it ran in. */
const RAN_RECORD = "/tmp/planted-executor-ran";
const PLANTED = `#!/bin/sh\necho "planted program $0 ran as $(id -u)" >> ${RAN_RECORD}\nexit 0\n`;
const REAL_EXECUTOR_SHA = createHash("sha256").update(fs.readFileSync(executorBinaryPath)).digest("hex");

/** Each reserved folder, every folder above it, and other spellings of them; what the refusal must name. */
const OPT = /\/opt\/emulator/;
const EXECUTOR_FOLDER = /\/usr\/libexec\/interactions-emulator/;
const PLACES: Array<[string, RegExp]> = [
  ["/", /root itself/],
  [".", /root itself/],
  ["./", /root itself/],
  ["usr", /\/usr\b/],
  ["usr/libexec", /\/usr\b/],
  ["./usr/libexec/", /\/usr\b/],
  ["usr/libexec/interactions-emulator", EXECUTOR_FOLDER],
  ["usr/libexec/interactions-emulator/", EXECUTOR_FOLDER],
  ["usr/libexec/interactions-emulator/sandbox-executor", EXECUTOR_FOLDER],
  ["opt", OPT],
  ["/opt", OPT],
  ["opt/", OPT],
  ["./opt", OPT],
  ["opt/.", OPT],
  ["opt//", OPT],
  ["opt/../opt", OPT],
  ["workspace/../opt", OPT],
  ["opt/emulator", OPT],
  ["opt//emulator/", OPT],
  ["opt/emulator/sandbox-executor", OPT],
];
/** A tree that has the planted program at the executor's path (and the old one) wherever it is mounted or copied among PLACES. */
const PLANTED_TREE = [
  "sandbox-executor",
  "emulator/sandbox-executor",
  "interactions-emulator/sandbox-executor",
  "libexec/interactions-emulator/sandbox-executor",
  "usr/libexec/interactions-emulator/sandbox-executor",
  "opt/emulator/sandbox-executor",
];

let work: string;
let plantedRepo: string;
let gcs: FakeGcs;
let emulator: EmulatorProcess;
let ai: GoogleGenAI;
let stateAi: GoogleGenAI;
/** The environments of STATE_KEY's. */
const stateEnvironments = new Set<string>();
/** Every environment a request managed to make: each is checked for a planted program that ran. */
const made: string[] = [];

const containerOf = (environmentId: string) => new Docker().getContainer(`iemu-${emulator.instance}-${environmentId}`);
/** Runs bash in the environment through an interaction; the command's result text. */
async function bashIn(environment: string, code: string): Promise<string> {
  const client = stateEnvironments.has(environment) ? stateAi : ai;
  const interaction = (await client.interactions.create({
    agent: AGENT,
    input: `\`\`\`tool_calls\n${JSON.stringify([{ name: "code_execution", args: { code, language: "bash" } }])}\n\`\`\``,
    environment,
  } as never)) as unknown as { status: string; steps?: Array<{ type: string; result?: string }> };
  const result = interaction.steps?.find((step) => step.type === "code_execution_result");
  assert.ok(result, `no code_execution_result step (${interaction.status})`);
  return result.result ?? "";
}

async function rest(
  method: string,
  route: string,
  body?: string | Buffer,
  key = KEY,
): Promise<{ status: number; json: any; text: string }> {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "x-goog-api-key": key, ...(typeof body === "string" ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, json, text };
}

/** A request that must be refused, naming the folder; one that is not has made an environment, checked later. */
async function createRefused(label: string, sources: unknown[], named: RegExp): Promise<string | null> {
  const answer = await rest("POST", "/v1/environments", JSON.stringify({ sources }));
  if (answer.status === 200 && typeof answer.json?.id === "string") {
    made.push(answer.json.id);
    return `${label}: accepted as ${answer.json.id}`;
  }
  if (answer.status !== 400 || answer.json?.error?.status !== "INVALID_ARGUMENT") return `${label}: ${answer.status} ${answer.text}`;
  if (!named.test(answer.json.error.message)) return `${label}: refused without naming ${named}: ${answer.json.error.message}`;
  return null;
}

/**
 * Uses each environment (an interaction and a files call: the executor is started), then looks, as
 * root beside the sandbox, for a record of a planted program and for the real executor at its path.
 */
async function plantedRuns(environmentIds: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const id of environmentIds) {
    await bashIn(id, "true").catch((error: unknown) => found.push(`${id}: its interaction failed (${String(error)})`));
    const container = containerOf(id);
    const record = await execAsRoot(container, ["cat", RAN_RECORD]).catch(() => ({ output: "", exitCode: 1 }));
    if (record.exitCode === 0) found.push(`${id}: ${record.output.trim()}`);
    const sha = await execAsRoot(container, ["sha256sum", EXECUTOR_PATH]).catch((error: unknown) => ({
      output: String(error),
      exitCode: 1,
    }));
    if (!sha.output.includes(REAL_EXECUTOR_SHA))
      found.push(`${id}: ${EXECUTOR_PATH} is not this version's executor (${sha.output.trim()})`);
  }
  return found;
}

async function readTar(tar: Buffer): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const reader = extract();
  reader.on("entry", (header: Header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on("end", () => {
      entries.push({ header: { ...header }, ...(header.type === "file" ? { content: Buffer.concat(chunks) } : {}) });
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    reader.on("finish", resolve);
    reader.on("error", reject);
  });
  Readable.from([tar]).pipe(reader);
  await done;
  return entries;
}

const newEnvironmentId = () => `env_${Array.from(randomBytes(24), (byte) => "abcdefghijklmnopqrstuvwxyz234567"[byte % 32]).join("")}`;

/**
 * The state file again, its environment given a new ID (so that it can be imported beside the
 * original), its sources and saved files changed as a hand-made file would change them.
 */
async function alteredStateFile(
  file: Buffer,
  oldId: string,
  change: { sources?: (sources: any[]) => any[]; files?: (entries: TarEntry[]) => TarEntry[] },
): Promise<{ file: Buffer; id: string }> {
  const id = newEnvironmentId();
  const entries = await readTar(gunzipSync(file));
  const rewritten: TarEntry[] = [];
  for (const entry of entries) {
    if (entry.header.name === "records.json") {
      const records = JSON.parse(entry.content!.toString().replaceAll(oldId, id));
      for (const row of records.tables.environments) {
        const config = JSON.parse(row.config);
        if (change.sources) config.sources = change.sources(config.sources ?? []);
        row.config = JSON.stringify(config);
      }
      rewritten.push({ header: { ...entry.header, size: undefined }, content: Buffer.from(JSON.stringify(records)) });
    } else if (entry.header.name === `environments/${oldId}.tar`) {
      const files = await readTar(entry.content!);
      const tar = await tarBuffer(change.files ? change.files(files) : files);
      rewritten.push({ header: { ...entry.header, name: `environments/${id}.tar`, size: undefined }, content: tar });
    } else if (entry.content) {
      rewritten.push({
        header: { ...entry.header, size: undefined },
        content: Buffer.from(entry.content.toString().replaceAll(oldId, id)),
      });
    } else rewritten.push(entry);
  }
  return { file: gzipSync(await tarBuffer(rewritten)), id };
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "emu-reserved-"));
  // A plain folder is served only where others may read it (docs/security.md#repository-sources).
  fs.chmodSync(work, 0o755);
  plantedRepo = path.join(work, "planted-repo");
  for (const name of PLANTED_TREE) {
    fs.mkdirSync(path.dirname(path.join(plantedRepo, name)), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(plantedRepo, name), PLANTED, { mode: 0o755 });
  }
  fs.symlinkSync("/usr/libexec/interactions-emulator", path.join(plantedRepo, "to-the-executor"));
  for (const folder of [plantedRepo, ...PLANTED_TREE.map((name) => path.dirname(path.join(plantedRepo, name)))])
    fs.chmodSync(folder, 0o755);
  gcs = await startFakeGcs({
    planted: {
      ...Object.fromEntries(PLANTED_TREE.map((name) => [`p/${name}`, PLANTED])),
      // Object names that climb out of the target.
      "q/../../usr/libexec/interactions-emulator/sandbox-executor": PLANTED,
      "r/../../opt/emulator/sandbox-executor": PLANTED,
    },
  });
  emulator = await startEmulatorProcess({ EMULATOR_REPO_ROOTS: work, STORAGE_EMULATOR_HOST: gcs.host, EMULATOR_POOL_SIZE: "0" });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  stateAi = new GoogleGenAI({ apiKey: STATE_KEY, httpOptions: { baseUrl: emulator.url } });
});

after(async () => {
  await emulator?.destroy();
  await gcs?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("a planted executor, through every input that places a file (issue 29)", { timeout: 600_000 }, () => {
  it("is refused as an inline, repository or gcs source at every reserved folder and every folder above one", async () => {
    const wrong: string[] = [];
    for (const [place, named] of PLACES) {
      const sources: Array<[string, unknown]> = [
        ["inline", { type: "inline", target: place, content: PLANTED }],
        ["repository", { type: "repository", source: plantedRepo, target: place }],
        ["gcs", { type: "gcs", source: "gs://planted/p", target: place }],
      ];
      for (const [kind, source] of sources) {
        const problem = await createRefused(`${kind} at ${JSON.stringify(place)}`, [source], named);
        if (problem) wrong.push(problem);
      }
    }
    // Objects whose names climb out of an allowed target.
    for (const prefix of ["q", "r"]) {
      const problem = await createRefused(
        `gcs objects ${prefix}/../..`,
        [{ type: "gcs", source: `gs://planted/${prefix}`, target: "workspace/bucket" }],
        /\.\.|\/usr\/libexec\/interactions-emulator|\/opt\/emulator/,
      );
      if (problem) wrong.push(problem);
    }
    const ran = await plantedRuns(made.splice(0));
    assert.deepEqual([...wrong, ...ran], []);
  });

  it("is refused by the files API (uploads, archives, through a repository's symlink), and sandbox code cannot place it either", async () => {
    const env = (
      await rest(
        "POST",
        "/v1/environments",
        JSON.stringify({ sources: [{ type: "repository", source: plantedRepo, target: "workspace/repo" }] }),
      )
    ).json as { id: string };
    assert.match(env.id ?? "", /^env_/);
    const wrong: string[] = [];
    const refused = async (label: string, attempt: Promise<unknown>) => {
      try {
        await attempt;
        wrong.push(`${label}: accepted`);
      } catch (error) {
        if (statusOf(error) !== 403 && statusOf(error) !== 400) wrong.push(`${label}: ${String(error)}`);
        else if (!/\/usr|\/opt\/emulator|system folder|empty|absolute/.test(messageOf(error))) wrong.push(`${label}: ${messageOf(error)}`);
      }
    };
    const upload = (filePath: string, file: Buffer, options: { extract?: boolean; overwrite?: boolean } = {}) =>
      ai.environments.files.upload({ environment: env.id, path: filePath, file, overwrite: true, ...options });
    for (const [place] of PLACES) {
      if (place === "/" || place.startsWith("/")) continue; // the API's paths are relative: a 400 of another kind
      if (path.posix.normalize(place) === "." || path.posix.normalize(place) === "./") continue; // the files API's "." is /workspace
      await refused(`upload to ${JSON.stringify(place)}`, upload(place, Buffer.from(PLANTED)));
    }
    await refused(
      "upload through the repository's symlink",
      upload("workspace/repo/to-the-executor/sandbox-executor", Buffer.from(PLANTED)),
    );
    const archive = await tarBuffer(PLANTED_TREE.map((name) => ({ header: { name, mode: 0o755 }, content: Buffer.from(PLANTED) })));
    // The files API's "" is /workspace; the sandbox's root is reached through a link to it.
    await bashIn(env.id, "ln -sfn / /workspace/root-link");
    for (const folder of ["workspace/root-link", "usr", "usr/libexec", "opt", "opt/emulator", "workspace/repo/to-the-executor"])
      await refused(`archive unpacked at ${JSON.stringify(folder)}`, upload(folder, archive, { extract: true }));
    const onTop = await tarBuffer([{ header: { name: "opt/", type: "directory", mode: 0o777 } }]);
    await refused('archive that replaces "opt"', upload("workspace/root-link", onTop, { extract: true }));

    // Sandbox code, as the sandbox user: no folder on the way to either executor path is its to change.
    const tried = await bashIn(
      env.id,
      [
        `printf '%s' '${PLANTED.replaceAll("\n", "\\n")}' > /tmp/planted.sh`,
        "for folder in / /usr /usr/libexec /usr/libexec/interactions-emulator /opt /opt/emulator; do",
        '  cp /tmp/planted.sh "$folder/sandbox-executor" 2>/dev/null && echo "wrote in $folder"',
        '  [ -w "$folder" ] && echo "$folder is writable"',
        "done",
        "mv /usr/libexec/interactions-emulator /usr/libexec/moved 2>/dev/null && echo moved",
        "mv /opt/emulator /opt/moved 2>/dev/null && echo moved-old",
        "echo tried",
      ].join("\n"),
    );
    assert.equal(tried.trim(), "tried");
    assert.deepEqual([...wrong, ...(await plantedRuns([env.id]))], []);
  });

  it("never leaves a state file: an export carries nothing reserved, and an import refuses every saved file on, under or above a reserved folder", async () => {
    const created = await rest(
      "POST",
      "/v1/environments",
      JSON.stringify({
        sources: [
          { type: "inline", target: "opt/app/run.sh", content: "#!/bin/sh\necho app\n" },
          { type: "repository", source: plantedRepo, target: "opt/tools" },
        ],
      }),
      STATE_KEY,
    );
    assert.equal(created.status, 200, created.text);
    const original = created.json.id as string;
    stateEnvironments.add(original);
    const exported = await fetch(`${emulator.url}/emulator/state`, { headers: { "x-goog-api-key": STATE_KEY } });
    assert.equal(exported.status, 200);
    const file = Buffer.from(await exported.arrayBuffer());

    // The plain export: its saved folders are /opt/app and /opt/tools, never /opt, so no executor.
    const outer = await readTar(gunzipSync(file));
    const saved = await readTar(outer.find((entry) => entry.header.name === `environments/${original}.tar`)!.content!);
    const names = saved.map((entry) => entry.header.name);
    assert.ok(names.includes("opt/app/run.sh"), names.join(" "));
    const reserved = names.filter((name) => /^(opt\/?$|opt\/emulator|usr(\/|$))/.test(name));
    assert.deepEqual(reserved, [], "the export carries the executor or a folder above it");

    // The plain round trip: imported (under another ID), its sandbox runs the real executor.
    const plain = await alteredStateFile(file, original, {});
    const imported = await rest("POST", "/emulator/state", plain.file, STATE_KEY);
    assert.equal(imported.status, 200, imported.text);
    made.push(plain.id);
    stateEnvironments.add(plain.id);

    // Hand-made: a planted program added to the saved files, with records claiming whatever sources help.
    const planted = (name: string): TarEntry => ({ header: { name, mode: 0o755, uid: 0, gid: 0 }, content: Buffer.from(PLANTED) });
    const variants: Array<[string, Parameters<typeof alteredStateFile>[2], RegExp]> = [
      [
        "the old executor path, with a source under opt/",
        { files: (entries) => [...entries, planted("opt/emulator/sandbox-executor")] },
        OPT,
      ],
      [
        "the executor's path",
        { files: (entries) => [...entries, planted("usr/libexec/interactions-emulator/sandbox-executor")] },
        EXECUTOR_FOLDER,
      ],
      [
        "a folder entry that replaces /opt",
        { files: (entries) => [{ header: { name: "opt/", type: "directory", mode: 0o777, uid: 1000, gid: 1000 } }, ...entries] },
        OPT,
      ],
      [
        "records claiming a source at opt and at the executor's folder",
        {
          sources: (sources) => [
            ...sources,
            { type: "inline", target: "opt" },
            { type: "inline", target: "usr/libexec/interactions-emulator/sandbox-executor" },
          ],
          files: (entries) => [...entries, planted("opt/emulator/sandbox-executor")],
        },
        OPT,
      ],
      [
        "a hard link to the executor",
        { files: (entries) => [...entries, { header: { name: "opt/app/link", type: "link", linkname: EXECUTOR_PATH.slice(1) } }] },
        EXECUTOR_FOLDER,
      ],
    ];
    const wrong: string[] = [];
    for (const [label, change, named] of variants) {
      const altered = await alteredStateFile(file, original, change);
      const answer = await rest("POST", "/emulator/state", altered.file, STATE_KEY);
      if (answer.status === 200) {
        made.push(altered.id);
        stateEnvironments.add(altered.id);
        wrong.push(`${label}: imported`);
      } else if (answer.status !== 400 || !named.test(answer.json?.error?.message ?? ""))
        wrong.push(`${label}: ${answer.status} ${answer.text}`);
    }
    assert.deepEqual([...wrong, ...(await plantedRuns([original, ...made.splice(0)]))], []);
  });
});

describe("the executor's capabilities (issue 29: the shocker escape)", { timeout: 300_000 }, () => {
  let runtime: DockerRuntime;

  before(async () => {
    // A disk limit, so that the disk guard runs where the engine has no storage quotas, with its capability.
    runtime = await testDockerRuntime({ EMULATOR_SANDBOX_DISK_MB: "64" });
  });
  after(async () => {
    if (runtime) await removeAllSandboxes(runtime);
  });

  it("no process of a sandbox may hold CAP_DAC_READ_SEARCH, and open_by_handle_at fails as root with EPERM", async () => {
    const handle = await runtime.create({ environmentId: "env_itestnoshocker", owner: "owner", files: [] });
    const channel = await runtime.connect(handle);
    try {
      const { pid } = await channel.ping();
      const container = new Docker().getContainer(handle.sandboxId);
      const DAC_READ_SEARCH = 2n;
      for (const process of [String(pid), "1"]) {
        const status = await execAsRoot(container, ["grep", "-E", "^Cap(Inh|Prm|Eff|Bnd|Amb):", `/proc/${process}/status`]);
        for (const line of status.output.trim().split("\n")) {
          const [name, value] = line.split(/:\s*/);
          assert.equal((BigInt(`0x${value}`) >> DAC_READ_SEARCH) & 1n, 0n, `process ${process} ${name} holds CAP_DAC_READ_SEARCH: ${line}`);
        }
      }
      // As a program the emulator ran as root would: the container's whole capability set.
      const attempt = await execAsRoot(container, [
        "python3",
        "-c",
        [
          "import ctypes, os",
          "libc = ctypes.CDLL(None, use_errno=True)",
          "class Handle(ctypes.Structure): _fields_ = [('bytes', ctypes.c_uint), ('type', ctypes.c_int), ('data', ctypes.c_ubyte * 128)]",
          "handle = Handle(); handle.bytes = 128; mount = ctypes.c_int()",
          "named = libc.name_to_handle_at(-100, b'/etc/hostname', ctypes.byref(handle), ctypes.byref(mount), 0)",
          "print('named', named, ctypes.get_errno())",
          "base = os.open('/etc/hostname', os.O_RDONLY)",
          "opened = libc.open_by_handle_at(base, ctypes.byref(handle), os.O_RDONLY)",
          "print('opened', opened, ctypes.get_errno())",
        ].join("\n"),
      ]);
      // Docker's default seccomp profile refuses both calls (EPERM) to a container without the capability;
      // with it, open_by_handle_at opens /etc/hostname's file on the host. gVisor implements neither.
      const opened = /opened\s+(-?\d+)\s+(\d+)/.exec(attempt.output);
      assert.ok(opened, attempt.output);
      assert.equal(opened[1], "-1", `open_by_handle_at opened a file by its handle: ${attempt.output}`);
      if (!UNDER_GVISOR) assert.equal(opened[2], "1", `open_by_handle_at must fail with EPERM: ${attempt.output}`);
    } finally {
      channel.close();
    }
  });

  it("the disk guard still counts what sandbox code hides in a chmod-000 folder", async (t) => {
    if (!runtime.guardSeesLockedFolders) {
      t.skip("this engine enforces storage quotas (no disk guard), or cannot grant the guard's capability");
      return;
    }
    const handle = await runtime.create({ environmentId: "env_itestlockedguard", owner: "owner", files: [] });
    const channel = await runtime.connect(handle);
    try {
      // 80 MiB against a 64 MiB limit, every byte in a folder its owner then locks; each file under the per-file limit.
      const result = await channel.run({
        argv: [
          "bash",
          "-c",
          "mkdir /workspace/locked && head -c 40M /dev/zero > /workspace/locked/a && head -c 40M /dev/zero > /workspace/locked/b && chmod 000 /workspace/locked && sleep 30; echo never",
        ],
        cwd: "/workspace",
        timeoutMs: 60_000,
        maxOutputBytes: 1 << 16,
      });
      assert.equal(result.overDiskLimit, true, `the guard did not stop it: ${result.stdout.toString()}${result.stderr.toString()}`);
      assert.doesNotMatch(result.stdout.toString(), /never/);
    } finally {
      channel.close();
    }
  });
});
