// A tool's hooks read hooks.json through the tool's own request (a command's, a file operation's): the
// pre hooks decide on the files as last read and the tool starts only if they still read the same; the
// post hooks take the files as read right after the tool. Over a channel that keeps tokens (as the executor's does),
// these tests count what crosses it, and show that a file changed in between (by the call itself, or
// behind the agent's back) is still seen before the next call.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallOutcome } from "../../server/agent/conversation.js";
import { runGuardedCall, type CallContext, type ToolCallHooks } from "../../server/agent/guarded-call.js";
import { ChannelHookHost } from "../../server/hooks/channel-hook-host.js";
import {
  type CommandRequest,
  type CommandResult,
  type FileEntry,
  type FileOperationReads,
  type FreshRead,
  type ReadFileResult,
  SandboxFileError,
  SandboxFilesChangedError,
} from "../../server/sandbox/runtime.js";
import { codeOf, FakeSandboxChannel } from "../support/fake-sandbox-channel.js";
import { RecordingStepSink } from "../support/recording-step-sink.js";
import type { ToolCall } from "../../server/tools/tool-call.js";
import { bash, read, remove, write } from "../support/tool-calls.js";

const ROOT = "/.agents/hooks.json";
const WORKSPACE = "/workspace/.agents/hooks.json";
const DENY_COMMANDS = JSON.stringify({
  gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "gate" }] }] },
});
/** The gate, and a post hook on every tool running "audit": what the tests' calls write as hooks.json. */
const GATE_AND_AUDIT = {
  gate: JSON.parse(DENY_COMMANDS).gate,
  seen: { post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "audit" }] }] },
};

/** The fake channel with tokens, as the executor keeps them: what crossed it is in `crossings`. */
class TokenChannel extends FakeSandboxChannel {
  readonly crossings: string[] = [];
  /** Runs before a command that confirms its files starts (a background process changing them, say). */
  beforeConfirming: () => void | Promise<void> = () => undefined;

  private tokenOf(path: string): string {
    return JSON.stringify(this.files.get(path) ?? null);
  }

  override async readFiles(paths: string[], maxBytes: number): Promise<FreshRead[]> {
    this.crossings.push("readFiles");
    return this.readQuietly(paths, maxBytes);
  }

  override async run(request: CommandRequest): Promise<CommandResult> {
    const { unlessChanged, onStarted, readAfter, ...command } = request;
    this.crossings.push(`run ${codeOf(request)}${unlessChanged ? " (confirming)" : ""}${readAfter ? " (reading after)" : ""}`);
    if (unlessChanged) {
      await this.beforeConfirming();
      if (request.signal?.aborted)
        return { ...(await super.run({ ...command, argv: ["true"] })), cancelled: true, exitCode: null, signal: "SIGKILL" };
      if (unlessChanged.paths.some((path, index) => this.tokenOf(path) !== unlessChanged.tokens[index])) {
        throw new SandboxFilesChangedError("ECHANGED", "exec: not started, a file is not as it was");
      }
      onStarted?.();
    }
    const result = await super.run(command);
    return readAfter ? { ...result, readsAfter: await this.readQuietly(readAfter.paths, readAfter.maxBytes) } : result;
  }

  override readFile(path: string, maxBytes: number, reads?: FileOperationReads): Promise<ReadFileResult> {
    return this.aroundFileOperation(`readFile ${path}`, reads, () => super.readFile(path, maxBytes));
  }

  override writeFile(path: string, content: Buffer, mode?: number, reads?: FileOperationReads): Promise<void> {
    return this.aroundFileOperation(`writeFile ${path}`, reads, () => super.writeFile(path, content, mode));
  }

  override listFiles(path: string, reads?: FileOperationReads): Promise<FileEntry[]> {
    return this.aroundFileOperation(`listFiles ${path}`, reads, () => super.listFiles(path));
  }

  override deleteFile(path: string, recursive: boolean, reads?: FileOperationReads): Promise<void> {
    return this.aroundFileOperation(`deleteFile ${path}`, reads, () => super.deleteFile(path, recursive));
  }

  /** As the executor does a file operation with reads around it: confirmed first, read after, done or failed. */
  private async aroundFileOperation<T>(name: string, reads: FileOperationReads | undefined, operation: () => Promise<T>): Promise<T> {
    const { unlessChanged, onStarted, readAfter, onReadsAfter } = reads ?? {};
    this.crossings.push(`${name}${unlessChanged ? " (confirming)" : ""}${readAfter ? " (reading after)" : ""}`);
    if (unlessChanged) {
      await this.beforeConfirming();
      if (unlessChanged.paths.some((path, index) => this.tokenOf(path) !== unlessChanged.tokens[index])) {
        throw new SandboxFilesChangedError("ECHANGED", `${name}: not done, a file is not as it was`);
      }
    }
    const ended = async () => {
      onStarted?.();
      if (readAfter) onReadsAfter?.(await this.readQuietly(readAfter.paths, readAfter.maxBytes));
    };
    let result: T;
    try {
      result = await operation();
    } catch (error) {
      if (error instanceof SandboxFileError) await ended();
      throw error;
    }
    await ended();
    return result;
  }

