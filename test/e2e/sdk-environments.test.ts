// End to end: the environments and files API through the official @google/genai SDK (and the REST forms
// with plain HTTP), against the emulator started as `npm start` starts it, with real Docker sandboxes.

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { tarGz, zip } from "../support/archives.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "environments-key";
const OTHER_KEY = "environments-other-key";
const MiB = 1024 * 1024;
const MAX_DOWNLOAD = 24 * MiB;

let emulator: EmulatorProcess;
let ai: GoogleGenAI;
let other: GoogleGenAI;
/** POSTs to an upload URL made through `ai` (the SDK's chunk requests). */
let uploadPosts = 0;

interface Environment {
  id: string;
  status?: string;
  created?: string;
  updated?: string;
  last_accessed?: string;
  file_count?: string;
  size_bytes?: string;
  sources?: Array<Record<string, unknown>>;
  network?: unknown;
}
interface EnvironmentFile {
  name?: string;
  path?: string;
  type?: string;
  mime_type?: string;
  size_bytes?: string;
  created?: string;
  modified?: string;
}

before(async () => {
  emulator = await startEmulatorProcess({ EMULATOR_MAX_DOWNLOAD_BYTES: String(MAX_DOWNLOAD) });
  const countingFetch: typeof fetch = (input, init) => {
    if (init?.method === "POST" && String(input).includes("upload_id=")) uploadPosts += 1;
    return fetch(input, init);
  };
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url, fetch: countingFetch } });
  other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
});

after(async () => {
  await emulator?.destroy();
});

const statusOf = (error: unknown): number | undefined => (error as { status?: number }).status;

/**
 * The Google error message inside an SDK error: the generated client keeps the parsed body in `error`,
 * the legacy one (download, upload chunks) has the body as its message.
 */
function messageOf(error: unknown): string {
  const parsed = (error as { error?: { error?: { message?: string } } }).error?.error?.message;
  if (typeof parsed === "string") return parsed;
  const text = (error as Error).message;
  try {
    return (JSON.parse(text) as { error: { message: string } }).error.message;
  } catch {
    return text;
  }
}

/** The SDK error for the status, with a Google error message matching `pattern`. */
const rejectsWith = (status: number, pattern?: RegExp) => (error: unknown) => {
  assert.equal(statusOf(error), status, String(error));
  if (pattern) assert.match(messageOf(error), pattern);
  return true;
};

const sha = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

async function createEnvironment(body: Record<string, unknown>, client = ai): Promise<Environment> {
  return (await client.environments.create(body as Parameters<GoogleGenAI["environments"]["create"]>[0])) as Environment;
}

async function getEnvironment(id: string, client = ai): Promise<Environment> {
  return (await client.environments.get(id)) as Environment;
}

async function listFiles(environment: string, path: string, options: { recursive?: boolean; page_size?: number; page_token?: string } = {}, client = ai) {
  return (await client.environments.files.list({ environment, path, ...options })) as { files?: EnvironmentFile[]; next_page_token?: string };
}

async function upload(environment: string, path: string, file: Uint8Array | string, options: { overwrite?: boolean; extract?: boolean } = {}, client = ai) {
  const data = typeof file === "string" ? Buffer.from(file) : file;
  return (await client.environments.files.upload({ environment, path, file: data, ...options })) as { files: EnvironmentFile[] };
}

async function download(environment: string, path: string, client = ai): Promise<Buffer> {
  return Buffer.from(await client.environments.files.download({ environment, path }));
}

const script = (calls: unknown[]): string => "```tool_calls\n" + JSON.stringify(calls) + "\n```";

/** Runs bash in the environment through an interaction; returns the command's result text. */
async function bashIn(environment: string, code: string): Promise<string> {
  const interaction = (await ai.interactions.create({
    agent: AGENT,
    input: script([{ name: "code_execution", args: { code, language: "bash" } }]),
    environment,
  })) as { steps?: Array<{ type: string; result?: string }> };
  const result = interaction.steps?.find((step) => step.type === "code_execution_result");
  assert.ok(result, "no code_execution_result step");
  return result.result ?? "";
}

