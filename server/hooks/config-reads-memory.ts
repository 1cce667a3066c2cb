// What a sandbox's hooks.json candidates read like the last time they were read, per channel (the hook
// hosts of the interactions on one environment come and go; its channel stays). With it, the hooks of a
// call can be decided on what was last read and the tool's own request asked to confirm, right before
// the tool starts, that the files still read the same (CommandRequest.unlessChanged): the read still
// happens before every call, without a round trip of its own.

import type { SandboxChannel } from "../sandbox/runtime.js";
import type { HookConfigRead, LastConfigReads } from "./hook-host.js";

interface Remembered {
  maxBytes: number;
  token: string;
  read: HookConfigRead;
}

const memories = new WeakMap<SandboxChannel, Map<string, Remembered>>();

export class ConfigReadsMemory {
  private readonly reads: Map<string, Remembered>;

  constructor(channel: SandboxChannel) {
    let reads = memories.get(channel);
    if (reads === undefined) {
      reads = new Map();
      memories.set(channel, reads);
    }
    this.reads = reads;
  }

  /** A read without a token cannot be confirmed later, so it replaces what was known by nothing. */
  remember(path: string, maxBytes: number, token: string | null, read: HookConfigRead): void {
    if (token === null) this.reads.delete(path);
    else this.reads.set(path, { maxBytes, token, read });
  }

  /** Every path's last read, or null if one is unknown (or was read with another maxBytes). */
  last(paths: readonly string[], maxBytes: number): LastConfigReads | null {
    const reads: HookConfigRead[] = [];
    const tokens: string[] = [];
    for (const path of paths) {
      const known = this.reads.get(path);
      if (known === undefined || known.maxBytes !== maxBytes) return null;
      reads.push(known.read);
      tokens.push(known.token);
    }
    return { reads, tokens };
  }
}
