// The data folder at start-up (docs/security.md#the-data-folder): created owner-only when it is missing,
// and, when it exists, the folder, the egress CA's folder and private key, and whatever secret files the
// caller names (the server's SQLite store) lose any group or other permissions they had. The server and
// the standalone proxy both call it, since either may be the first to start on a shared folder.

import fs from "node:fs";
import path from "node:path";
import { CA_KEY_FILE } from "./certificate-authority.js";
import { caDirectoryFor } from "./environment-settings.js";
import { ensurePrivateFolder, tightenToOwner, type PermissionReport } from "./private-files.js";

export function secureDataFolder(dataDirectory: string, report: PermissionReport, secretFiles: readonly string[] = []): void {
  ensurePrivateFolder(dataDirectory);
  // A data folder reached through a symbolic link is the folder it points to.
  tightenToOwner(fs.realpathSync(dataDirectory), report);
  const caDirectory = caDirectoryFor(dataDirectory);
  for (const target of [caDirectory, path.join(caDirectory, CA_KEY_FILE), ...secretFiles]) tightenToOwner(target, report);
}