  private async readQuietly(paths: string[], maxBytes: number): Promise<FreshRead[]> {
    const reads = await super.readFiles(paths, maxBytes);
    return reads.map((read, index) => ({ ...read, token: this.tokenOf(paths[index]!) }));
  }
}

function harness() {
  const channel = new TokenChannel();
  // Hook commands answer "deny"; the tools' commands print what they were asked to run.
  channel.onRun = async (request) =>
    codeOf(request) === "gate" ? { stdout: '{"decision":"deny","reason":"no commands"}' } : { stdout: `ran ${codeOf(request)}` };
  const steps = new RecordingStepSink();
  const controller = new AbortController();
  let ids = 0;
  const hooks: ToolCallHooks[] = [];
  const outcomes: CallOutcome[] = [];
  const context: CallContext = {
    sandbox: {
      environmentId: "env_reads",
      channel,
      // A new host per call, as each interaction makes its own: what was read last belongs to the channel.
      get hooks() {
        return new ChannelHookHost(channel, { cwd: "/workspace", env: {} });
      },
      limits: { timeoutMs: 5_000, maxOutputBytes: 1 << 20 },
    },
    codeExecutionEnabled: true,
    steps,
    signal: controller.signal,
    newCallId: () => `call_${++ids}`,
  };
  const runCall = (call: ToolCall) => runGuardedCall(call, context, outcomes, hooks);
  return { channel, steps, controller, hooks, outcomes, runCall, call: (code: string) => runCall(bash(code)) };
}

