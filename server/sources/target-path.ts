// Where a source lands. `target` is relative to the sandbox root: ".agents/hooks.json" becomes
// "/.agents/hooks.json". Sources are written with more privilege than the agent has (the container's
// files are created by the Docker engine), so a target must never reach outside the places a user may
// put files: no "..", no absolute paths, nothing under the system's own folders.

import path from "node:path/posix";

/** Top-level folders of the operating system or the emulator (docs/environments-and-files.md#reserved-folders). */
const RESERVED_TOP_LEVEL = ["proc", "sys", "dev", "etc", "usr", "bin", "sbin", "boot"];
const RESERVED_PREFIXES = ["opt/emulator"];

/** Whether `child` is `folder` or lies under it (both absolute or both relative, normalised; "/" holds everything). */
export function isWithin(child: string, folder: string): boolean {
  return child === folder || child.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

export type TargetCheck = { ok: true; path: string } | { ok: false; reason: string };

export function resolveTarget(target: string): TargetCheck {
  if (target.trim() === "") return { ok: false, reason: "is empty; give a path relative to the sandbox root, e.g. workspace/data.json" };
  if (target.includes("\0")) return { ok: false, reason: "contains a NUL character" };
  if (target.includes("\\")) return { ok: false, reason: "contains a backslash; use / to separate folders" };
  if (target.startsWith("/")) {
    return { ok: false, reason: `is absolute; targets are relative to the sandbox root (write "${target.replace(/^\/+/, "")}")` };
  }
  if (target.split("/").includes("..")) return { ok: false, reason: 'contains ".."; targets cannot leave the sandbox root' };
  const normalised = path.normalize(target).replace(/\/+$/, "");
  if (normalised === "." || normalised === "") return { ok: false, reason: "names the sandbox root itself; give a file path" };
  if (normalised.startsWith("/") || normalised.startsWith("..")) {
    return { ok: false, reason: "is not inside the sandbox root after normalisation" };
  }
  if (target.endsWith("/")) return { ok: false, reason: "ends with /; give the path of a file" };
  const top = normalised.split("/")[0]!;
  if (RESERVED_TOP_LEVEL.includes(top) || /^lib(32|64|x32)?$/.test(top)) {
    return { ok: false, reason: `is under /${top}, a system folder; put files under workspace/ or another folder of your own` };
  }
  const reserved = RESERVED_PREFIXES.find((prefix) => isWithin(normalised, prefix));
  if (reserved) return { ok: false, reason: `is under /${reserved}, which the emulator's executor uses` };
  return { ok: true, path: `/${normalised}` };
}

/**
 * The system or emulator folder an absolute, normalised path lies in ("/etc", "/lib64", "/opt/emulator"),
 * or null: the places the environments files API never writes to, whatever symlink leads there.
 */
export function reservedFolderOf(absolute: string): string | null {
  const relative = absolute.replace(/^\/+/, "");
  const top = relative.split("/")[0] ?? "";
  if (RESERVED_TOP_LEVEL.includes(top) || /^lib(32|64|x32)?$/.test(top)) return `/${top}`;
  const reserved = RESERVED_PREFIXES.find((prefix) => isWithin(relative, prefix));
  return reserved ? `/${reserved}` : null;
}