/** A request exactly as written: fetch would resolve "..", node:http does not. */
function rawGet(path: string, key = KEY): Promise<{ status: number; body: string }> {
  const url = new URL(emulator.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { "x-goog-api-key": key } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function rest(method: string, path: string, init: { body?: string | Uint8Array; headers?: Record<string, string>; key?: string } = {}) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": init.key ?? KEY, ...(init.headers ?? {}) },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  let json: Record<string, any> | null = null;
  try {
    json = JSON.parse(text) as Record<string, any>;
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, text, json };
}

describe("environments: create, get, list, delete", () => {
  let env: Environment;

  it("creates an environment with sources and reports real counts", async () => {
    env = await createEnvironment({
      sources: [
        { type: "inline", target: "workspace/src/main.py", content: "print('hello from env')\n" },
        { type: "inline", target: "workspace/data.bin", content: Buffer.from([0, 1, 2, 255]).toString("base64"), encoding: "base64" },
        { type: "inline", target: "notes/todo.txt", content: "outside workspace" },
      ],
    });
    assert.match(env.id, /^env_[a-z2-7]{24}$/);
    assert.equal(env.status, "active");
    for (const field of ["created", "updated", "last_accessed"] as const) assert.match(env[field] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Files under /workspace and /.agents plus the source targets elsewhere.
    assert.equal(env.file_count, "3");
    assert.equal(env.size_bytes, String(24 + 4 + 17));
    assert.deepEqual(env.sources, [
      { type: "inline", target: "workspace/src/main.py" },
      { type: "inline", target: "workspace/data.bin", encoding: "base64" },
      { type: "inline", target: "notes/todo.txt" },
    ]);
  });

  it("gets it, with counts that follow the files", async () => {
    const fetched = await getEnvironment(env.id);
    assert.equal(fetched.id, env.id);
    assert.equal(fetched.file_count, "3");
    await upload(env.id, "workspace/added.txt", "0123456789");
    const grown = await getEnvironment(env.id);
    assert.equal(grown.file_count, "4");
    assert.equal(grown.size_bytes, String(24 + 4 + 17 + 10));
    await bashIn(env.id, "rm /workspace/added.txt /workspace/data.bin && head -c 1000 /dev/zero > /workspace/zeros");
    const changed = await getEnvironment(env.id);
    assert.equal(changed.file_count, "3");
    assert.equal(changed.size_bytes, String(24 + 17 + 1000));
  });

  it("is usable by an interaction, which can update its variables", async () => {
    const read = (await ai.interactions.create({
      agent: AGENT,
      input: "Read `/workspace/src/main.py`",
      environment: env.id,
    })) as { environment_id?: string; steps?: Array<{ type: string; result?: string }> };
    assert.equal(read.environment_id, env.id);
    assert.equal(read.steps?.find((step) => step.type === "function_result")?.result, "print('hello from env')\n");
    const updated = (await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code: "echo \"$GREETING\"" } }]),
      environment: { type: "remote", environment_id: env.id, env: { GREETING: "updated" } },
    })) as { steps?: Array<{ type: string; result?: string }> };
    assert.equal(updated.steps?.find((step) => step.type === "code_execution_result")?.result, "updated\n");
  });

  it("refuses what an interaction's environment refuses, naming the top-level field", async () => {
    await assert.rejects(
      createEnvironment({ sources: [{ type: "inline", target: "/etc/passwd", content: "x" }] }),
      rejectsWith(400, /sources\[0\]\.target .*absolute/),
    );
    const raw = await rest("POST", "/v1/environments", { body: JSON.stringify({ sources: [{ type: "inline", target: "etc/x", content: "x" }] }) });
    assert.equal(raw.status, 400);
    assert.match(raw.json?.error.message, /^sources\[0\]\.target "etc\/x" is under \/etc/);
    await assert.rejects(createEnvironment({ network: { allowlist: [{ domain: "bad domain" }] } }), rejectsWith(400, /network\.allowlist\[0\]\.domain/));
    await assert.rejects(createEnvironment({ sources: "nope" }), rejectsWith(400, /sources/));
  });

  it("lists an owner's environments newest first, in pages", async () => {
    const lister = new GoogleGenAI({ apiKey: "environments-lister", httpOptions: { baseUrl: emulator.url } });
    const made: string[] = [];
    for (let index = 0; index < 3; index += 1) made.push((await createEnvironment({}, lister)).id);
    const first = (await lister.environments.list({ page_size: 2 })) as { environments?: Environment[]; next_page_token?: string };
    assert.equal(first.environments?.length, 2);
    assert.ok(first.next_page_token);
    const second = (await lister.environments.list({ page_size: 2, page_token: first.next_page_token! })) as typeof first;
    assert.equal(second.environments?.length, 1);
    assert.equal(second.next_page_token, "");
    const listed = [...first.environments!, ...second.environments!];
    assert.deepEqual(new Set(listed.map((each) => each.id)), new Set(made));
    const created = listed.map((each) => each.created!);
    assert.deepEqual(created, [...created].sort().reverse(), "not newest first");
    for (const each of listed) assert.equal(each.file_count, "0");
    const all = (await lister.environments.list()) as typeof first;
    assert.equal(all.environments?.length, 3);
    await assert.rejects(lister.environments.list({ page_token: "garbage" }), rejectsWith(400, /page_token/));
    await assert.rejects(lister.environments.list({ page_size: 1001 }), rejectsWith(400, /page_size/));
  });

  it("deletes an environment: its container goes, and it is 404 afterwards", async () => {
    const doomed = await createEnvironment({ sources: [{ type: "inline", target: "workspace/a.txt", content: "a" }] });
    const before = await emulator.sandboxCount();
    const answer = await rest("DELETE", `/v1/environments/${doomed.id}`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get("content-type") ?? "", /application\/json/);
    assert.deepEqual(answer.json, {});
    assert.equal(await emulator.sandboxCount(), before - 1);
    await assert.rejects(getEnvironment(doomed.id), rejectsWith(404));
    await assert.rejects(ai.environments.delete(doomed.id), rejectsWith(404));
    await assert.rejects(listFiles(doomed.id, "workspace"), rejectsWith(404));
    await assert.rejects(ai.interactions.create({ agent: AGENT, input: "Run `ls`", environment: doomed.id }), rejectsWith(404));
    const listed = (await ai.environments.list({ page_size: 1000 })) as { environments?: Environment[] };
    assert.ok(!listed.environments?.some((each) => each.id === doomed.id));
    // The SDK form: 200 {} is what it accepts.
    const second = await createEnvironment({});
    await ai.environments.delete(second.id);
    await assert.rejects(getEnvironment(second.id), rejectsWith(404));
  });
});

