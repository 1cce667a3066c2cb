// The engine's daemons by name (dockerd, containerd), from /proc: whose file descriptors a machine full
// of sandboxes may exhaust.

import fs from "node:fs";

export function pidsOf(names: string[]): Array<{ name: string; pid: number }> {
  const found: Array<{ name: string; pid: number }> = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim();
      if (names.includes(name)) found.push({ name, pid: Number(entry) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
