// Which machine, and which view of its file system, a path in a label belongs to: an emulator may judge
// another one's data folder gone only if it sees the same files. The host name tells machines (and
// containers, which get their own) apart; the machine ID helps where host names repeat; the mount
// namespace tells apart processes on one machine that see different files at the same path.

import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";

export function hostIdentity(): string {
  const parts = [os.hostname()];
  for (const read of [() => fs.readFileSync("/etc/machine-id", "utf8").trim(), () => fs.readlinkSync("/proc/self/ns/mnt")]) {
    try {
      parts.push(read());
    } catch {
      parts.push("");
    }
  }
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}
