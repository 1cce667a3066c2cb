// The code examples of the documentation's environments page (ai.google.dev/gemini-api/docs/agent-environment,
// the revision that names `antigravity-preview-09-2026`), run as a new user would: the JavaScript example
// through the official SDK, the REST example as the same HTTP request, and the Python example as the
// body the Python SDK sends (the same JSON; the Python SDK is not installed for the integration tier).
// Our own code throughout. The emulator is the one `npm start` wires, with in-memory sandboxes.
//
// Sources that name outside hosts (github.com, gs://cloud-samples-data) are fetched from stand-ins on
// this machine, as an operator would set them up: EMULATOR_REPO_MAP maps the repositories' URLs to local
// git repositories, EMULATOR_GCS_DIR holds the buckets. Nothing leaves the machine.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists;
// tools/parity/doc-examples.ts catalogues every example found, and why those not run here are not.
// covers: environments.list, environments.get, environments.delete, environments.files.list
// covers: environments.files.download, environments.files.upload
// covers: CreateCredential.id, CreateCredential.type, CreateCredential.token

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readTar } from "../support/archives.js";
import { docClient, standInRepository, type DocClient } from "../support/doc-example-client.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "doc-examples-environments-key";
const AGENT = "antigravity-preview-09-2026";

type Interaction = { id: string; status: string; environment_id?: string; output_text?: string; errors?: unknown };
type FileEntry = { name?: string; path?: string; type?: string; size_bytes?: string; mime_type?: string };

