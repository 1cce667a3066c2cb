// A fix for one gap of Debian bookworm's gVisor (runsc release 20221219): its statx(2) refuses the
// AT_NO_AUTOMOUNT flag with EINVAL (later releases accept it as the no-op it is there: gVisor has no
// automounts). coreutils 9.1 passes that flag on every statx, so `ls`, `ls -l` and `stat` fail on any
// path in a sandbox under it: "ls: cannot access 'f': Invalid argument".
//
// The fix: a preloaded library (/etc/ld.so.preload, root's, which sandbox code cannot change) whose
// statx() drops the flag and makes the system call itself. Only programs that call libc's statx() go
// through it; the flag means nothing where nothing is automounted, so nothing else changes. It is built
// on this machine with its C compiler at start, when sandboxes run under gVisor; without a compiler the
// emulator says so and sandboxes go without it (docs/security.md#gvisor).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SandboxFile } from "../runtime.js";

export const STATX_SHIM_PATH = "/usr/local/lib/iemu-gvisor-statx.so";

const SOURCE = `#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int statx(int dirfd, const char *pathname, int flags, unsigned int mask, struct statx *statxbuf) {
  return (int)syscall(SYS_statx, dirfd, pathname, flags & ~AT_NO_AUTOMOUNT, mask, statxbuf);
}
`;

/** The shim's files for a new sandbox, or why there are none. */
export function statxShimFiles(): { files: SandboxFile[] } | { missing: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-statx-"));
  try {
    const source = path.join(folder, "statx.c");
    const library = path.join(folder, "statx.so");
    fs.writeFileSync(source, SOURCE);
    execFileSync(process.env.CC ?? "cc", ["-shared", "-fPIC", "-O2", "-o", library, source], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 60_000,
    });
    return {
      files: [
        { path: STATX_SHIM_PATH, content: fs.readFileSync(library), mode: 0o644, system: true },
        { path: "/etc/ld.so.preload", content: Buffer.from(`${STATX_SHIM_PATH}\n`), mode: 0o644, system: true },
      ],
    };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { missing: stderr || (error as Error).message };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
