// The EnvironmentFile resource (docs/wire-protocol.md#environment-and-file-resources): sizes as int64
// strings, paths relative to the sandbox root, mime_type empty for folders.

import path from "node:path/posix";
import type { FileInfo } from "../sandbox/runtime.js";
import { nowTimestamp } from "../common/timestamps.js";
import { mimeTypeOf } from "./mime-types.js";
import { apiPathOf } from "./sandbox-path.js";

export interface EnvironmentFile {
  name: string;
  path: string;
  /** "file" or "directory"; also "symlink" (listed, never followed) and "other" (a FIFO, socket or device). */
  type: string;
  mime_type: string;
  size_bytes: string;
  created: string;
  modified: string;
}

export function renderFile(absolute: string, info: FileInfo): EnvironmentFile {
  const name = path.basename(absolute);
  return {
    name,
    path: apiPathOf(absolute),
    type: info.type,
    mime_type: info.type === "file" ? mimeTypeOf(name) : "",
    size_bytes: String(info.type === "directory" ? 0 : info.size),
    created: nowTimestamp(new Date(info.birthtimeMs)),
    modified: nowTimestamp(new Date(info.mtimeMs)),
  };
}
