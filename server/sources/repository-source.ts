// `{type: "repository", source, target}`: a git repository (URL or local path) cloned shallow, or a
// local folder copied, packed as a tar of root-owned, read-only files. The runtime mounts it read-only
// at the target, so neither tools nor hooks can change it: the documentation recommends exactly this
// for tamper-resistant hook configurations.
//
// Where a repository may come from (docs/security.md, "Repository sources"):
//   - an https:// or http:// URL, cloned by the host's git through the egress proxy's address guard
//     (git-egress-forwarder.ts), in bounded time and size (git-clone.ts);
//   - a URL that EMULATOR_REPO_MAP maps to a local mirror: "https://github.com/acme/=/srv/mirrors/"
//     makes https://github.com/acme/tools clone /srv/mirrors/tools (for machines, and tests, without
//     network access to the URL);
//   - an absolute path or file:// URL, only inside a folder of EMULATOR_REPO_ROOTS.
// Local folders pass local-folders.ts (never the data folder, only what others may read) and are
// measured before they are read (local-tree.ts).

import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { EmulatorError, UnavailableError } from "../common/errors.js";
import { tarBuffer, type TarEntry } from "../common/tar.js";
import { cloneRepository, GitCloneError } from "./git-clone.js";
import type { ProxyEndpoint } from "../egress/egress-gateway.js";
import { openGitEgressForwarder } from "./git-egress-forwarder.js";
import { LocalFolderError, serveLocalPath, sharedWithOthers } from "./local-folders.js";
import { measureTree, readMeasuredFile, type MeasuredTree, type TreeLimits, type TreeRules } from "./local-tree.js";

export class RepositorySourceError extends EmulatorError {}

export type RepoMap = Array<{ prefix: string; local: string }>;

export interface RepositorySettings {
  map: RepoMap;
  /** EMULATOR_REPO_ROOTS: the folders absolute paths and file:// URLs may name. */
  roots: readonly string[];
  /** Never served, nor any folder holding them: the emulator's data folder. */
  protectedFolders: readonly string[];
  cloneTimeoutMs: number;
  /** The egress proxy, through which network clones go; without it only local repositories are served. */
  egressProxy?: ProxyEndpoint | undefined;
}

export function parseRepoMap(text: string | undefined): RepoMap {
  if (!text || text.trim() === "") return [];
  return text
    .split(",")
    .map((pair) => pair.trim())
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const at = pair.lastIndexOf("=");
      if (at <= 0 || at === pair.length - 1) throw new RepositorySourceError(`EMULATOR_REPO_MAP: "${pair}" is not url-prefix=local-path`);
      return { prefix: pair.slice(0, at), local: pair.slice(at + 1) };
    })
    .sort((a, b) => b.prefix.length - a.prefix.length);
}

const HOW_TO_ALLOW =
  "an operator allows local folders with EMULATOR_REPO_ROOTS (absolute folders, comma-separated) or maps a URL prefix to a local mirror with EMULATOR_REPO_MAP";

export type RepositoryLocation =
  | { kind: "local"; path: string; roots: string[]; howToAllow: string }
  | { kind: "url"; url: string; host: string };

/** Where to clone from: an operator's local folder (mapped or named), or an http(s) URL. */
export function resolveRepositoryLocation(source: string, settings: Pick<RepositorySettings, "map" | "roots">): RepositoryLocation {
  if ([...source].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f))
    throw new RepositorySourceError("the source contains control characters");
  const mapped = settings.map.find((entry) => source.startsWith(entry.prefix));
  if (mapped) {
    const local = path.resolve(mapped.local);
    return {
      kind: "local",
      path: path.resolve(local, source.slice(mapped.prefix.length)),
      roots: [local],
      howToAllow: `it leaves the folder EMULATOR_REPO_MAP maps "${mapped.prefix}" to`,
    };
  }
  if (/^file:\/\//i.test(source)) {
    let local: string;
    try {
      local = fileURLToPath(source);
    } catch (error) {
      throw new RepositorySourceError(`"${source}" is not a local file:// URL (${(error as Error).message})`);
    }
    return { kind: "local", path: local, roots: [...settings.roots], howToAllow: HOW_TO_ALLOW };
  }
  if (path.isAbsolute(source)) return { kind: "local", path: source, roots: [...settings.roots], howToAllow: HOW_TO_ALLOW };
  if (/^https?:\/\//i.test(source)) {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      throw new RepositorySourceError(`"${source}" is not a valid URL`);
    }
    if (url.hostname === "") throw new RepositorySourceError(`"${source}" names no host`);
    return { kind: "url", url: url.href, host: url.host };
  }
  throw new RepositorySourceError(
    `"${source}" is not an https:// or http:// URL; only those are cloned (ssh, git:// and other transports are not), ` +
      "and local folders need an absolute path that the operator allows (EMULATOR_REPO_ROOTS) or a URL mapped with EMULATOR_REPO_MAP",
  );
}

export interface PackedRepository {
  tar: Buffer;
  fileCount: number;
  /** Files, folders and links. */
  entryCount: number;
  bytes: number;
}