describe("environments: fork with from_environment", () => {
  let original: Environment;
  let fork: Environment;

  before(async () => {
    original = await createEnvironment({
      sources: [{ type: "inline", target: "workspace/shared.txt", content: "shared" }],
      network: { allowlist: [{ domain: "api.example.com", transform: { Authorization: "Bearer secret-token" } }] },
      env: { GREETING: "from the original" },
    });
    await upload(original.id, "workspace/uploaded.bin", randomBytes(4096));
    await bashIn(original.id, "mkdir -p /home/sandbox/state && echo kept > /home/sandbox/state/marker");
  });

  it("copies the files, the variables and the policy", async () => {
    const before = await emulator.sandboxCount();
    fork = await createEnvironment({ from_environment: `environments/${original.id}` });
    assert.notEqual(fork.id, original.id);
    assert.equal(await emulator.sandboxCount(), before + 1);
    const source = await getEnvironment(original.id);
    assert.equal(fork.file_count, source.file_count);
    assert.equal(fork.size_bytes, source.size_bytes);
    assert.deepEqual(fork.sources, source.sources);
    assert.deepEqual(fork.network, { allowlist: [{ domain: "api.example.com", transform: { Authorization: "[redacted]" } }] });
    assert.equal(
      sha(await download(fork.id, "workspace/uploaded.bin")),
      sha(await download(original.id, "workspace/uploaded.bin")),
    );
    // The whole file system, not only the counted folders; and env came along.
    assert.equal(await bashIn(fork.id, 'cat /home/sandbox/state/marker; echo "$GREETING"'), "kept\nfrom the original\n");
  });

  it("keeps the fork's changes out of the original, and the other way round", async () => {
    await upload(fork.id, "workspace/only-in-fork.txt", "fork");
    await bashIn(fork.id, "rm /workspace/shared.txt");
    await upload(original.id, "workspace/shared.txt", "changed in the original");
    assert.equal((await download(original.id, "workspace/shared.txt")).toString(), "changed in the original");
    await assert.rejects(download(original.id, "workspace/only-in-fork.txt"), rejectsWith(404));
    await assert.rejects(download(fork.id, "workspace/shared.txt"), rejectsWith(404));
    const names = (await listFiles(original.id, "workspace")).files?.map((file) => file.name);
    assert.deepEqual(names, ["shared.txt", "uploaded.bin"]);
  });

  it("accepts a bare id and a new network policy", async () => {
    const open = await createEnvironment({ from_environment: original.id, network: "disabled" });
    assert.equal(open.network, "disabled");
    assert.equal((await download(open.id, "workspace/uploaded.bin")).length, 4096);
  });

  it("forks a fork; deleting forks, in any order, leaves no image behind", async () => {
    const docker = new Docker();
    const forkImages = async (): Promise<string[]> =>
      (await docker.listImages({ filters: { reference: [`iemu-fork:${emulator.instance}-*`] } })).flatMap((image) => image.RepoTags ?? []);
    const grandchild = await createEnvironment({ from_environment: fork.id });
    assert.equal((await download(grandchild.id, "workspace/only-in-fork.txt")).toString(), "fork");
    assert.ok((await forkImages()).includes(`iemu-fork:${emulator.instance}-${grandchild.id}`));
    await ai.environments.delete(fork.id);
    assert.equal((await download(grandchild.id, "workspace/only-in-fork.txt")).toString(), "fork", "the grandchild lost its files");
    const greatGrandchild = await createEnvironment({ from_environment: grandchild.id });
    await ai.environments.delete(grandchild.id);
    assert.equal((await download(greatGrandchild.id, "workspace/only-in-fork.txt")).toString(), "fork");
    await ai.environments.delete(greatGrandchild.id);
    const left = (await forkImages()).filter((tag) => [fork.id, grandchild.id, greatGrandchild.id].some((id) => tag.endsWith(id)));
    assert.deepEqual(left, []);
  });

  it("copies a read-only repository source into a read-only mount of the fork's own", async () => {
    const folder = mkdtempSync(join(tmpdir(), "env-fork-repo-"));
    try {
      writeFileSync(join(folder, "README.md"), "repository content\n");
      const withRepo = await createEnvironment({ sources: [{ type: "repository", source: folder, target: "workspace/repo" }] });
      const copy = await createEnvironment({ from_environment: withRepo.id });
      await ai.environments.delete(withRepo.id);
      assert.equal((await download(copy.id, "workspace/repo/README.md")).toString(), "repository content\n");
      await assert.rejects(upload(copy.id, "workspace/repo/new.txt", "x"), rejectsWith(403));
      assert.match(await bashIn(copy.id, "touch /workspace/repo/x 2>&1; findmnt -no OPTIONS /workspace/repo"), /Read-only file system|Permission denied|ro,/);
      await ai.environments.delete(copy.id);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses sources or env with from_environment, and unknown or foreign sources", async () => {
    await assert.rejects(
      createEnvironment({ from_environment: original.id, sources: [{ type: "inline", target: "workspace/x", content: "x" }] }),
      rejectsWith(400, /sources must be empty/),
    );
    await assert.rejects(createEnvironment({ from_environment: original.id, env: { A: "1" } }), rejectsWith(400, /env must be empty/));
    await assert.rejects(createEnvironment({ from_environment: "env_doesnotexist" }), rejectsWith(404));
    await assert.rejects(createEnvironment({ from_environment: original.id }, other), rejectsWith(404));
  });
});

describe("files: list", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({
      sources: [
        { type: "inline", target: "workspace/src/main.py", content: "print('hello from env')\n" },
        { type: "inline", target: "workspace/src/lib/util.py", content: "X = 1\n" },
        { type: "inline", target: "workspace/README.md", content: "# readme\n" },
        { type: "inline", target: "workspace/a b.txt", content: "spaces" },
      ],
    });
  });

  it("lists a folder's contents, with metadata", async () => {
    const listing = await listFiles(env.id, "workspace");
    assert.deepEqual(listing.files?.map((file) => file.path), ["workspace/README.md", "workspace/a b.txt", "workspace/src"]);
    assert.equal(listing.next_page_token, "");
    const [readme, , src] = listing.files!;
    assert.deepEqual({ ...readme, created: undefined, modified: undefined }, {
      name: "README.md",
      path: "workspace/README.md",
      type: "file",
      mime_type: "text/markdown",
      size_bytes: "9",
      created: undefined,
      modified: undefined,
    });
    assert.match(readme!.modified ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(src!.type, "directory");
    assert.equal(src!.mime_type, "");
  });

  it("lists recursively, depth first by name", async () => {
    const listing = await listFiles(env.id, "workspace/src", { recursive: true });
    assert.deepEqual(listing.files?.map((file) => [file.path, file.type]), [
      ["workspace/src/lib", "directory"],
      ["workspace/src/lib/util.py", "file"],
      ["workspace/src/main.py", "file"],
    ]);
    assert.equal(listing.files?.[2]?.mime_type, "text/x-python");
  });

  it("pages through a recursive listing", async () => {
    const whole = (await listFiles(env.id, "workspace", { recursive: true, page_size: 100 })).files!.map((file) => file.path);
    assert.equal(whole.length, 6);
    const paged: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const listing = await listFiles(env.id, "workspace", { recursive: true, page_size: 2, ...(token ? { page_token: token } : {}) });
      assert.ok((listing.files?.length ?? 0) <= 2);
      paged.push(...listing.files!.map((file) => file.path!));
      token = listing.next_page_token;
      if (!token) break;
    }
    assert.deepEqual(paged, whole);
    const token2 = (await listFiles(env.id, "workspace", { recursive: true, page_size: 2 })).next_page_token!;
    await assert.rejects(listFiles(env.id, "workspace/src", { recursive: true, page_token: token2 }), rejectsWith(400, /another listing/));
  });

  it("lists the root with path ''", async () => {
    const names = (await listFiles(env.id, "", { page_size: 1000 })).files!.map((file) => file.path);
    for (const expected of [".agents", "workspace", "tmp", "usr", "proc"]) assert.ok(names.includes(expected), `${expected} missing from ${names}`);
    assert.ok(!names.includes(""));
  });

  it("describes a single file by itself", async () => {
    const listing = await listFiles(env.id, "workspace/src/main.py");
    assert.deepEqual(listing.files?.map((file) => [file.name, file.size_bytes]), [["main.py", "24"]]);
  });

  it("answers 404 for a missing path and 403 for the pseudo file systems", async () => {
    await assert.rejects(listFiles(env.id, "workspace/nowhere"), rejectsWith(404, /workspace\/nowhere/));
    await assert.rejects(listFiles(env.id, "proc"), rejectsWith(403, /\/proc/));
  });
});

