// What a channel's readFiles read last, per path: the token the executor gave the read and the read
// itself. The executor answers a file that reads the same as "unchanged since <token>", and the read is
// then taken from here; it still reads the file every time (sandbox-image/executor-go/read_files.go).

import type { ReadFileResult } from "./runtime.js";

export interface RememberedRead {
  token: string;
  file: ReadFileResult;
}

/** Few paths are ever read this way (the hooks.json candidates); past this many, the oldest go. */
const MAX_PATHS = 16;

export class ReadFilesCache {
  private readonly reads = new Map<string, RememberedRead>();

  get(path: string): RememberedRead | undefined {
    return this.reads.get(path);
  }

  remember(path: string, read: RememberedRead): void {
    this.reads.delete(path);
    this.reads.set(path, read);
    for (const oldest of this.reads.keys()) {
      if (this.reads.size <= MAX_PATHS) break;
      this.reads.delete(oldest);
    }
  }

  forget(path: string): void {
    this.reads.delete(path);
  }
}
