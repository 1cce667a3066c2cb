// Finding the hook configuration, afresh before every tool call: an agent with write access can
// rewrite its own hooks.json (the documentation warns of exactly that), and the next call must run
// what the file says now. Two candidate paths; when both resolve to one real file it is read once.

import type { HookConfigRead, HookHost } from "./hook-host.js";
import type { HookGroup } from "./hooks-file.js";
import { parseHooksFileOnce } from "./parsed-files.js";
import type { HookDiagnostic, HookFileTrace } from "./trace.js";

/** In this order: the sandbox root's file, then the working folder's (docs/hooks.md#discovery). */
export const DEFAULT_CONFIG_PATHS: readonly string[] = ["/.agents/hooks.json", "/workspace/.agents/hooks.json"];

export const DEFAULT_MAX_CONFIG_BYTES = 1024 * 1024;

export interface LoadedConfig {
  file: string;
  groups: HookGroup[];
  /** On a read-only mount: its handlers run out of sandbox code's reach (HookHost). */
  readOnly: boolean;
  /** The text as read and its SHA-256: what hook coverage stores once per content. */
  text: string;
  sha256: string;
}

export interface Discovery {
  configs: LoadedConfig[];
  files: HookFileTrace[];
  diagnostics: HookDiagnostic[];
}

/** What the reads of the candidates (one per path, in order) amount to. */
export function discoveryFrom(paths: readonly string[], reads: readonly HookConfigRead[]): Discovery {
  if (reads.length !== paths.length) throw new Error(`${reads.length} reads for ${paths.length} hooks.json paths`);
  const discovery: Discovery = { configs: [], files: [], diagnostics: [] };
  const readRealPaths = new Map<string, string>();
  for (const [index, path] of paths.entries()) {
    const read = reads[index]!;
    if (read.status === "missing") {
      discovery.files.push({
        path,
        real_path: null,
        status: "missing",
        groups: 0,
        bytes: null,
        detail: null,
        read_only: null,
        sha256: null,
      });
      continue;
    }
    if (read.status === "unreadable") {
      discovery.files.push({
        path,
        real_path: read.realPath,
        status: "unreadable",
        groups: 0,
        bytes: null,
        detail: read.error,
        read_only: null,
        sha256: null,
      });
      discovery.diagnostics.push({
        severity: "error",
        code: "file_unreadable",
        message: `${path} exists but cannot be read (${read.error}), so none of its hooks apply.`,
        location: { file: path },
      });
      continue;
    }
    const earlier = readRealPaths.get(read.realPath);
    if (earlier !== undefined) {
      discovery.files.push({
        path,
        real_path: read.realPath,
        status: "duplicate",
        groups: 0,
        bytes: read.bytes,
        detail: `the same file as ${earlier}; its hooks run once`,
        read_only: read.readOnly,
        sha256: null,
      });
      continue;
    }
    readRealPaths.set(read.realPath, path);
    const { parsed, sha256 } = parseHooksFileOnce(read.text, path, read.token);
    discovery.diagnostics.push(...parsed.diagnostics);
    discovery.files.push({
      path,
      real_path: read.realPath,
      status: parsed.status,
      groups: parsed.groups.length,
      bytes: read.bytes,
      detail: null,
      read_only: read.readOnly,
      sha256,
    });
    discovery.configs.push({ file: path, groups: parsed.groups, readOnly: read.readOnly, text: read.text, sha256 });
  }
  return discovery;
}

/** Every candidate, in order: at once where the host can, else one after another. */
export async function readConfigs(host: HookHost, paths: readonly string[], maxConfigBytes: number): Promise<HookConfigRead[]> {
  if (host.readConfigs) return host.readConfigs(paths, maxConfigBytes);
  const reads: HookConfigRead[] = [];
  for (const path of paths) reads.push(await host.readConfig(path, maxConfigBytes));
  return reads;
}