export async function packRepository(source: string, settings: RepositorySettings, limits: TreeLimits): Promise<PackedRepository> {
  const location = resolveRepositoryLocation(source, settings);
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "emu-repo-"));
  try {
    const checkout = path.join(work, "checkout");
    const clone = {
      into: checkout,
      timeoutMs: settings.cloneTimeoutMs,
      maxBytes: limits.maxBytes,
      maxEntries: limits.maxEntries,
      home: work,
    };
    if (location.kind === "url") {
      await cloneThroughGuard(location.url, settings, clone);
      return await packFolder(checkout, limits, { onlyShared: false, protectedIdentities: [] });
    }
    const served = await serveLocalPath({
      requested: location.path,
      roots: location.roots,
      protectedFolders: settings.protectedFolders,
      howToAllow: location.howToAllow,
    });
    if (await isGitRepository(served.path)) {
      try {
        await cloneRepository({ ...clone, url: pathToFileURL(served.path).href });
      } catch (error) {
        if (error instanceof GitCloneError) throw new RepositorySourceError(`cloning ${source} ${error.message}`);
        throw error;
      }
      return await packFolder(checkout, limits, { onlyShared: false, protectedIdentities: [] });
    }
    // A plain folder is read where it is, after it was measured: nothing is copied first.
    return await packFolder(served.path, limits, { onlyShared: true, protectedIdentities: served.protectedIdentities });
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

async function cloneThroughGuard(
  url: string,
  settings: RepositorySettings,
  clone: Omit<Parameters<typeof cloneRepository>[0], "url">,
): Promise<void> {
  if (!settings.egressProxy) throw new RepositorySourceError("this emulator clones no repositories from the network (no egress proxy)");
  const forwarder = await openGitEgressForwarder(settings.egressProxy);
  try {
    await cloneRepository({ ...clone, url, proxyUrl: forwarder.proxyUrl });
  } catch (error) {
    if (!(error instanceof GitCloneError)) throw error;
    const failure = forwarder.proxyFailures[0];
    if (failure !== undefined) throw new UnavailableError(`the egress proxy that repository clones go through did not answer (${failure})`);
    const refusal = forwarder.refusals[0];
    if (refusal !== undefined) {
      throw new RepositorySourceError(
        `cloning ${url} was refused by the address guard (${refusal}); repository URLs are fetched like a sandbox's egress, ` +
          "never from loopback, private, link-local or this machine's addresses: an operator can map the name to a local git server " +
          "with EMULATOR_EGRESS_HOST_MAP, or the URL to a local mirror with EMULATOR_REPO_MAP",
      );
    }
    throw new RepositorySourceError(`cloning ${url} ${error.message}`);
  } finally {
    await forwarder.close();
  }
}

/** A working tree (".git" inside, as a folder or a gitfile) or a bare repository; decided without running git in it. */
async function isGitRepository(folder: string): Promise<boolean> {
  const exists = async (name: string, kind: "file" | "directory" | "any") => {
    try {
      const stat = await fs.lstat(path.join(folder, name));
      return kind === "any" || (kind === "file" ? stat.isFile() : stat.isDirectory());
    } catch {
      return false;
    }
  };
  const stat = await fs.stat(folder);
  if (!stat.isDirectory()) throw new RepositorySourceError("it is not a folder or a git repository");
  if (await exists(".git", "any")) {
    // The clone reads the repository's git folder: it must be shared like the rest.
    const git = await fs.lstat(path.join(folder, ".git"));
    if (!sharedWithOthers(git)) throw new RepositorySourceError('".git" is not readable by other users of the host');
    return true;
  }
  return (await exists("HEAD", "file")) && (await exists("objects", "directory")) && (await exists("refs", "directory"));
}

const READ_ONLY_RULES = { bytesSetting: "EMULATOR_MAX_SOURCES_BYTES", entriesSetting: "EMULATOR_MAX_SOURCES_FILES" };

/** Root-owned and without write bits: the sandbox user can read and run, never change. */
async function packFolder(
  root: string,
  limits: TreeLimits,
  rules: Omit<TreeRules, "bytesSetting" | "entriesSetting">,
): Promise<PackedRepository> {
  let measured: MeasuredTree;
  try {
    measured = await measureTree(root, limits, { ...rules, ...READ_ONLY_RULES });
  } catch (error) {
    if (error instanceof LocalFolderError) throw new RepositorySourceError(error.message.replace(/^the folder/, "the repository"));
    throw error;
  }
  const entries: TarEntry[] = [{ header: { name: "./", type: "directory", mode: 0o555, uid: 0, gid: 0 } }];
  let fileCount = 0;
  for (const entry of measured.entries) {
    if (entry.kind === "directory") {
      entries.push({ header: { name: `${entry.name}/`, type: "directory", mode: 0o555, uid: 0, gid: 0 } });
    } else if (entry.kind === "symlink") {
      entries.push({ header: { name: entry.name, type: "symlink", linkname: entry.target, mode: 0o777, uid: 0, gid: 0 } });
    } else {
      const content = await readMeasuredFile(root, entry);
      fileCount += 1;
      entries.push({ header: { name: entry.name, mode: entry.executable ? 0o555 : 0o444, uid: 0, gid: 0 }, content });
    }
  }
  return { tar: await tarBuffer(entries), fileCount, entryCount: measured.entries.length, bytes: measured.bytes };
}
