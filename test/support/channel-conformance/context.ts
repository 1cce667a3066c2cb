// What every part of the SandboxChannel conformance suite works with.

import type { CommandRequest, CommandResult, SandboxChannel } from "../../../server/sandbox/runtime.js";

export interface ChannelUnderTest {
  channel: SandboxChannel;
  /** An existing, writable, empty-enough folder inside the sandbox. */
  scratchDir: string;
  /** Where the channel's egress listener goes: 3128 in a sandbox; 0 (any free port) on a shared host. */
  egressPort: number;
  /** Another channel to the same sandbox (a second executor); tests close the ones they open. */
  openAnotherChannel: () => Promise<SandboxChannel>;
  teardown: () => Promise<void>;
}

export const MiB = 1024 * 1024;

/** What every part of the suite works with. */
export interface ChannelSuite {
  subject(): ChannelUnderTest;
  channel(): SandboxChannel;
  /** A fresh folder per test, so tests never see each other's files. */
  freshFolder(label: string): Promise<string>;
  run(argv: string[], options?: Partial<CommandRequest>): Promise<CommandResult>;
  bash(script: string, options?: Partial<CommandRequest>): Promise<CommandResult>;
  /** Which of the pids are still alive in the sandbox, as the probe prints them. */
  livePids(pids: string[]): Promise<string>;
  readText(path: string): Promise<string>;
  /** An assert.rejects predicate: a SandboxFileError with this code (and this path in its message). */
  fileError(code: string, pathInMessage?: string): (error: unknown) => boolean;
}
