// Any Linux image with a shell can be a sandbox (issue 22): EMULATOR_BASE_IMAGE names a base without
// Node.js, built here offline (Debian without its nodejs package, and a root filesystem of BusyBox alone:
// no bash, no python3, no package manager, no useradd, no CA bundle), and the emulator builds its
// sandbox image FROM it. In each, the seed's security gate (/work/shared/seed/agent-hooks.md) runs as
// the documentation has it, the five sandbox tools work, and code reaches a loopback server of the
// test's through the egress proxy. BusyBox has no python3, so there the gate is the same logic in sh.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";
import { SEED_GATE_SCRIPT } from "../support/seed-hooks-files.js";
import { ensureSandboxImage } from "../../server/sandbox/docker/image.js";
import {
  busyboxRootfs,
  debianWithoutNode,
  removeTestBases,
  withEntrypointUserAndHealthCheck,
  withUserAt1000,
} from "../support/test-base-images.js";

const API_KEY = "base-image-key";
const AGENT = "antigravity-preview-05-2026";
const UPSTREAM_HOST = "upstream.example.com";
const DENIED = 'Tool call denied by hook "security-gate": Destructive command blocked by security gate.';

/** The seed's gate in sh, for a base without python3: deny what mentions `rm -rf`, allow the rest. */
const SH_GATE_SCRIPT = `input=$(cat)
case "$input" in
  *"rm -rf"*) printf '%s\\n' '{"decision": "deny", "reason": "Destructive command blocked by security gate."}' ;;
  *) printf '%s\\n' '{"decision": "allow"}' ;;
esac
`;

interface Base {
  name: string;
  build(docker: Docker): Promise<string>;
  /** The gate's script and the hook command that runs it, with the interpreter the base has. */
  gate: { target: string; content: string; command: string };
  /** A command whose output shows the sandbox runs on this base, and what it prints there. */
  identity: { code: string; output: RegExp };
  /** A command that GETs a URL through the proxy (the environment's HTTP_PROXY) and prints the body. */
  fetch(url: string): string;
}

const BASES: Base[] = [
  {
    name: "Debian without nodejs",
    build: debianWithoutNode,
    gate: { target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT, command: "python3 /.agents/hooks-scripts/gate.py" },
    identity: { code: "cat /etc/debian_version; dpkg -s nodejs 2>&1 | head -1", output: /^12\.\d+\n.*nodejs.* is not installed/ },
    fetch: (url) => `curl -s '${url}'`,
  },
  {
    name: "BusyBox alone",
    build: busyboxRootfs,
    gate: { target: ".agents/hooks-scripts/gate.sh", content: SH_GATE_SCRIPT, command: "sh /.agents/hooks-scripts/gate.sh" },
    identity: { code: "readlink /bin/sh; command -v python3 apt-get useradd || echo 'nothing else'", output: /^busybox\nnothing else\s*$/ },
    fetch: (url) => `wget -q -O - '${url}'`,
  },
];

const docker = new Docker();
const builtBases: string[] = [];
let upstream: EchoServer;

before(async () => {
  upstream = await startEchoServer("upstream");
  for (const base of BASES) builtBases.push(await base.build(docker));
});

after(async () => {
  await upstream?.close();
  await removeTestBases(docker, builtBases);
});

const toolCalls = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

type Step = Record<string, any>;
const resultsOf = (steps: unknown): Array<{ result: string; is_error: boolean }> =>
  (steps as Step[]).filter((step) => String(step.type).endsWith("_result")) as Array<{ result: string; is_error: boolean }>;

