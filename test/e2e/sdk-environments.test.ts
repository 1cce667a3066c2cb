// End to end: the environments API through the official @google/genai SDK (create, get, list, delete,
// fork) and its REST forms with plain HTTP, against the emulator started as `npm start` starts it, with
// real Docker sandboxes.
// covers: environments.create, environments.get, environments.list, environments.delete, CreateEnvironmentRequest.sources
// covers: CreateEnvironmentRequest.network, CreateEnvironmentRequest.from_environment
// covers: CreateAgentInteraction.environment.environment_id

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import {
  AGENT,
  emulator,
  ai,
  other,
  type Environment,
  rejectsWith,
  sha,
  script,
  createEnvironment,
  getEnvironment,
  listFiles,
  upload,
  download,
  bashIn,
  rest,
  useEnvironmentsEmulator,
} from "../support/environments-harness.js";

useEnvironmentsEmulator();

describe("environments: create, get, list, delete", () => {
  let env: Environment;

  it("creates an environment with sources and reports real counts", async () => {
    env = await createEnvironment({
      sources: [
        { type: "inline", target: "workspace/src/main.py", content: "print('hello from env')\n" },
        { type: "inline", target: "workspace/data.bin", content: Buffer.from([0, 1, 2, 255]).toString("base64"), encoding: "base64" },
        { type: "inline", target: "/notes/todo.txt", content: "outside workspace" },
      ],
    });
    assert.match(env.id, /^env_[a-z2-7]{24}$/);
    assert.equal(env.status, "active");
    for (const field of ["created", "updated", "last_accessed"] as const)
      assert.match(env[field] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Files under /workspace and /.agents plus the source targets elsewhere.
    assert.equal(env.file_count, "3");
    assert.equal(env.size_bytes, String(24 + 4 + 17));
    assert.deepEqual(env.sources, [
      { type: "inline", target: "workspace/src/main.py" },
      { type: "inline", target: "workspace/data.bin", encoding: "base64" },
      { type: "inline", target: "/notes/todo.txt" },
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
      input: script([{ name: "code_execution", args: { code: 'echo "$GREETING"' } }]),
      environment: { type: "remote", environment_id: env.id, env: { GREETING: "updated" } },
    })) as { steps?: Array<{ type: string; result?: string }> };
    assert.equal(updated.steps?.find((step) => step.type === "code_execution_result")?.result, "updated\n");
  });

  it("refuses what an interaction's environment refuses, naming the top-level field", async () => {
    await assert.rejects(
      createEnvironment({ sources: [{ type: "inline", target: "/etc/passwd", content: "x" }] }),
      rejectsWith(400, /sources\[0\]\.target "\/etc\/passwd" is under \/etc, a system folder/),
    );
    const raw = await rest("POST", "/v1/environments", {
      body: JSON.stringify({ sources: [{ type: "inline", target: "etc/x", content: "x" }] }),
    });
    assert.equal(raw.status, 400);
    assert.match(raw.json?.error.message, /^sources\[0\]\.target "etc\/x" is under \/etc/);
    await assert.rejects(
      createEnvironment({ network: { allowlist: [{ domain: "bad domain" }] } }),
      rejectsWith(400, /network\.allowlist\[0\]\.domain/),
    );
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
    assert.equal(sha(await download(fork.id, "workspace/uploaded.bin")), sha(await download(original.id, "workspace/uploaded.bin")));
    // The whole file system, not only the counted folders; and env came along.
    assert.equal(await bashIn(fork.id, 'cat /home/sandbox/state/marker; echo "$GREETING"'), "kept\nfrom the original\n");
  });

  it("keeps the fork's changes out of the original, and the other way round", async () => {
    await upload(fork.id, "workspace/only-in-fork.txt", "fork");
    await bashIn(fork.id, "rm /workspace/shared.txt");
    await upload(original.id, "workspace/shared.txt", "changed in the original", { overwrite: true });
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
    // Only what every user of the host may read is served: mkdtemp makes 0700 folders.
    chmodSync(folder, 0o755);
    try {
      writeFileSync(join(folder, "README.md"), "repository content\n");
      const withRepo = await createEnvironment({ sources: [{ type: "repository", source: folder, target: "workspace/repo" }] });
      const copy = await createEnvironment({ from_environment: withRepo.id });
      await ai.environments.delete(withRepo.id);
      assert.equal((await download(copy.id, "workspace/repo/README.md")).toString(), "repository content\n");
      await assert.rejects(upload(copy.id, "workspace/repo/new.txt", "x"), rejectsWith(403));
      assert.match(
        await bashIn(copy.id, "touch /workspace/repo/x 2>&1; findmnt -no OPTIONS /workspace/repo"),
        /Read-only file system|Permission denied|ro,/,
      );
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
    assert.deepEqual(
      viaPrefix.files?.map((file) => file.path),
      ["workspace/r.txt"],
    );
    const rootListing = await rest("GET", `/v1beta/environments/${env.id}/files/etc/?page_size=3`);
    assert.equal(rootListing.status, 200);
    assert.equal(rootListing.json?.files.length, 3);
    assert.ok(rootListing.json?.next_page_token);
    const created = await rest("POST", "/v1beta/environments", {
      body: JSON.stringify({}),
      headers: { "content-type": "application/json" },
    });
    assert.equal(created.status, 200);
    assert.equal(created.json?.status, "active");
    const noKey = await fetch(`${emulator.url}/v1/environments`);
    assert.equal(noKey.status, 401);
  });
});
