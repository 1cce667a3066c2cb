// Which folders of one sandbox a state file saves: the image's writable places (SAVED_FOLDERS), and
// the top-level folder of each of the environment's sources, or, where that folder holds a reserved one
// ("opt/app/run.sh" in /opt, which holds /opt/emulator), the shallowest folder on the way to the source
// that does not (/opt/app): a saved folder never holds the executor. A source may land anywhere outside the
// system and executor folders ("src/app.py" lands at /src/app.py), and its parents are created for the
// sandbox user, so what the agent later writes beside it lives there too; without them an imported
// environment would lose its own repository files.
//
// *Threat:* on import the sources come from the file, which may be hand-made: each target is checked
// by the same rule a request's source is (resolveTarget), so a record claiming a source at
// "opt/emulator" or "etc" widens nothing.

import { savedFoldersFor } from "../sandbox/layout.js";
import { resolveTarget } from "../sources/target-path.js";

export function savedFoldersOf(sources: unknown): string[] {
  const places: string[] = [];
  if (Array.isArray(sources)) {
    for (const source of sources) {
      const target = (source as { target?: unknown } | null)?.target;
      if (typeof target !== "string") continue;
      const resolved = resolveTarget(target);
      if (resolved.ok) places.push(resolved.path);
    }
  }
  return savedFoldersFor(places);
}

/** The sources an environment row of a state file names (its config is JSON text). */
export function sourcesOfRow(config: unknown): unknown {
  if (typeof config !== "string") return [];
  try {
    return (JSON.parse(config) as { sources?: unknown }).sources ?? [];
  } catch {
    return [];
  }
}
