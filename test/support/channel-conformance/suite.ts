// Behaviour every SandboxChannel must show, whatever carries it (a local executor process, a Docker
// exec). Commands stick to bash, coreutils and python3, and files to paths under scratchDir, so the
// same suite runs inside the sandbox image (scratchDir /workspace). The behaviours are grouped by
// concern in the files beside this one; each receives the helpers below.

import assert from "node:assert/strict";
import { posix } from "node:path";
import { after, before, describe } from "node:test";
import { SandboxFileError, type CommandRequest, type CommandResult, type SandboxChannel } from "../../../server/sandbox/runtime.js";
import { MiB, type ChannelSuite, type ChannelUnderTest } from "./context.js";
import { PRINT_LIVE_PIDS } from "../process-probes.js";
import { commandBehaviours } from "./commands.js";
import { egressBehaviours } from "./egress.js";
import { enduranceBehaviours } from "./endurance.js";
import { fileBehaviours } from "./files.js";

export type { ChannelUnderTest };

export function channelConformanceSuite(name: string, setup: () => Promise<ChannelUnderTest>): void {
  describe(`SandboxChannel conformance: ${name}`, { timeout: 300_000 }, () => {
    let subject: ChannelUnderTest | undefined;
    let folderCount = 0;

    before(async () => {
      subject = await setup();
    });
    after(async () => {
      await subject?.teardown();
    });

    const current = (): ChannelUnderTest => {
      assert.ok(subject, "setup did not complete");
      return subject;
    };
    const channel = (): SandboxChannel => current().channel;
    const run = (argv: string[], options: Partial<CommandRequest> = {}): Promise<CommandResult> =>
      channel().run({ argv, timeoutMs: 15_000, maxOutputBytes: MiB, ...options });
    const suite: ChannelSuite = {
      subject: current,
      channel,
      run,
      bash: (script, options = {}) => run(["bash", "-c", script], options),
      freshFolder: async (label) => {
        const folder = posix.join(current().scratchDir, `${++folderCount}-${label}`);
        const made = await run(["mkdir", "-p", folder]);
        assert.equal(made.exitCode, 0, made.stderr.toString());
        return folder;
      },
      livePids: async (pids) => (await run(["python3", "-c", PRINT_LIVE_PIDS, ...pids])).stdout.toString().trim(),
      readText: async (path) => (await channel().readFile(path, MiB)).content.toString(),
      fileError: (code, pathInMessage) => (error) => {
        assert.ok(error instanceof SandboxFileError, `expected SandboxFileError, got ${String(error)}`);
        assert.equal(error.code, code);
        if (pathInMessage !== undefined) assert.ok(error.message.includes(pathInMessage), error.message);
        return true;
      },
    };

    commandBehaviours(suite);
    fileBehaviours(suite);
    egressBehaviours(suite);
    enduranceBehaviours(suite);
  });
}