describe("files: download", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/hello.txt", content: "hello" }] });
  });

  it("downloads a file's bytes, through either form of the environment name and a leading /", async () => {
    assert.equal((await download(env.id, "workspace/hello.txt")).toString(), "hello");
    assert.equal((await download(`environments/${env.id}`, "/workspace/hello.txt")).toString(), "hello");
    const raw = await rest("GET", `/v1beta/environments/${env.id}/files/workspace/hello.txt?alt=media`);
    assert.equal(raw.status, 200);
    assert.equal(raw.text, "hello");
    assert.equal(raw.headers.get("content-type"), "text/plain");
    assert.equal(raw.headers.get("content-length"), "5");
  });

  it("downloads a multi-MiB binary made in the sandbox byte for byte", async () => {
    await bashIn(env.id, "head -c 6291459 /dev/urandom > /workspace/random.bin");
    const expected = (await bashIn(env.id, "sha256sum /workspace/random.bin | cut -d' ' -f1")).trim();
    const bytes = await download(env.id, "workspace/random.bin");
    assert.equal(bytes.length, 6_291_459);
    assert.equal(sha(bytes), expected);
  });

  it("refuses a folder, a missing file, and a file over EMULATOR_MAX_DOWNLOAD_BYTES", async () => {
    await assert.rejects(download(env.id, "workspace"), rejectsWith(400, /is a folder/));
    await assert.rejects(download(env.id, "workspace/missing.txt"), rejectsWith(404));
    await bashIn(env.id, `truncate -s ${MAX_DOWNLOAD + 1} /workspace/too-big.bin`);
    await assert.rejects(download(env.id, "workspace/too-big.bin"), rejectsWith(400, /EMULATOR_MAX_DOWNLOAD_BYTES/));
  });
});

