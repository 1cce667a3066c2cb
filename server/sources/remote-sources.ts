// Fetches the repository and gcs sources of a request, after their shape was checked and before any
// container exists, so a source that cannot be fetched is a 400 that leaves nothing behind.

import { InvalidArgumentError } from "../common/errors.js";
import type { ReadOnlyTree, SandboxFile } from "../sandbox/runtime.js";
import type { SourceSummary } from "./source-summary.js";
import { fetchGcsObjects, GcsSourceError, type GcsSettings } from "./gcs-source.js";
import type { PreparedSources } from "./inline-sources.js";
import { LocalFolderError } from "./local-folders.js";
import { packRepository, RepositorySourceError, type RepositorySettings } from "./repository-source.js";
import { isWithin } from "../common/paths.js";
import { resolveTarget } from "./target-path.js";

export interface RemoteSourceSettings {
  gcs: GcsSettings;
  repository: RepositorySettings;
  /** EMULATOR_MAX_SOURCES_FILES: files, folders and links of one request's sources together. */
  maxEntries: number;
}

export interface FetchedSources {
  files: SandboxFile[];
  readOnlyTrees: ReadOnlyTree[];
  summary: SourceSummary[];
}

export async function fetchRemoteSources(
  prepared: PreparedSources,
  settings: RemoteSourceSettings,
  maxTotalBytes: number,
): Promise<FetchedSources> {
  const files = [...prepared.files];
  const summary = [...prepared.summary];
  const readOnlyTrees: ReadOnlyTree[] = [];
  let budget = maxTotalBytes - prepared.files.reduce((sum, file) => sum + file.content.length, 0);
  let entryBudget = settings.maxEntries - prepared.files.length;
  for (const remote of prepared.remote) {
    const where = `environment.sources[${remote.index}]`;
    try {
      if (remote.type === "gcs") {
        const objects = await fetchGcsObjects(remote.source, settings.gcs, { maxBytes: budget, maxEntries: entryBudget });
        for (const object of objects) {
          const placed =
            object.relativePath === ""
              ? { ok: true as const, path: remote.path }
              : // Joined as written, not normalised: an object name with ".." is refused, never folded away.
                resolveTarget(`${remote.target}/${object.relativePath}`);
          if (!placed.ok)
            throw new GcsSourceError(`object "${object.relativePath}" would land outside the allowed places: ${placed.reason}`);
          files.push({ path: placed.path, content: object.content, mode: 0o644 });
          budget -= object.content.length;
          entryBudget -= 1;
        }
        summary.push({
          type: "gcs",
          target: remote.target,
          source: remote.source,
          size_bytes: objects.reduce((sum, object) => sum + object.content.length, 0),
        });
      } else {
        const packed = await packRepository(remote.source, settings.repository, { maxBytes: budget, maxEntries: entryBudget });
        readOnlyTrees.push({ path: remote.path, tar: packed.tar });
        budget -= packed.bytes;
        entryBudget -= packed.entryCount;
        summary.push({ type: "repository", target: remote.target, source: remote.source, size_bytes: packed.bytes });
      }
    } catch (error) {
      if (error instanceof GcsSourceError || error instanceof RepositorySourceError || error instanceof LocalFolderError) {
        throw new InvalidArgumentError(`${where} (${remote.type} ${remote.source}): ${error.message}`);
      }
      throw error;
    }
  }
  refuseOverlaps(files, readOnlyTrees);
  return { files, readOnlyTrees, summary };
}

/** A read-only mount hides whatever else would land inside it, and two mounts cannot nest. */
function refuseOverlaps(files: SandboxFile[], trees: ReadOnlyTree[]): void {
  for (const tree of trees) {
    const file = files.find((candidate) => isWithin(candidate.path, tree.path) || isWithin(tree.path, candidate.path));
    if (file)
      throw new InvalidArgumentError(`environment.sources: "${file.path}" overlaps the read-only repository mounted at "${tree.path}"`);
    const other = trees.find((candidate) => candidate !== tree && isWithin(candidate.path, tree.path));
    if (other) throw new InvalidArgumentError(`environment.sources: the repositories at "${other.path}" and "${tree.path}" overlap`);
  }
}