let emulator: FakeRuntimeEmulator;
let client: DocClient["client"];
let rest: DocClient["rest"];
let work: string;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "doc-examples-env-"));
  fs.chmodSync(work, 0o755);
  const spoon = standInRepository(path.join(work, "spoon-knife"), { "README.md": "# Spoon-Knife\n", "index.html": "<p>fork me</p>\n" });
  const backend = standInRepository(path.join(work, "backend"), { "package.json": '{"name":"backend"}\n' });
  const gcs = path.join(work, "gcs");
  fs.mkdirSync(path.join(gcs, "cloud-samples-data", "bigquery", "us-states"), { recursive: true });
  fs.writeFileSync(path.join(gcs, "cloud-samples-data", "bigquery", "us-states", "us-states.csv"), "name,post_abbr\nAlabama,AL\n");
  fs.mkdirSync(path.join(gcs, "my-private-bucket", "data"), { recursive: true });
  fs.writeFileSync(path.join(gcs, "my-private-bucket", "data", "q1.csv"), "region,total\nnorth,1\n");
  for (const folder of [work, spoon, backend, gcs]) fs.chmodSync(folder, 0o755);
  execFileSync("chmod", ["-R", "a+rX", work]);
  emulator = await startFakeRuntimeEmulator({
    EMULATOR_REPO_MAP: `https://github.com/octocat/Spoon-Knife=${spoon},https://github.com/your-org/backend=${backend}`,
    EMULATOR_REPO_ROOTS: work,
    EMULATOR_GCS_DIR: gcs,
  });
  ({ client, rest } = docClient(emulator.url, KEY));
});
after(async () => {
  await emulator?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** interactions.create through the SDK (the JavaScript example, and the Python example's body), completed. */
async function create(body: Record<string, unknown>): Promise<Interaction> {
  const interaction = (await client.interactions.create(body as never)) as unknown as Interaction;
  assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
  return interaction;
}

/** POST /v1beta/interactions as the REST example sends it, completed. */
async function createByRest(body: Record<string, unknown>): Promise<Interaction> {
  const { status, json } = await rest("POST", "/v1beta/interactions", body);
  assert.equal(status, 200, JSON.stringify(json));
  assert.equal(json.status, "completed", JSON.stringify(json.errors));
  return json as Interaction;
}

/** Sends one example body the three ways (Python's body and JavaScript's are the same JSON). */
async function everyWay(body: Record<string, unknown>, restBody: Record<string, unknown> = body): Promise<[Interaction, Interaction]> {
  return [await create(body), await createByRest(restBody)];
}

function filesOf(environmentId: string | undefined): Map<string, string> {
  const channel = emulator.runtime.channels.get(environmentId ?? "");
  assert.ok(channel, `no sandbox for environment ${environmentId}`);
  return channel.files;
}

const asText = (text: string) => [{ type: "text", text }];

describe("agent-environment: interactions with an environment", () => {
  it('makes a fresh sandbox for environment: "remote" and answers its ID', async () => {
    // doc-example: agent-environment#intro: environment "remote", print environment_id (python, javascript, rest)
    const input = "Install pandas and matplotlib, verify the imports, and print the versions.";
    for (const interaction of await everyWay({ agent: AGENT, input, environment: "remote" })) {
      assert.match(interaction.environment_id ?? "", /^env_/);
      assert.ok(emulator.runtime.channels.has(interaction.environment_id!));
    }
  });

  it("takes the three forms: remote, an environment ID with previous_interaction_id, a config with a repository source", async () => {
    // doc-example: agent-environment#the-environment-parameter: fresh, reuse, new sandbox with sources (python, javascript, rest)
    const fresh = await create({ agent: AGENT, input: "Write a hello world script.", environment: "remote" });
    const reused = await create({
      agent: AGENT,
      input: "Modify the script to accept a name argument.",
      environment: fresh.environment_id,
      previous_interaction_id: fresh.id,
    });
    assert.equal(reused.environment_id, fresh.environment_id);
    const sources = {
      type: "remote",
      sources: [{ type: "repository", source: "https://github.com/octocat/Spoon-Knife", target: "/workspace/spoon-knife" }],
    };
    const withSources = await create({ agent: AGENT, input: "List all files and summarize the project.", environment: sources });
    assert.equal(filesOf(withSources.environment_id).get("/workspace/spoon-knife/README.md"), "# Spoon-Knife\n");
    // REST: input as a list of text parts, and the reuse request written with the previous IDs.
    const restFresh = await createByRest({ agent: AGENT, input: asText("Write a hello world script."), environment: "remote" });
    const restReused = await createByRest({
      agent: AGENT,
      input: asText("Modify the script to accept a name argument."),
      environment: restFresh.environment_id,
      previous_interaction_id: restFresh.id,
    });
    assert.equal(restReused.environment_id, restFresh.environment_id);
    const restSources = await createByRest({
      agent: AGENT,
      input: asText("List all files and summarize the project."),
      environment: sources,
    });
    assert.equal(filesOf(restSources.environment_id).get("/workspace/spoon-knife/index.html"), "<p>fork me</p>\n");
  });

  it("reuses a configured environment over a chain of interactions", async () => {
    // doc-example: agent-environment#configure-an-environment: three interactions on one environment (python, javascript, rest)
    const [first, byRest] = await everyWay({
      agent: AGENT,
      input: "Install pandas, matplotlib, and seaborn. Verify all imports work and print the installed versions.",
      environment: "remote",
    });
    assert.ok(byRest.environment_id);
    const second = await create({
      agent: AGENT,
      input: "Clone https://github.com/octocat/Spoon-Knife into /workspace/tools. Run the test suite and fix any missing dependencies.",
      environment: first.environment_id,
      previous_interaction_id: first.id,
    });
    const third = await create({
      agent: AGENT,
      input: "Using the tools in /workspace/tools, list the files.",
      environment: first.environment_id,
      previous_interaction_id: second.id,
    });
    assert.equal(third.environment_id, first.environment_id);
  });

  it("mounts a repository, a Cloud Storage folder and inline content", async () => {
    // doc-example: agent-environment#mount-from-a-source: repository, gcs and inline sources (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: "List all files under /workspace and describe what you find.",
      environment: {
        type: "remote",
        sources: [
          { type: "repository", source: "https://github.com/octocat/Spoon-Knife", target: "/workspace/spoon-knife" },
          { type: "gcs", source: "gs://cloud-samples-data/bigquery/us-states/", target: "/workspace/gcs-data" },
          {
            type: "inline",
            content: "# Project Notes\n\n- Analyze state population data\n- Create visualizations\n",
            target: "/workspace/notes/readme.md",
          },
        ],
      },
    };
    for (const interaction of await everyWay(body)) {
      const files = filesOf(interaction.environment_id);
      assert.equal(files.get("/workspace/spoon-knife/README.md"), "# Spoon-Knife\n");
      assert.equal(files.get("/workspace/gcs-data/us-states.csv"), "name,post_abbr\nAlabama,AL\n");
      assert.match(files.get("/workspace/notes/readme.md") ?? "", /^# Project Notes/);
    }
  });

  it("mounts a private repository with a Basic token on github.com, and a private bucket at /workspace", async () => {
    // doc-example: agent-environment#private-sources: private git repository with a transform header (python, javascript, rest)
    const backend = {
      agent: AGENT,
      input: "Run the test for my backend app and fix any issue.",
      environment: {
        type: "remote",
        sources: [{ type: "repository", source: "https://github.com/your-org/backend", target: "/backend-app" }],
        network: {
          allowlist: [{ domain: "github.com", transform: { Authorization: "Basic YOUR_BASE64_TOKEN" } }, { domain: "*" }],
        },
      },
    };
    for (const interaction of await everyWay(backend)) {
      assert.equal(filesOf(interaction.environment_id).get("/backend-app/package.json"), '{"name":"backend"}\n');
    }
    // doc-example: agent-environment#private-sources: private Cloud Storage bucket with a Bearer token (python, javascript, rest)
    const bucket = (domain: string) => ({
      agent: AGENT,
      input: "Analyze the discrepancies across the data in workspace",
      environment: {
        type: "remote",
        sources: [{ type: "gcs", source: "gs://my-private-bucket/data", target: "/workspace" }],
        network: { allowlist: [{ domain, transform: { Authorization: "Bearer YOUR_GCS_TOKEN" } }, { domain: "*" }] },
      },
    });
    // The Python example allows *.googleapis.com, the JavaScript and REST ones storage.googleapis.com.
    const [python, javascript] = [await create(bucket("*.googleapis.com")), await create(bucket("storage.googleapis.com"))];
    const byRest = await createByRest(bucket("storage.googleapis.com"));
    for (const interaction of [python, javascript, byRest]) {
      assert.equal(filesOf(interaction.environment_id).get("/workspace/q1.csv"), "region,total\nnorth,1\n");
    }
  });

  it("restricts egress to an allowlist with an injected header, and turns the network off", async () => {
    // doc-example: agent-environment#network-configuration: allowlist with transform, pypi.org and a catch-all (python, javascript, rest)
    const network = {
      allowlist: [
        { domain: "api.github.com", transform: { Authorization: "Bearer ghp_your_github_token" } },
        { domain: "pypi.org" },
        { domain: "*" },
      ],
    };
    const input = "Fetch the latest issues from the GitHub API for my-org/my-repo.";
    const [sdk, byRest] = await everyWay(
      { agent: AGENT, input, environment: { type: "remote", network } },
      { agent: AGENT, input: asText(input), environment: { type: "remote", network } },
    );
    const shown = (await client.environments.get(sdk.environment_id!)) as { network?: { allowlist?: Array<{ domain: string }> } };
    assert.deepEqual(
      shown.network?.allowlist?.map((rule) => rule.domain),
      ["api.github.com", "pypi.org", "*"],
    );
    assert.ok(byRest.environment_id);
    // doc-example: agent-environment#credentials: inline transform from a short-lived gcloud token (python, javascript, rest)
    await everyWay({
      agent: AGENT,
      input: "List the files in gs://my-bucket/reports/ using the GCS JSON API.",
      environment: {
        type: "remote",
        network: { allowlist: [{ domain: "storage.googleapis.com", transform: { Authorization: "Bearer <YOUR_GCLOUD_TOKEN>" } }] },
      },
    });
    // doc-example: agent-environment#disable-network-access: network "disabled" (python, javascript, rest)
    for (const interaction of await everyWay({
      agent: AGENT,
      input: "Analyze the local files only.",
      environment: { type: "remote", network: "disabled" },
    })) {
      const environment = (await client.environments.get(interaction.environment_id!)) as { network?: unknown };
      assert.equal(environment.network, "disabled");
    }
  });

  it("stores a bearer_token credential once and references it from an allowlist rule", async () => {
    // doc-example: agent-environment#credentials: credentials.create then an allowlist rule naming it (python, javascript, rest)
    await client.credentials.create({ id: "github-production", type: "bearer_token", token: "ghp_your_github_token" } as never);
    const byRestCredential = await rest("POST", "/v1beta/credentials", {
      id: "github-production-rest",
      type: "bearer_token",
      token: "ghp_x",
    });
    assert.equal(byRestCredential.status, 200, JSON.stringify(byRestCredential.json));
    const body = (credential: string) => ({
      agent: AGENT,
      input: "Fetch the latest issues from the GitHub API for my-org/my-repo.",
      environment: { type: "remote", network: { allowlist: [{ domain: "api.github.com", credential }, { domain: "*" }] } },
    });
    await create(body("github-production"));
    await createByRest(body("github-production-rest"));
  });

  it("refreshes an inline token by naming the environment_id in a new config object", async () => {
    // doc-example: agent-environment#refresh-credentials: environment_id inside the config with new network rules (python, javascript, rest)
    const rule = (token: string) => ({
      allowlist: [{ domain: "storage.googleapis.com", transform: { Authorization: `Bearer ${token}` } }],
    });
    const first = await create({
      agent: AGENT,
      input: "List the files in gs://my-bucket/reports/ using the GCS JSON API.",
      environment: { type: "remote", network: rule("INITIAL_TOKEN") },
    });
    filesOf(first.environment_id).set("/workspace/kept.txt", "kept");
    const refreshed = {
      agent: AGENT,
      input: "Now download the file reports/q1.csv from the same bucket.",
      environment: { type: "remote", environment_id: first.environment_id, network: rule("REFRESHED_TOKEN") },
    };
    for (const result of await everyWay(refreshed)) {
      assert.equal(result.environment_id, first.environment_id, "the same environment");
      assert.equal(filesOf(result.environment_id).get("/workspace/kept.txt"), "kept", "its files are kept");
    }
  });
});

describe("agent-environment: the Environments API", () => {
  it("lists, gets and deletes environments", async () => {
    const made = await create({ agent: AGENT, input: "hello", environment: "remote" });
    // doc-example: agent-environment#list-environments: page_size 10 (python, javascript, rest)
    const page = await client.environments.list({ page_size: 10 } as never);
    for (const env of page.environments ?? []) assert.ok(env.id && env.status, JSON.stringify(env));
    const listed = await rest("GET", "/v1beta/environments?page_size=10");
    assert.equal(listed.status, 200);
    assert.ok(listed.json.environments.length <= 10);
    // doc-example: agent-environment#get-an-environment: get by ID (python, javascript, rest)
    const env = await client.environments.get(made.environment_id!);
    assert.equal(env.id, made.environment_id);
    const got = await rest("GET", `/v1beta/environments/${made.environment_id}`);
    assert.equal(got.json.id, made.environment_id);
    // doc-example: agent-environment#delete-an-environment: delete by ID (python, javascript, rest)
    await client.environments.delete(made.environment_id!);
    await assert.rejects(client.environments.get(made.environment_id!), (error: { status?: number }) => error.status === 404);
    const other = await create({ agent: AGENT, input: "hello", environment: "remote" });
    assert.equal((await rest("DELETE", `/v1beta/environments/${other.environment_id}`)).status, 200);
  });
});

describe("agent-environment: files in the environment", () => {
  let envId: string;
  before(async () => {
    envId = (await create({ agent: AGENT, input: "hello", environment: "remote" })).environment_id!;
    // The page's paths (src/main.py, "" for the root) are read from /workspace, the files API's root
    // (docs/environments-and-files.md#paths-and-reach); listed paths start at the sandbox's root.
    const files = filesOf(envId);
    files.set("/workspace/src/main.py", "print('hello')\n");
    files.set("/workspace/src/lib/util.py", "X = 1\n");
    files.set("/workspace/config/app.yaml", "debug: true\n");
    files.set("/workspace/config/nested/deep.yaml", "deep: true\n");
    files.set("/workspace/top.txt", "top\n");
  });

  it("lists the root and a folder, recursively too", async () => {
    // doc-example: agent-environment#list-files-in-a-directory: root and src recursive (python, javascript, rest)
    const root = (await client.environments.files.list({ environment: envId, path: "" } as never)) as { files: FileEntry[] };
    // The page shows "DIRECTORY"; the OpenAPI document (and the SDK's typings) say "directory": the document wins here.
    assert.ok(
      root.files.some((file) => file.name === "src" && file.type === "directory"),
      JSON.stringify(root.files),
    );
    const src = (await client.environments.files.list({ environment: envId, path: "src", recursive: true } as never)) as {
      files: FileEntry[];
    };
    assert.ok(
      src.files.some((file) => file.path === "workspace/src/lib/util.py"),
      JSON.stringify(src.files),
    );
    assert.equal((await rest("GET", `/v1beta/environments/${envId}/files`)).status, 200);
    const restSrc = await rest("GET", `/v1beta/environments/${envId}/files/src`);
    assert.ok(restSrc.json.files.some((file: FileEntry) => file.path === "workspace/src/main.py"));
    const all = await rest("GET", `/v1beta/environments/${envId}/files?recursive=true`);
    assert.ok(all.json.files.some((file: FileEntry) => file.path === "workspace/config/nested/deep.yaml"));
  });

  it("answers a file's metadata in a files array, and 404 not_found for a missing path", async () => {
    // doc-example: agent-environment#get-file-metadata: list of src/main.py (python, javascript, rest)
    const response = (await client.environments.files.list({ environment: envId, path: "src/main.py" } as never)) as {
      files: FileEntry[];
    };
    const file = response.files[0];
    assert.equal(file?.name, "main.py");
    assert.equal(file?.size_bytes, String(Buffer.byteLength("print('hello')\n")));
    const byRest = await rest("GET", `/v1beta/environments/${envId}/files/src/main.py`);
    assert.equal(byRest.json.files[0].path, "workspace/src/main.py");
    const missing = await rest("GET", `/v1beta/environments/${envId}/files/nonexistent.txt`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, "not_found");
  });

  it("downloads a file", async () => {
    // doc-example: agent-environment#download-a-single-file: download src/main.py (python, javascript, rest)
    const bytes = await client.environments.files.download({ environment: envId, path: "src/main.py" } as never);
    assert.equal(Buffer.from(bytes as unknown as ArrayBuffer).toString(), "print('hello')\n");
    const media = await rest("GET", `/v1beta/environments/${envId}/files/src/main.py?alt=media`);
    assert.equal(media.bytes.toString(), "print('hello')\n");
  });

  it("downloads a folder as a tar, recursively, and the root", async () => {
    // doc-example: agent-environment#download-a-directory-as-a-tar-archive: src, config recursive, root (python, javascript, rest)
    const archive = Buffer.from((await client.environments.files.download({ environment: envId, path: "src" } as never)) as never);
    const names = [...(await readTar(archive)).keys()];
    assert.ok(
      names.some((name) => name.endsWith("main.py")),
      names.join(", "),
    );
    const flat = [...(await readTar((await rest("GET", `/v1beta/environments/${envId}/files/config?alt=media`)).bytes)).keys()];
    assert.ok(!flat.some((name) => name.endsWith("deep.yaml")), `top-level files only: ${flat.join(", ")}`);
    const deep = [
      ...(await readTar((await rest("GET", `/v1beta/environments/${envId}/files/config?alt=media&recursive=true`)).bytes)).keys(),
    ];
    assert.ok(
      deep.some((name) => name.endsWith("deep.yaml")),
      deep.join(", "),
    );
    const snapshot = [...(await readTar((await rest("GET", `/v1beta/environments/${envId}/files?alt=media`)).bytes)).keys()];
    assert.ok(
      snapshot.some((name) => name.endsWith("top.txt")),
      snapshot.join(", "),
    );
  });

  it("downloads the snapshot at the deprecated files/environment-{id}:download route", async () => {
    // doc-example: agent-environment#download-full-snapshot-deprecated: GET /v1beta/files/environment-{id}:download?alt=media (rest)
    const legacy = await rest("GET", `/v1beta/files/environment-${envId}:download?alt=media`);
    assert.equal(legacy.status, 200, legacy.bytes.toString());
    assert.ok([...(await readTar(legacy.bytes)).keys()].some((name) => name.endsWith("top.txt")));
  });

  it("uploads a file with overwrite through the SDK", async () => {
    // doc-example: agent-environment#upload-a-single-file: upload workspace/data/file.txt (python, javascript)
    const result = (await client.environments.files.upload({
      environment: envId,
      path: "workspace/data/file.txt",
      file: Buffer.from("local file\n"),
      mime_type: "text/plain",
      overwrite: true,
    } as never)) as { files: FileEntry[] };
    assert.equal(result.files[0]?.name, "file.txt");
    assert.equal(filesOf(envId).get("/workspace/data/file.txt"), "local file\n");
  });

  it("refuses a second write without overwrite", async () => {
    // doc-example: agent-environment#overwrite-protection: a second write without overwrite is a 409 aborted (python, javascript)
    await assert.rejects(
      client.environments.files.upload({ environment: envId, path: "workspace/data/file.txt", file: Buffer.from("again") } as never),
      (error: { status?: number; message?: string }) => error.status === 409 && /aborted/.test(error.message ?? ""),
    );
  });

  it("uploads with one plain PUT (the REST examples)", async () => {
    // doc-example: agent-environment#upload-a-single-file: PUT /upload/v1beta/…/files/workspace/data/file.txt with a body (rest)
    const byRest = await rest(
      "PUT",
      `/upload/v1beta/environments/${envId}/files/workspace/data/rest.txt`,
      new TextEncoder().encode("rest\n"),
      {
        "Content-Type": "text/plain",
      },
    );
    assert.equal(byRest.status, 200, byRest.bytes.toString());
    assert.equal(byRest.json.files[0].path, "workspace/data/rest.txt");
    assert.equal(filesOf(envId).get("/workspace/data/rest.txt"), "rest\n");
    // The page's REST extract example (PUT …?extract=true with a .tar.gz) unpacks in the sandbox, which
    // the in-memory fake does not have: e2e/sdk-files.test.ts sends it to a Docker sandbox.
  });

  it("pages environments with the REST example's pageSize", async () => {
    // doc-example: agent-environment#list-environments: GET /v1beta/environments?pageSize=10 (rest)
    for (let made = 0; made < 11; made++) await create({ agent: AGENT, input: "hello", environment: "remote" });
    const listed = await rest("GET", "/v1beta/environments?pageSize=10");
    assert.equal(listed.json.environments.length, 10);
  });

  it("sets a variable from a stored credential", async () => {
    // doc-example: agent-environment#environment-variables: literal and credential-referencing env values (python, javascript, rest)
    // The page names the credential only; a variable can be backed by an environment_variable one.
    await client.credentials.create({
      id: "my-api-token",
      type: "environment_variable",
      value: "secret",
      injection_location: "header",
    } as never);
    await create({
      agent: AGENT,
      input: "Build the project and run the test suite.",
      environment: { type: "remote", env: { NODE_ENV: "production", LOG_LEVEL: "debug", API_TOKEN: { credential: "my-api-token" } } },
    });
  });
});
