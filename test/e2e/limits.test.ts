// The count and disk limits (issue 9, defect 11), through the official SDK against the emulator started
// as `npm start` starts it, with real Docker sandboxes: environments per API key and in total, tool calls
// per interaction, and a sandbox's disk.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { UNDER_GVISOR } from "../support/docker-fixture.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "limits-key-one";
const OTHER_KEY = "limits-key-two";
const PER_KEY = 2;
const TOTAL = 3;
const MAX_CALLS = 10;
const DISK_MB = 64;

let emulator: EmulatorProcess;
let ai: GoogleGenAI;
let other: GoogleGenAI;

before(async () => {
  emulator = await startEmulatorProcess({
    EMULATOR_MAX_ENVIRONMENTS_PER_KEY: String(PER_KEY),
    EMULATOR_MAX_ENVIRONMENTS: String(TOTAL),
    EMULATOR_MAX_TOOL_CALLS: String(MAX_CALLS),
    EMULATOR_SANDBOX_DISK_MB: String(DISK_MB),
  });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

interface Step {
  type: string;
  result?: string;
  is_error?: boolean;
}
interface Interaction {
  id?: string;
  status?: string;
  environment_id?: string;
  steps?: Step[];
}

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });

async function run(environment: string, calls: unknown[]): Promise<Interaction> {
  return (await ai.interactions.create({ agent: AGENT, input: script(calls), environment })) as Interaction;
}

function results(interaction: Interaction): Step[] {
  return (interaction.steps ?? []).filter((step) => step.type === "code_execution_result" || step.type === "function_result");
}

/** Polls `check` until it holds (or 20 s pass): the disk guard measures about once a second. */
async function waitFor(check: () => Promise<boolean>): Promise<boolean> {
  for (let tries = 0; tries < 80; tries++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** The SDK error's HTTP status and the Google error inside it (the generated client keeps the parsed body). */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const failure = error as { status?: number; message?: string; error?: { error?: { status?: string; message?: string } } };
    const body = failure.error?.error;
    return { status: failure.status ?? 0, code: body?.status ?? "", message: body?.message ?? failure.message ?? "" };
  }
  assert.fail("expected a refusal");
}