describe("files: upload", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/existing.txt", content: "original" }] });
  });

  it("uploads a small file, creating its folders", async () => {
    const result = await upload(env.id, "workspace/notes/today/hello.txt", "hi there");
    assert.deepEqual(result.files.map((file) => [file.path, file.type, file.size_bytes, file.mime_type]), [
      ["workspace/notes/today/hello.txt", "file", "8", "text/plain"],
    ]);
    assert.equal((await download(env.id, "workspace/notes/today/hello.txt")).toString(), "hi there");
    assert.equal((await bashIn(env.id, "stat -c %U /workspace/notes/today/hello.txt")).trim(), "sandbox");
  });

  it("uploads a 20 MiB file in 8 MiB chunks, byte for byte", async () => {
    const data = randomBytes(20 * MiB + 17);
    const posts = uploadPosts;
    const result = await upload(`environments/${env.id}`, "workspace/big.bin", data);
    assert.equal(uploadPosts - posts, 3, "the SDK did not send three chunks");
    assert.equal(result.files[0]?.size_bytes, String(data.length));
    assert.equal(sha(await download(env.id, "workspace/big.bin")), sha(data));
  });

  it("uploads an empty file", async () => {
    const result = await upload(env.id, "workspace/empty.txt", new Uint8Array(0));
    assert.equal(result.files[0]?.size_bytes, "0");
  });

  it("refuses to replace an existing file with overwrite=false, and replaces it otherwise", async () => {
    await assert.rejects(upload(env.id, "workspace/existing.txt", "new", { overwrite: false }), rejectsWith(400, /already exists.*overwrite=true/));
    assert.equal((await download(env.id, "workspace/existing.txt")).toString(), "original");
    await upload(env.id, "workspace/existing.txt", "replaced", { overwrite: true });
    assert.equal((await download(env.id, "workspace/existing.txt")).toString(), "replaced");
    await upload(env.id, "workspace/existing.txt", "replaced again");
    assert.equal((await download(env.id, "workspace/existing.txt")).toString(), "replaced again");
    await assert.rejects(upload(env.id, "workspace/notes", "x"), rejectsWith(400, /is a folder/));
  });

  it("unpacks a tar.gz into a folder", async () => {
    const archive = await tarGz([
      { name: "./", type: "directory" },
      { name: "./pkg/", type: "directory" },
      { name: "./pkg/main.py", content: "print('unpacked')\n" },
      { name: "./pkg/run.sh", content: "#!/bin/sh\necho run\n", mode: 0o755 },
      { name: "./pkg/link", type: "symlink", linkname: "main.py" },
    ]);
    const result = await upload(env.id, "workspace/unpacked", archive, { extract: true });
    assert.deepEqual(result.files.map((file) => [file.path, file.type]), [
      ["workspace/unpacked/pkg", "directory"],
      ["workspace/unpacked/pkg/main.py", "file"],
      ["workspace/unpacked/pkg/run.sh", "file"],
      ["workspace/unpacked/pkg/link", "symlink"],
    ]);
    assert.equal((await download(env.id, "workspace/unpacked/pkg/link")).toString(), "print('unpacked')\n");
    assert.equal(await bashIn(env.id, "/workspace/unpacked/pkg/run.sh; stat -c %U /workspace/unpacked/pkg/main.py"), "run\nsandbox\n");
    assert.equal(
      (await bashIn(env.id, "ls -A /tmp/.emulator-uploads | wc -l")).trim(),
      "0",
      "a staging file was left behind",
    );
  });

  it("unpacks a zip", async () => {
    const archive = zip([
      { name: "docs", type: "directory" },
      { name: "docs/guide.md", content: "# guide\n" },
      { name: "top.txt", content: "top" },
    ]);
    const result = await upload(env.id, "workspace/unzipped", archive, { extract: true });
    assert.deepEqual(result.files.map((file) => file.path), ["workspace/unzipped/docs", "workspace/unzipped/docs/guide.md", "workspace/unzipped/top.txt"]);
    assert.equal((await download(env.id, "workspace/unzipped/docs/guide.md")).toString(), "# guide\n");
  });

  it("refuses archives with escaping entries, touching nothing", async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ["dotdot", await tarGz([{ name: "ok.txt", content: "ok" }, { name: "../escaped.txt", content: "x" }]), /contains "\.\."/],
      ["absolute", await tarGz([{ name: "ok.txt", content: "ok" }, { name: "/tmp/escaped.txt", content: "x" }]), /absolute/],
      ["symlink", await tarGz([{ name: "ok.txt", content: "ok" }, { name: "out", type: "symlink", linkname: "../../../etc" }]), /points outside/],
      ["zip", zip([{ name: "ok.txt", content: "ok" }, { name: "../escaped.txt", content: "x" }]), /contains "\.\."/],
    ];
    for (const [label, archive, message] of cases) {
      await assert.rejects(upload(env.id, `workspace/refused-${label}`, archive, { extract: true }), rejectsWith(400, message));
    }
    const left = await bashIn(env.id, "ls -d /workspace/refused-* /workspace/escaped.txt /tmp/escaped.txt 2>/dev/null | wc -l");
    assert.equal(left.trim(), "0");
  });

  it("refuses an existing file in an archive with overwrite=false, and something that is no archive", async () => {
    const archive = await tarGz([{ name: "fresh.txt", content: "fresh" }, { name: "pkg/main.py", content: "changed" }]);
    await assert.rejects(upload(env.id, "workspace/unpacked", archive, { extract: true, overwrite: false }), rejectsWith(400, /already exists/));
    assert.equal((await download(env.id, "workspace/unpacked/pkg/main.py")).toString(), "print('unpacked')\n");
    await assert.rejects(download(env.id, "workspace/unpacked/fresh.txt"), rejectsWith(404));
    await assert.rejects(upload(env.id, "workspace/not-an-archive", "plain text", { extract: true }), rejectsWith(400, /not a tar/));
  });

  it("speaks the resumable protocol: offsets, query, a wrong total, unknown uploads", async () => {
    const start = (path: string, length: number, key = KEY) =>
      rest("PUT", `/upload/v1beta/environments/${env.id}/files/${path}`, {
        key,
        headers: {
          "x-goog-upload-protocol": "resumable",
          "x-goog-upload-command": "start",
          "x-goog-upload-header-content-length": String(length),
          "x-goog-upload-header-content-type": "text/plain",
        },
      });
    const started = await start("workspace/resumable.txt", 10);
    assert.equal(started.status, 200);
    const url = started.headers.get("x-goog-upload-url")!;
    assert.match(url, /\/upload\/v1beta\/environments\/env_\w+\/files\/workspace\/resumable\.txt\?upload_id=/);
    const send = (command: string, offset: number | null, body: string, key = KEY) =>
      fetch(url, {
        method: "POST",
        headers: { "x-goog-api-key": key, "x-goog-upload-command": command, ...(offset === null ? {} : { "x-goog-upload-offset": String(offset) }) },
        body,
      });
    const first = await send("upload", 0, "01234");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-goog-upload-status"), "active");
    const wrongOffset = await send("upload", 3, "xxxxx");
    assert.equal(wrongOffset.status, 400);
    assert.match(((await wrongOffset.json()) as { error: { message: string } }).error.message, /send the bytes from offset 5/);
    assert.equal((await send("upload", 5, "56789", OTHER_KEY)).status, 404);
    const query = await send("query", null, "");
    assert.equal(query.headers.get("x-goog-upload-size-received"), "5");
    const last = await send("upload, finalize", 5, "56789");
    assert.equal(last.status, 200);
    assert.equal(last.headers.get("x-goog-upload-status"), "final");
    assert.equal(((await last.json()) as { files: EnvironmentFile[] }).files[0]?.size_bytes, "10");
    assert.equal((await download(env.id, "workspace/resumable.txt")).toString(), "0123456789");
    assert.equal((await send("upload", 10, "more")).status, 404, "a finished upload takes no more bytes");

    const short = await start("workspace/short.txt", 10);
    const shortUrl = short.headers.get("x-goog-upload-url")!;
    const finalized = await fetch(shortUrl, { method: "POST", headers: { "x-goog-api-key": KEY, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" }, body: "12345" });
    assert.equal(finalized.status, 400);
    assert.match(((await finalized.json()) as { error: { message: string } }).error.message, /after 5 bytes.*announced 10/);
    await assert.rejects(download(env.id, "workspace/short.txt"), rejectsWith(404));

    const long = await start("workspace/long.txt", 3);
    const tooMuch = await fetch(long.headers.get("x-goog-upload-url")!, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" },
      body: "1234",
    });
    assert.equal(tooMuch.status, 400);

    const notResumable = await rest("PUT", `/upload/v1/environments/${env.id}/files/workspace/x.txt`, { headers: { "x-goog-upload-protocol": "multipart" } });
    assert.equal(notResumable.status, 400);
    assert.match(notResumable.json?.error.message, /resumable/);
    assert.equal((await rest("POST", `/upload/v1/environments/${env.id}/files/workspace/x.txt?upload_id=nope`, { headers: { "x-goog-upload-command": "upload" } })).status, 404);
    assert.equal((await bashIn(env.id, "ls -A /tmp/.emulator-uploads | wc -l")).trim(), "0", "a staging file was left behind");
  });
});

