// Turns the request's sources into the files a sandbox receives, refusing bad ones before anything
// is created (a refused request leaves no container and no stored environment).

import { isBase64 } from "../common/base64.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { SourceInput } from "../api/create-interaction.js";
import type { SandboxFile } from "../sandbox/runtime.js";
import type { SourceSummary } from "./source-summary.js";
import { resolveTarget } from "./target-path.js";

const SUPPORTED_TYPES = ["inline", "repository", "gcs"];

/** A repository or gcs source: its shape is checked now, its content fetched before anything is created. */
export interface RemoteSource {
  index: number;
  type: "repository" | "gcs";
  source: string;
  /** Absolute path of the target in the sandbox. */
  path: string;
  target: string;
}

export interface PreparedSources {
  files: SandboxFile[];
  summary: SourceSummary[];
  remote: RemoteSource[];
}

export function prepareSources(sources: SourceInput[] | undefined, maxTotalBytes: number): PreparedSources {
  const files: SandboxFile[] = [];
  const summary: SourceSummary[] = [];
  const remote: RemoteSource[] = [];
  const seen = new Map<string, number>();
  let total = 0;
  (sources ?? []).forEach((source, index) => {
    const where = `environment.sources[${index}]`;
    // The document makes `type` optional: a source that says what it holds is of that kind.
    const type = source.type ?? inferredType(source);
    if (type === undefined) {
      throw new InvalidArgumentError(
        `${where}.type is required (e.g. "inline"): give content (inline) or a source (gs://… or a repository)`,
      );
    }
    if (!SUPPORTED_TYPES.includes(type)) {
      throw new InvalidArgumentError(
        `${where}.type "${type}" is not supported by this emulator yet; supported source types: ${SUPPORTED_TYPES.join(", ")}`,
      );
    }
    if (source.target === undefined)
      throw new InvalidArgumentError(`${where}.target is required: where the file lands, e.g. "workspace/data.json"`);
    const target = resolveTarget(source.target);
    if (!target.ok) throw new InvalidArgumentError(`${where}.target "${source.target}" ${target.reason}`);
    const earlier = seen.get(target.path);
    if (earlier !== undefined) {
      throw new InvalidArgumentError(
        `${where}.target "${source.target}" is the same file as environment.sources[${earlier}]; give each source its own target`,
      );
    }
    seen.set(target.path, index);
    if (type === "repository" || type === "gcs") {
      if (!source.source) {
        throw new InvalidArgumentError(
          `${where}.source is required for a ${type} source (${type === "gcs" ? "gs://bucket/prefix" : "a git URL or a local path"})`,
        );
      }
      remote.push({ index, type, source: source.source, path: target.path, target: source.target });
      return;
    }
    if (source.content === undefined) throw new InvalidArgumentError(`${where}.content is required for an inline source`);
    const content = decode(source.content, source.encoding, where);
    total += content.length;
    if (total > maxTotalBytes) {
      throw new InvalidArgumentError(
        `environment.sources are larger than ${maxTotalBytes} bytes in total (at ${where}); send less, or raise EMULATOR_MAX_SOURCES_BYTES`,
      );
    }
    const mode = content.subarray(0, 2).toString("latin1") === "#!" ? 0o755 : 0o644;
    files.push({ path: target.path, content, mode });
    summary.push({
      type: "inline",
      target: source.target,
      ...(source.encoding ? { encoding: source.encoding } : {}),
      size_bytes: content.length,
    });
  });
  refuseFileUnderFile(files);
  return { files, summary, remote };
}

function decode(content: string, encoding: string | undefined, where: string): Buffer {
  if (encoding === undefined || encoding === "") return Buffer.from(content, "utf8");
  if (encoding.toLowerCase() !== "base64") {
    throw new InvalidArgumentError(`${where}.encoding "${encoding}" is not supported; use "base64" or leave it out for plain text`);
  }
  const compact = content.replace(/\s+/g, "");
  if (!isBase64(compact)) {
    throw new InvalidArgumentError(`${where}.content is not valid base64 (encoding is "base64")`);
  }
  return Buffer.from(compact, compact.includes("-") || compact.includes("_") ? "base64url" : "base64");
}

/** "workspace/a" and "workspace/a/b" cannot both be files. */
function refuseFileUnderFile(files: SandboxFile[]): void {
  const paths = new Set(files.map((file) => file.path));
  for (const file of files) {
    for (
      let parent = file.path.slice(0, file.path.lastIndexOf("/"));
      parent.length > 0;
      parent = parent.slice(0, parent.lastIndexOf("/"))
    ) {
      if (paths.has(parent)) {
        throw new InvalidArgumentError(`environment.sources: "${parent}" is a file, so "${file.path}" cannot be placed inside it`);
      }
    }
  }
}

/** Content is inline; a `gs://` source is Cloud Storage; any other source a repository (git URL or local path). */
function inferredType(source: SourceInput): string | undefined {
  if (source.content !== undefined) return "inline";
  if (source.source === undefined) return undefined;
  return source.source.startsWith("gs://") ? "gcs" : "repository";
}