describe("a command's hooks read through its own request", () => {
  it("reads hooks.json once in all for the first command, then not apart from the commands at all", async () => {
    const h = harness();
    await h.call("first");
    await h.call("second");
    await h.call("third");
    assert.deepEqual(h.channel.crossings, [
      "readFiles",
      "run first (reading after)",
      "run second (confirming) (reading after)",
      "run third (confirming) (reading after)",
    ]);
    assert.deepEqual(
      h.outcomes.map((outcome) => outcome.output),
      ["ran first", "ran second", "ran third"],
    );
    // Every call has both traces, each saying where it looked.
    for (const trace of h.hooks) {
      assert.deepEqual(
        trace.pre.files.map((file) => [file.path, file.status]),
        [
          [ROOT, "missing"],
          [WORKSPACE, "missing"],
        ],
      );
      assert.equal(trace.pre.decision, "allow");
      assert.equal(trace.post?.files.length, 2);
    }
  });

  it("runs the post hooks a command wrote, and the pre hooks of the next call", async () => {
    const h = harness();
    await h.call("first");
    h.channel.onRun = async (request) => {
      const code = codeOf(request);
      if (code === "gate") return { stdout: '{"decision":"deny","reason":"no commands"}' };
      if (code === "write hooks") {
        h.channel.files.set(ROOT, JSON.stringify(GATE_AND_AUDIT));
      }
      return { stdout: `ran ${code}` };
    };
    await h.call("write hooks");
    assert.deepEqual(
      h.hooks[1]?.post?.handlers.map((handler) => handler.command),
      ["audit"],
    );
    await h.call("denied");
    assert.equal(h.outcomes[2]?.status, "denied");
    assert.deepEqual(h.channel.crossings.slice(1), [
      "run first (reading after)",
      "run write hooks (confirming) (reading after)",
      "run audit",
      // hooks.json now has a pre hook for commands: its own request confirms the files it was planned on.
      "run gate (confirming)",
    ]);
  });

  it("sees a file changed behind the agent's back: the command does not start, and the hooks run", async () => {
    const h = harness();
    await h.call("first");
    h.channel.beforeConfirming = () => {
      h.channel.files.set(WORKSPACE, DENY_COMMANDS);
    };
    await h.call("must not run");
    assert.equal(h.outcomes[1]?.status, "denied");
    assert.deepEqual(h.channel.crossings.slice(2), ["run must not run (confirming) (reading after)", "readFiles", "run gate"]);
    assert.ok(!h.channel.commands.some((command) => codeOf(command) === "must not run"), "the command ran");
    assert.equal(h.hooks[1]?.pre.decision, "deny");
  });

  it("ends a call cancelled before its command started as one cancelled during its pre hooks", async () => {
    const h = harness();
    await h.call("first");
    h.channel.beforeConfirming = () => h.controller.abort(new Error("cancelled"));
    const end = await h.call("never");
    assert.deepEqual(end, { kind: "stopped" });
    assert.deepEqual(h.outcomes[1], { call: bash("never"), callId: "call_2", status: "error", output: "[cancelled]" });
    assert.equal(h.hooks.length, 1, "no trace for a call whose hooks never finished");
  });

  it("ends a call cancelled before its command is sent as one cancelled during its pre hooks, sending nothing", async () => {
    const h = harness();
    await h.call("first");
    h.controller.abort(new Error("cancelled"));
    const end = await h.call("never");
    assert.deepEqual(end, { kind: "stopped" });
    assert.deepEqual(h.outcomes[1], { call: bash("never"), callId: "call_2", status: "error", output: "[cancelled]" });
    assert.equal(h.hooks.length, 1, "no trace for a call whose hooks never finished");
    assert.deepEqual(h.channel.crossings, ["readFiles", "run first (reading after)"]);
  });

  it("has a hook whose files changed since they were read start nothing, and plans again on what they say now", async () => {
    const h = harness();
    h.channel.files.set(ROOT, DENY_COMMANDS);
    await h.call("denied");
    assert.equal(h.outcomes[0]?.status, "denied");
    // Behind the agent's back, the gate goes: the gate's own request finds the file changed.
    h.channel.beforeConfirming = () => {
      h.channel.files.delete(ROOT);
    };
    await h.call("allowed");
    assert.equal(h.outcomes[1]?.output, "ran allowed");
    assert.deepEqual(h.channel.crossings, ["readFiles", "run gate", "run gate (confirming)", "readFiles", "run allowed (reading after)"]);
    assert.deepEqual(
      h.hooks[1]?.pre.files.map((file) => file.status),
      ["missing", "missing"],
    );
    assert.deepEqual(h.hooks[1]?.pre.handlers, []);
  });

  it("confirms hooks.json in a file tool's own request too, and takes the files read after it", async () => {
    const h = harness();
    h.channel.files.set("/workspace/a.txt", "a");
    await h.runCall(read("/workspace/a.txt"));
    await h.call("first");
    await h.runCall(write("/workspace/b.txt", "b"));
    await h.runCall(read("/workspace/missing.txt"));
    await h.runCall(remove("/workspace/b.txt"));
    assert.deepEqual(
      h.outcomes.map((outcome) => [outcome.status, outcome.output]),
      [
        ["ok", "a"],
        ["ok", "ran first"],
        ["ok", "Wrote 1 bytes to /workspace/b.txt."],
        ["error", "ENOENT: no such file or directory, open '/workspace/missing.txt'"],
        ["ok", "Deleted /workspace/b.txt."],
      ],
    );
    assert.deepEqual(h.channel.crossings, [
      "readFiles",
      "readFile /workspace/a.txt (reading after)",
      "run first (confirming) (reading after)",
      "writeFile /workspace/b.txt (confirming) (reading after)",
      "readFile /workspace/missing.txt (confirming) (reading after)",
      "deleteFile /workspace/b.txt (confirming) (reading after)",
    ]);
    // A failed tool's post hooks ran too, on the files read after it.
    for (const trace of h.hooks) {
      assert.equal(trace.pre.decision, "allow");
      assert.equal(trace.post?.files.length, 2);
    }
  });

  it("runs the post hooks a file tool wrote, and the pre hooks of the next call", async () => {
    const h = harness();
    await h.call("first");
    await h.runCall(write(WORKSPACE, JSON.stringify(GATE_AND_AUDIT)));
    assert.deepEqual(
      h.hooks[1]?.post?.handlers.map((handler) => handler.command),
      ["audit"],
    );
    await h.call("denied");
    assert.equal(h.outcomes[2]?.status, "denied");
    assert.deepEqual(h.channel.crossings.slice(1), [
      "run first (reading after)",
      `writeFile ${WORKSPACE} (confirming) (reading after)`,
      "run audit",
      "run gate (confirming)",
    ]);
  });

  it("sees a file changed behind the agent's back: the file tool does nothing, and the hooks run", async () => {
    const h = harness();
    h.channel.files.set("/workspace/keep.txt", "kept");
    await h.call("first");
    h.channel.beforeConfirming = () => {
      h.channel.files.set(
        WORKSPACE,
        JSON.stringify({ gate: { pre_tool_execution: [{ matcher: "delete_file", hooks: [{ type: "command", command: "gate" }] }] } }),
      );
    };
    await h.runCall(remove("/workspace/keep.txt"));
    assert.equal(h.outcomes[1]?.status, "denied");
    assert.equal(h.channel.files.get("/workspace/keep.txt"), "kept");
    assert.deepEqual(h.channel.crossings.slice(2), [
      "deleteFile /workspace/keep.txt (confirming) (reading after)",
      "readFiles",
      "run gate",
    ]);
    assert.equal(h.hooks[1]?.pre.decision, "deny");
  });
});