describe("files: paths cannot escape the sandbox's reach", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/in.txt", content: "in" }] });
    await bashIn(env.id, "ln -s /proc/self /workspace/proc-link && ln -s /etc /workspace/etc-link && ln -s /dev/zero /workspace/zero");
  });

  it("refuses .. and absolute paths with a 400", async () => {
    for (const path of [
      `/v1/environments/${env.id}/files/workspace/../../etc/passwd?alt=media`,
      `/v1/environments/${env.id}/files/workspace/%2E%2E/etc`,
      `/v1/environments/${env.id}/files//etc/passwd?alt=media`,
      `/v1/environments/${env.id}/files/workspace%5Cin.txt`,
    ]) {
      const answer = await rawGet(path);
      assert.equal(answer.status, 400, `${path}: ${answer.body}`);
      assert.match(answer.body, /"INVALID_ARGUMENT"/);
    }
    await assert.rejects(listFiles(env.id, "/etc"), rejectsWith(400, /is absolute.*write "etc"/));
  });

  it("refuses symlinks into the pseudo file systems with a 403", async () => {
    await assert.rejects(download(env.id, "workspace/proc-link/environ"), rejectsWith(403, /\/proc/));
    await assert.rejects(listFiles(env.id, "workspace/proc-link"), rejectsWith(403, /\/proc/));
    await assert.rejects(download(env.id, "workspace/zero"), rejectsWith(403, /\/dev/));
    // Listing shows the links themselves, never what they point to.
    const links = (await listFiles(env.id, "workspace")).files!.filter((file) => file.type === "symlink").map((file) => file.name);
    assert.deepEqual(links, ["etc-link", "proc-link", "zero"]);
  });

  it("refuses uploads into system folders, directly or through a symlink, touching nothing", async () => {
    await assert.rejects(upload(env.id, "etc/evil.conf", "x"), rejectsWith(403, /\/etc, a system folder/));
    await assert.rejects(upload(env.id, "workspace/etc-link/evil.conf", "x"), rejectsWith(403, /leads to \/etc\/evil\.conf/));
    await assert.rejects(upload(env.id, "opt/emulator/executor/main.js", "x"), rejectsWith(403, /\/opt\/emulator/));
    await assert.rejects(upload(env.id, "", await tarGz([{ name: "etc/evil.conf", content: "x" }]), { extract: true }), rejectsWith(400, /\/etc, a system folder/));
    assert.equal((await bashIn(env.id, "test -e /etc/evil.conf && echo present; ls -A /tmp/.emulator-uploads 2>/dev/null | wc -l")).trim(), "0");
  });

  it("answers 404 for another API key's environment, whatever the call", async () => {
    await assert.rejects(getEnvironment(env.id, other), rejectsWith(404));
    await assert.rejects(other.environments.delete(env.id), rejectsWith(404));
    await assert.rejects(listFiles(env.id, "workspace", {}, other), rejectsWith(404));
    await assert.rejects(download(env.id, "workspace/in.txt", other), rejectsWith(404));
    await assert.rejects(upload(env.id, "workspace/theirs.txt", "x", {}, other), rejectsWith(404));
    await assert.rejects(download(env.id, "workspace/theirs.txt"), rejectsWith(404));
    assert.equal((await download(env.id, "workspace/in.txt")).toString(), "in");
  });
});

