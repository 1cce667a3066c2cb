// `{type: "repository", source, target}`: a git repository (URL or local path) cloned shallow, or a
// local folder copied, packed as a tar of root-owned, read-only files. The runtime mounts it read-only
// at the target, so neither tools nor hooks can change it: the documentation recommends exactly this
// for tamper-resistant hook configurations.
//
// EMULATOR_REPO_MAP maps URL prefixes to local folders or bare repositories, for machines (and tests)
// without network access to the URL: "https://github.com/acme/=/srv/mirrors/" makes
// https://github.com/acme/tools clone /srv/mirrors/tools.

import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { EmulatorError } from "../common/errors.js";
import { tarBuffer, type TarEntry } from "../common/tar.js";

const run = promisify(execFile);

export class RepositorySourceError extends EmulatorError {}

export type RepoMap = Array<{ prefix: string; local: string }>;

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

/** Where to clone from: a mapped or given local path, or the URL itself. */
export function resolveRepositoryLocation(source: string, map: RepoMap): { kind: "local"; path: string } | { kind: "url"; url: string } {
  const mapped = map.find((entry) => source.startsWith(entry.prefix));
  if (mapped) return { kind: "local", path: path.resolve(mapped.local, source.slice(mapped.prefix.length)) };
  if (source.startsWith("file://")) return { kind: "local", path: new URL(source).pathname };
  if (path.isAbsolute(source)) return { kind: "local", path: source };
  if (/^(https?|ssh|git):\/\/|^[\w.-]+@[\w.-]+:/.test(source)) return { kind: "url", url: source };
  throw new RepositorySourceError(
    `"${source}" is neither a git URL nor an absolute local path (map URLs to folders with EMULATOR_REPO_MAP)`,
  );
}

export interface PackedRepository {
  tar: Buffer;
  fileCount: number;
  bytes: number;
}

export async function packRepository(source: string, map: RepoMap, maxBytes: number): Promise<PackedRepository> {
  const location = resolveRepositoryLocation(source, map);
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "emu-repo-"));
  try {
    const checkout = path.join(work, "checkout");
    if (location.kind === "url") await clone(location.url, checkout);
    else if (await isGitRepository(location.path)) await clone(`file://${location.path}`, checkout);
    else await copyFolder(location.path, checkout);
    return await packTree(checkout, maxBytes);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

async function isGitRepository(folder: string): Promise<boolean> {
  try {
    await fs.access(folder);
  } catch {
    throw new RepositorySourceError(`the local repository ${folder} does not exist`);
  }
  try {
    await run("git", ["-C", folder, "rev-parse", "--git-dir"], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function clone(url: string, into: string): Promise<void> {
  try {
    await run("git", ["clone", "--depth", "1", "--quiet", "--no-tags", url, into], {
      timeout: 120_000,
      // Never prompt for credentials: an interactive prompt would hang the request.
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "true" },
    });
  } catch (error) {
    const detail = ((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split("\n").slice(-2).join(" ");
    throw new RepositorySourceError(`cloning ${url} failed: ${detail}`);
  }
}

async function copyFolder(from: string, to: string): Promise<void> {
  const stat = await fs.stat(from);
  if (!stat.isDirectory()) throw new RepositorySourceError(`${from} is not a folder or a git repository`);
  await fs.cp(from, to, { recursive: true, verbatimSymlinks: true });
}

/** Root-owned and without write bits: the sandbox user can read and run, never change. */
async function packTree(root: string, maxBytes: number): Promise<PackedRepository> {
  const entries: TarEntry[] = [{ header: { name: "./", type: "directory", mode: 0o555, uid: 0, gid: 0 } }];
  let bytes = 0;
  let fileCount = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const name = path.relative(root, full).split(path.sep).join("/");
      if (entry.isDirectory()) {
        entries.push({ header: { name: `${name}/`, type: "directory", mode: 0o555, uid: 0, gid: 0 } });
        await walk(full);
      } else if (entry.isSymbolicLink()) {
        entries.push({ header: { name, type: "symlink", linkname: await fs.readlink(full), mode: 0o777, uid: 0, gid: 0 } });
      } else if (entry.isFile()) {
        const [content, stat] = await Promise.all([fs.readFile(full), fs.stat(full)]);
        bytes += content.length;
        if (bytes > maxBytes)
          throw new RepositorySourceError(`the repository is larger than ${maxBytes} bytes (EMULATOR_MAX_SOURCES_BYTES)`);
        fileCount += 1;
        entries.push({ header: { name, mode: stat.mode & 0o111 ? 0o555 : 0o444, uid: 0, gid: 0 }, content });
      }
    }
  };
  await walk(root);
  return { tar: await tarBuffer(entries), fileCount, bytes };
}