describe("limits", () => {
  let first: { id: string };

  it("refuses a tool_calls script with more calls than EMULATOR_MAX_TOOL_CALLS before anything runs, and runs one at the limit", async () => {
    first = (await ai.environments.create({})) as { id: string };
    const tooMany = Array.from({ length: MAX_CALLS + 1 }, (_, index) => bash(`echo ${index} >> /workspace/calls.txt`));
    const refused = await refusal(run(first.id, tooMany));
    assert.equal(refused.status, 400);
    assert.equal(refused.code, "INVALID_ARGUMENT");
    assert.match(refused.message, /asks for 11 tool calls, more than one interaction may make \(EMULATOR_MAX_TOOL_CALLS = 10\)/);
    const atLimit = await run(first.id, [...tooMany.slice(0, MAX_CALLS - 1), bash("wc -l < /workspace/calls.txt")]);
    assert.equal(atLimit.status, "completed");
    assert.equal(results(atLimit).at(-1)?.result, "9\n", "only the accepted script's calls ran");
  });

  it("stops `dd` at the sandbox's disk limit, says so, and the environment is usable once the file is deleted", async () => {
    const filled = await run(first.id, [bash("dd if=/dev/zero of=/workspace/big bs=1M count=2000"), bash("stat -c %s /workspace/big")]);
    assert.equal(filled.status, "completed");
    const [dd, size] = results(filled);
    assert.equal(dd?.is_error, true);
    assert.match(dd?.result ?? "", /a write was stopped at the sandbox's disk limit of 64 MiB \(EMULATOR_SANDBOX_DISK_MB\)/);
    assert.equal(size?.result, `${DISK_MB * 1024 * 1024}\n`, "not one byte past the limit");

    // Python ignores SIGXFSZ and gets EFBIG: it is reported the same way. (The first file goes first: the
    // two together would pass the limit in total, which the disk guard handles, tested below.)
    const python = (await ai.interactions.create({
      agent: AGENT,
      input: script([
        bash("rm /workspace/big"),
        { name: "code_execution", args: { code: "open('/workspace/p.bin','wb').write(b'x' * (65 << 20))", language: "python" } },
      ]),
      environment: first.id,
    })) as Interaction;
    assert.match(results(python)[1]?.result ?? "", /File too large[\s\S]*EMULATOR_SANDBOX_DISK_MB/);

    // A files API upload past the limit is refused, naming the setting (under gVisor too).
    const upload = await refusal(
      ai.environments.files.upload({ environment: first.id, path: "workspace/upload.bin", file: Buffer.alloc((DISK_MB + 1) << 20) }),
    );
    assert.equal(upload.status, 400);
    assert.match(
      upload.message,
      /no file, nor all of the sandbox.s files together, may grow past the sandbox.s disk limit \(EMULATOR_SANDBOX_DISK_MB\)/,
    );

    const freed = await run(first.id, [
      bash("rm /workspace/p.bin && head -c 10485760 /dev/zero > /workspace/ok && stat -c %s /workspace/ok"),
    ]);
    assert.deepEqual(
      results(freed).map((step) => [step.result, step.is_error]),
      [["10485760\n", false]],
    );
  });

  it("bounds the sandbox's files in total on an engine without storage quotas: every writer stopped, writes refused until files are deleted", async (t) => {
    const container = new Docker().getContainer(`iemu-${emulator.instance}-${first.id}`);
    if ((await container.inspect()).HostConfig.StorageOpt?.["size"] !== undefined) {
      t.skip("this engine enforces storage quotas: the kernel bounds the total, the executor's guard is not started");
      return;
    }
    // Many files, each well under the per-file limit, from a foreground command and a background job it
    // leaves behind; one more hidden where a walk cannot see it: in a folder its owner locked, and a
    // deleted file held open.
    const background = "nohup bash -c 'for i in $(seq 1 400); do head -c 1M /dev/zero > /tmp/bg$i; sleep 0.05; done' >/dev/null 2>&1 &";
    const filled = await run(first.id, [
      bash(background),
      bash(
        "mkdir -p /workspace/locked && head -c 20M /dev/zero > /workspace/locked/x && chmod 000 /workspace/locked && " +
          "exec 3>/tmp/held && rm /tmp/held && head -c 20M /dev/zero >&3 && " +
          "for i in $(seq 1 40); do head -c 4M /dev/zero > /workspace/f$i; done; sleep 60; echo never",
      ),
    ]);
    assert.equal(filled.status, "completed");
    const stopped = results(filled)[1];
    assert.equal(stopped?.is_error, true);
    assert.match(
      stopped?.result ?? "",
      /\[killed: the sandbox's files passed its disk limit of 64 MiB \(EMULATOR_SANDBOX_DISK_MB\) in total, so every process of the sandbox's was stopped; delete files you do not need, or raise the setting\]/,
    );
    assert.doesNotMatch(stopped?.result ?? "", /never/);

    // The background job went too, and nothing of the sandbox's writes on.
    const after = await run(first.id, [bash("pgrep -u sandbox -f 'seq 1 40[0]' || echo none; chmod 700 /workspace/locked")]);
    assert.equal(results(after)[0]?.result, "none\n");

    // Past the limit, writes through the executor are refused, saying why.
    const upload = await refusal(
      ai.environments.files.upload({ environment: first.id, path: "workspace/small.txt", file: Buffer.from("x") }),
    );
    assert.equal(upload.status, 400);
    assert.match(upload.message, /the sandbox's files take \d+\.\d MiB, past the sandbox's disk limit of 64\.0 MiB in total/);

    // Deleting makes room again.
    const freed = await run(first.id, [bash("rm -rf /workspace/* /tmp/*; du -sm /workspace | cut -f1")]);
    assert.equal(results(freed)[0]?.is_error, false);
    const uploaded = await waitFor(async () => {
      try {
        await ai.environments.files.upload({ environment: first.id, path: "workspace/small.txt", file: Buffer.from("x") });
        return true;
      } catch {
        return false;
      }
    });
    assert.ok(uploaded, "an upload succeeds once the files are back under the limit");
  });

  it("sets the limit on the container: RLIMIT_FSIZE, which the sandbox cannot raise", async () => {
    const container = new Docker().getContainer(`iemu-${emulator.instance}-${first.id}`);
    const info = await container.inspect();
    assert.deepEqual(info.HostConfig.Ulimits, [
      { Name: "fsize", Soft: DISK_MB << 20, Hard: DISK_MB << 20 },
      // Under gVisor the process limit is RLIMIT_NPROC inside the sandbox (docs/security.md#gvisor).
      ...(UNDER_GVISOR ? [{ Name: "nproc", Soft: 512, Hard: 512 }] : []),
    ]);
    const raised = await run(first.id, [bash("ulimit -f unlimited")]);
    assert.match(results(raised)[0]?.result ?? "", /cannot modify limit: Operation not permitted/);
  });

  it("refuses an environment past EMULATOR_MAX_ENVIRONMENTS_PER_KEY with a 400 that says how to free one", async () => {
    const second = (await ai.environments.create({})) as { id: string };
    const refused = await refusal(ai.environments.create({}));
    assert.equal(refused.status, 400);
    assert.equal(refused.code, "FAILED_PRECONDITION");
    assert.match(
      refused.message,
      /already has 2 environments with a sandbox, the most one key may have \(EMULATOR_MAX_ENVIRONMENTS_PER_KEY = 2\)/,
    );
    assert.match(refused.message, /DELETE \/\{version\}\/environments\/\{id\}/);
    // An interaction that would make a new environment is refused the same way; one reusing an environment is not.
    const viaInteraction = await refusal(
      ai.interactions.create({ agent: AGENT, input: script([bash("true")]), environment: { type: "remote" } }),
    );
    assert.equal(viaInteraction.status, 400);
    assert.match(viaInteraction.message, /EMULATOR_MAX_ENVIRONMENTS_PER_KEY/);
    assert.equal((await run(second.id, [bash("true")])).status, "completed");
    // So is a fork.
    const fork = await refusal(
      ai.environments.create({ from_environment: second.id } as Parameters<GoogleGenAI["environments"]["create"]>[0]),
    );
    assert.equal(fork.status, 400);
    // Deleting one makes room.
    await ai.environments.delete(second.id);
    const third = (await ai.environments.create({})) as { id: string };
    assert.match(third.id, /^env_/);
  });

  it("refuses an environment past EMULATOR_MAX_ENVIRONMENTS, whichever key asks, and lets exactly one of two racing requests take the last place", async () => {
    assert.equal(await emulator.sandboxCount(), 2);
    const racing = await Promise.allSettled([other.environments.create({}), other.environments.create({})]);
    assert.deepEqual(racing.map((outcome) => outcome.status).sort(), ["fulfilled", "rejected"]);
    const loser = racing.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    const refused = await refusal(Promise.reject(loser.reason));
    assert.equal(refused.status, 400);
    assert.match(refused.message, /already runs 3 environments with a sandbox, the most it runs at once \(EMULATOR_MAX_ENVIRONMENTS = 3\)/);
    assert.equal(await emulator.sandboxCount(), TOTAL);
  });
});