describe("environments: REST forms", () => {
  it("serves any version segment, per call too, and the environments/ prefix", async () => {
    const env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/r.txt", content: "r" }] });
    const beta = await rest("GET", `/v1beta/environments/${env.id}`);
    assert.equal(beta.status, 200);
    assert.equal(beta.json?.id, env.id);
    assert.equal(beta.json?.file_count, "1");
    const prefixed = await rest("GET", `/v1/environments/environments%2F${env.id}`);
    assert.equal(prefixed.json?.id, env.id);
    const alpha = (await ai.environments.get(env.id, { api_version: "v1alpha" })) as Environment;
    assert.equal(alpha.id, env.id);
    const viaPrefix = await listFiles(`environments/${env.id}`, "workspace");
    assert.deepEqual(viaPrefix.files?.map((file) => file.path), ["workspace/r.txt"]);
    const rootListing = await rest("GET", `/v1beta/environments/${env.id}/files/?page_size=3`);
    assert.equal(rootListing.status, 200);
    assert.equal(rootListing.json?.files.length, 3);
    assert.ok(rootListing.json?.next_page_token);
    const created = await rest("POST", "/v1beta/environments", { body: JSON.stringify({}), headers: { "content-type": "application/json" } });
    assert.equal(created.status, 200);
    assert.equal(created.json?.status, "active");
    const noKey = await fetch(`${emulator.url}/v1/environments`);
    assert.equal(noKey.status, 401);
  });
});
