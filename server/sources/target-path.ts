// Where a source lands. An absolute `target` is where it says ("/workspace/notes.txt"); a relative one
// is read as a files API path is (placeOfRelative): from the root when it starts with a folder at the
// root (".agents/hooks.json" is "/.agents/hooks.json", "workspace/notes.txt" is
// "/workspace/notes.txt"), else from /workspace ("main.py" is "/workspace/main.py", the Python SDK's
// own lifecycle test's target). Sources are written with more privilege
// than the agent has (the container's files are created by the Docker engine), so a target must never
// reach outside the places a user may put files: no "..", not the root itself, nothing on, under or
// above the system's or the executor's folders (reservedPlaceOf: a target "opt" or "/opt" would mount
// over /opt/emulator).

import path from "node:path/posix";
import { describeReservedPlace, placeOfRelative, reservedPlaceOf } from "../sandbox/layout.js";

export type TargetCheck = { ok: true; path: string } | { ok: false; reason: string };

export function resolveTarget(target: string): TargetCheck {
  if (target.trim() === "")
    return { ok: false, reason: "is empty; give a file path, e.g. data.json (in /workspace) or /workspace/data.json" };
  if (target.includes("\0")) return { ok: false, reason: "contains a NUL character" };
  if (target.includes("\\")) return { ok: false, reason: "contains a backslash; use / to separate folders" };
  // Before the other checks, so that every spelling of a reserved place ("/opt", "opt/", "./opt",
  // "opt/../opt") is refused naming the reserved folder. The root itself, which holds them all, is
  // refused below as what it is (".", "/", "workspace/..").
  const reserved = path.normalize(`/${target}`).replace(/\/+$/, "") === "" ? null : reservedPlaceOf(target);
  if (reserved) {
    return { ok: false, reason: `${describeReservedPlace(reserved)}; put files under workspace/ or another folder of your own` };
  }
  // The service's own examples write both "/workspace/a" and "workspace/a" for one place.
  const absolute = target.startsWith("/");
  const relative = target.replace(/^\/+/, "");
  if (relative.split("/").includes("..")) return { ok: false, reason: 'contains ".."; targets cannot leave the sandbox root' };
  const normalised = path.normalize(relative).replace(/\/+$/, "");
  if (normalised === "." || normalised === "") return { ok: false, reason: "names the sandbox root itself; give a file path" };
  // "./ " is as empty as " " once "./" is gone.
  if (normalised.trim() === "")
    return { ok: false, reason: "is empty; give a file path, e.g. data.json (in /workspace) or /workspace/data.json" };
  if (normalised.startsWith("/") || normalised.startsWith("..")) {
    return { ok: false, reason: "is not inside the sandbox root after normalisation" };
  }
  // "a/" and "a/." both name a folder (found by the property tests: "a/." used to be taken as "a").
  if (target.endsWith("/") || target.endsWith("/.")) return { ok: false, reason: "ends with / or /.; give the path of a file" };
  return { ok: true, path: absolute ? `/${normalised}` : placeOfRelative(normalised) };
}
