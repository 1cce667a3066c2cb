// Whether a path lies on a read-only mount, from /proc/self/mountinfo. Read afresh on every call: it is
// a few dozen short lines, and on a host (the local executor) mounts can change.

import { readFileSync } from "node:fs";

interface Mount {
  point: string;
  readOnly: boolean;
}

/** False where there is no mountinfo (not Linux): nothing is known to be read-only then. */
export function isOnReadOnlyMount(realPath: string): boolean {
  let table: string;
  try {
    table = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return false;
  }
  return isReadOnlyIn(table, realPath);
}

/** Whether, by this mountinfo table, the mount `realPath` lies on is read-only. */
export function isReadOnlyIn(table: string, realPath: string): boolean {
  let best: Mount | null = null;
  for (const line of table.split("\n")) {
    const mount = parseLine(line);
    if (mount === null || !contains(mount.point, realPath)) continue;
    // The deepest mount point wins; among mounts on one point, the later one (mounted on top).
    if (best === null || mount.point.length >= best.point.length) best = mount;
  }
  return best?.readOnly ?? false;
}

/** "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": field 5 is the mount point, 6 its options. */
function parseLine(line: string): Mount | null {
  const fields = line.split(" ");
  const point = fields[4];
  const options = fields[5];
  if (point === undefined || options === undefined) return null;
  return { point: decodeOctalEscapes(point), readOnly: options.split(",").includes("ro") };
}

/** The kernel writes space, tab, newline and backslash in mount points as octal escapes (\040 …). */
function decodeOctalEscapes(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function contains(point: string, path: string): boolean {
  return point === "/" || path === point || path.startsWith(`${point}/`);
}