for (const [index, base] of BASES.entries()) {
  describe(`a sandbox FROM ${base.name}`, () => {
    let emulator: EmulatorProcess;
    let client: GoogleGenAI;

    before(async () => {
      emulator = await startEmulatorProcess({
        EMULATOR_BASE_IMAGE: builtBases[index]!,
        EMULATOR_EGRESS_HOST_MAP: `${UPSTREAM_HOST}=127.0.0.1:${upstream.port}`,
      });
      client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: emulator.url } });
    });
    after(async () => {
      await emulator?.destroy();
    });

    const hooksConfig = {
      "security-gate": {
        pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: base.gate.command, timeout: 10 }] }],
      },
    };
    const gateSources = [
      { type: "inline" as const, target: ".agents/hooks.json", content: JSON.stringify(hooksConfig, null, 2) },
      { type: "inline" as const, target: base.gate.target, content: base.gate.content },
    ];

    it("runs on that base, which has no Node.js, and runs code as the sandbox user", async () => {
      const interaction = await client.interactions.create({
        agent: AGENT,
        input: toolCalls([
          { name: "code_execution", args: { code: base.identity.code } },
          { name: "code_execution", args: { code: "command -v node || echo 'no node'; id -u; pwd" } },
        ]),
        environment: { type: "remote" },
      });
      const [identity, result] = resultsOf(interaction.steps);
      assert.match(identity!.result, base.identity.output);
      assert.equal(result!.is_error, false, result!.result);
      assert.equal(result!.result.trim(), "no node\n1000\n/workspace");
    });

    it("runs the security gate: the destructive command is denied and never runs, an allowed one runs", async () => {
      const denied = await client.interactions.create({
        agent: AGENT,
        input: "Run `rm -rf /tmp/forbidden` using code_execution.",
        tools: [{ type: "code_execution" }],
        environment: {
          type: "remote",
          sources: [...gateSources, { type: "inline", target: "tmp/forbidden/keep.txt", content: "still here" }],
        },
      });
      const deniedResult = (denied.steps as Step[]).find((step) => step.type === "code_execution_result")!;
      assert.equal(deniedResult.is_error, true);
      assert.equal(deniedResult.result, DENIED);
      assert.match(denied.output_text ?? "", /Destructive command blocked by security gate\./);

      const check = await client.interactions.create({
        agent: AGENT,
        input: "Run `cat /tmp/forbidden/keep.txt` using code_execution.",
        environment: denied.environment_id!,
      });
      const checkResult = (check.steps as Step[]).find((step) => step.type === "code_execution_result")!;
      assert.equal(checkResult.is_error, false, checkResult.result);
      assert.equal(checkResult.result, "still here");
    });

    it("runs the file tools: write, read, list and delete", async () => {
      const interaction = await client.interactions.create({
        agent: AGENT,
        input: toolCalls([
          { name: "write_file", args: { path: "/workspace/notes/plan.txt", content: "step one\n" } },
          { name: "read_file", args: { path: "/workspace/notes/plan.txt" } },
          { name: "list_files", args: { path: "/workspace/notes" } },
          { name: "delete_file", args: { path: "/workspace/notes/plan.txt" } },
          { name: "read_file", args: { path: "/workspace/notes/plan.txt" } },
          { name: "code_execution", args: { code: "ls -A /workspace/notes; stat -c '%u' /workspace/notes" } },
        ]),
        environment: { type: "remote" },
      });
      const [written, read, listed, deleted, readAgain, shell] = resultsOf(interaction.steps);
      for (const result of [written, read, listed, deleted]) assert.equal(result!.is_error, false, result!.result);
      assert.equal(read!.result, "step one\n");
      assert.match(listed!.result, /plan\.txt/);
      assert.equal(readAgain!.is_error, true, "the file is gone");
      assert.equal(shell!.is_error, false, shell!.result);
      assert.equal(shell!.result.trim(), "1000", "the folder is empty and the sandbox user's");
    });

    it("reaches a loopback server of the test's through the egress proxy, and the log says so", async () => {
      const before = upstream.requests.length;
      const interaction = await client.interactions.create({
        agent: AGENT,
        input: toolCalls([{ name: "code_execution", args: { code: base.fetch(`http://${UPSTREAM_HOST}/from-${index}`) } }]),
        environment: { type: "remote" },
      });
      const [result] = resultsOf(interaction.steps);
      assert.equal(result!.is_error, false, result!.result);
      assert.equal(JSON.parse(result!.result).url, `/from-${index}`);
      assert.deepEqual(
        upstream.requests.slice(before).map((request) => request.url),
        [`/from-${index}`],
      );
      const log = await fetch(`${emulator.url}/emulator/environments/${interaction.environment_id}/egress`, {
        headers: { "x-goog-api-key": API_KEY },
      });
      assert.equal(log.status, 200);
      const entries = ((await log.json()) as { entries: Step[] }).entries;
      assert.ok(
        entries.some((entry) => JSON.stringify(entry).includes(UPSTREAM_HOST)),
        JSON.stringify(entries),
      );
    });
  });
}

describe("a base whose uid 1000 is someone else's", () => {
  it("has that user taken over: uid and gid 1000 are the sandbox's, and the old name is gone", async () => {
    const base = await withUserAt1000(docker, builtBases[0]!);
    builtBases.push(base);
    const tag = await ensureSandboxImage(docker, { baseImage: base, offlineBase: "never" }, () => undefined);
    assert.equal(await runInImage(tag, "id -un; id -gn; echo $HOME"), "sandbox\nsandbox\n/home/sandbox\n");
    const left = await runInImage(tag, "grep -c '^someone:' /etc/passwd /etc/group /etc/shadow || true", "0:0");
    assert.equal(left, "/etc/passwd:0\n/etc/group:0\n/etc/shadow:0\n");
  });
});

/** What `sh -c script` prints in a throwaway container of `image`, as the image's own user unless `user` is given. */
async function runInImage(image: string, script: string, user?: string): Promise<string> {
  const container = await docker.createContainer({ Image: image, Cmd: ["sh", "-c", script], Tty: false, ...(user ? { User: user } : {}) });
  try {
    await container.start();
    await container.wait();
    const logs = await container.logs({ stdout: true, stderr: true });
    // Without a TTY each chunk carries an 8-byte header (stream, length).
    const chunks: Buffer[] = [];
    for (let offset = 0; offset + 8 <= logs.length; ) {
      const length = logs.readUInt32BE(offset + 4);
      chunks.push(logs.subarray(offset + 8, offset + 8 + length));
      offset += 8 + length;
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    await container.remove({ force: true });
  }
}

describe("a base with a user, an entrypoint and a health check of its own", () => {
  it("builds as root, and its sandboxes inherit none of them: the keep-alive is `sleep infinity` itself", async () => {
    const base = await withEntrypointUserAndHealthCheck(docker, builtBases[0]!);
    builtBases.push(base);
    const tag = await ensureSandboxImage(docker, { baseImage: base, offlineBase: "never" }, () => undefined);
    const { Config } = await docker.getImage(tag).inspect();
    assert.equal(Config.Entrypoint, null);
    assert.deepEqual(Config.Cmd, ["sleep", "infinity"]);
    assert.deepEqual(Config.Healthcheck, { Test: ["NONE"] });
    assert.equal(Config.User, "1000:1000", "run by hand, the image is the sandbox user's");
  });
});
