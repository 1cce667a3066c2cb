// The EnvironmentFile resource (docs/wire-protocol.md#environment-and-file-resources): sizes as int64
// strings, paths relative to the sandbox root, mime_type empty for folders. The document's `type` is
// "file" or "directory" only (a client's closed enum): a symlink or a FIFO, socket or device is listed
// as a "file" with `emulator_type` saying what it is (docs/fidelity.md).

import path from "node:path/posix";
import type { EnvironmentFile as ApiEnvironmentFile } from "../wire/openapi-types.js";
import type { FileInfo } from "../sandbox/runtime.js";
import { nowTimestamp } from "../common/timestamps.js";
import { mimeTypeOf } from "./mime-types.js";
import { apiPathOf } from "./sandbox-path.js";

/**
 * The EnvironmentFile as the emulator answers it: the document's (server/wire/openapi-types.ts), every
 * field given, plus
 * `emulator_type` for what the document has no type for: "symlink" (listed, never followed), "other" (a
 * FIFO, socket or device); either reads as "file" in `type` (docs/fidelity.md).
 */
export type EnvironmentFile = Required<ApiEnvironmentFile> & { emulator_type?: "symlink" | "other" };

export function renderFile(absolute: string, info: FileInfo): EnvironmentFile {
  const name = path.basename(absolute);
  return {
    name,
    path: apiPathOf(absolute),
    type: info.type === "directory" ? "directory" : "file",
    ...(info.type === "symlink" || info.type === "other" ? { emulator_type: info.type } : {}),
    mime_type: info.type === "file" ? mimeTypeOf(name) : "",
    size_bytes: String(info.type === "directory" ? 0 : info.size),
    created: nowTimestamp(new Date(info.birthtimeMs)),
    modified: nowTimestamp(new Date(info.mtimeMs)),
  };
}
