// Paths of the environments files API. A path that starts with a folder at the top of the sandbox's
// root (ROOT_FOLDERS: "workspace/src/main.py", ".agents/hooks.json", "tmp/x") is read from the root, as
// the environments page writes them; any other is read from /workspace ("src/main.py" is
// /workspace/src/main.py), as the OpenAPI document says ("the relative destination path inside the
// environment workspace") and its samples and the Python SDK's fixtures write them (docs/fidelity.md,
// "files API paths"). "" is /workspace, the API's root, as the page lists it. Whatever cannot name a
// place inside the sandbox is a 400 before the sandbox is asked anything; where a path really leads
// (after symlinks, resolved inside the sandbox) is checked against what the API may read or write, a 403
// otherwise. The executor runs as the sandbox user, so the operating system's permissions apply on top.

import path from "node:path/posix";
import { InvalidArgumentError, PermissionDeniedError } from "../common/errors.js";
import { isWithin } from "../common/paths.js";
import { describeReservedPlace, placeOfRelative, PSEUDO_FOLDERS, reservedPlaceOf, SANDBOX_WORKDIR } from "../sandbox/layout.js";

export type Access = "read" | "write";

/** The absolute path an API path names; a 400 that says what to write instead when it cannot be one. */
export function parseFilePath(input: string): string {
  const shown = JSON.stringify(input);
  if (input.includes("\0")) throw new InvalidArgumentError(`path ${shown} contains a NUL character.`);
  if (input.includes("\\")) throw new InvalidArgumentError(`path ${shown} contains a backslash; separate folders with /.`);
  if (input.startsWith("/")) {
    throw new InvalidArgumentError(
      `path ${shown} is absolute; paths are relative: write "${input.replace(/^\/+/, "")}" (a path that starts with a folder at the sandbox's root, such as workspace/ or tmp/, is read from the root; any other from /workspace).`,
    );
  }
  if (input.split("/").includes("..")) throw new InvalidArgumentError(`path ${shown} contains ".."; paths cannot leave the sandbox root.`);
  const normalised = path.normalize(`/${input}`);
  if (normalised.length === 1) return SANDBOX_WORKDIR;
  return placeOfRelative(normalised.replace(/\/+$/, "").slice(1));
}

/** The place a path names, or null when it names none (for messages only). */
function placeNamed(shown: string): string | null {
  try {
    return parseFilePath(shown);
  } catch {
    return null;
  }
}

/**
 * The API's listed form of an absolute path, written from the root: "/workspace/a.txt" →
 * "workspace/a.txt" (which names it again). The root itself, reached only through a link, is "".
 */
export function apiPathOf(absolute: string): string {
  return absolute.replace(/^\/+/, "");
}

/** Refuses (403) a real path the API may not reach for this kind of access; `shown` is the path as the caller gave it. */
export function checkReach(realPath: string, access: Access, shown: string): void {
  const pseudo = PSEUDO_FOLDERS.find((folder) => isWithin(realPath, folder));
  const via = realPath === placeNamed(shown) ? "" : ` (it leads to ${realPath})`;
  if (pseudo) {
    throw new PermissionDeniedError(
      `path "${shown}"${via} is under ${pseudo}, which the files API does not serve; use code_execution to inspect it.`,
    );
  }
  // On, under or above a reserved folder (reservedPlaceOf), as for a source's target. The root itself,
  // which holds every one, is written only into (an archive unpacked at ""), each entry refused by the
  // same rule (UNWRITABLE_FOLDERS in extract-script.ts).
  if (access === "write" && realPath !== "/") {
    const reserved = reservedPlaceOf(realPath);
    if (reserved) {
      throw new PermissionDeniedError(
        `path "${shown}"${via} ${describeReservedPlace(reserved)}; put files under workspace/ or another folder of your own.`,
      );
    }
  }
}
