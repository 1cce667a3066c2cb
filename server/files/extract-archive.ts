// Unpacking an uploaded archive (tar, tar.gz, tar.bz2, tar.xz or zip) into a folder, inside the sandbox
// as the sandbox user, with the image's python3 (tarfile and zipfile), all or nothing: the archive is
// unpacked into a staging folder beside the target, every entry and every symlink's physical target is
// checked there (absolute names, "..", symlinks leading out however they chain, writing through a
// symlink that leads out, system folders, special files, and without overwrite an existing file), and
// only a fully valid tree is moved into place (extract-script.ts). A refused archive leaves nothing;
// the staging folder of a run that was killed (its deadline, the disk guard) is removed here.

import type { CommandResult, SandboxChannel, TreeEntry } from "../sandbox/runtime.js";
import { EXTRACT_REFUSED, EXTRACT_SCRIPT } from "./extract-script.js";

export type ExtractRefusal = "escape" | "unsupported" | "format" | "exists" | "conflict" | "permission" | "io";

export type ExtractOutcome = { ok: true; entries: TreeEntry[]; total: number } | { ok: false; refusal: ExtractRefusal; message: string };

export interface ExtractOptions {
  overwrite: boolean;
  /** Absolute folders no entry may land in. */
  forbidden: string[];
  /** At most this many extracted entries are described. */
  reportLimit: number;
  timeoutMs: number;
}

export async function extractArchive(
  channel: SandboxChannel,
  archive: string,
  destination: string,
  options: ExtractOptions,
): Promise<ExtractOutcome> {
  const result: CommandResult = await channel.run({
    argv: [
      "python3",
      "-c",
      EXTRACT_SCRIPT,
      archive,
      destination,
      options.overwrite ? "1" : "0",
      JSON.stringify(options.forbidden),
      String(options.reportLimit),
    ],
    cwd: "/",
    timeoutMs: options.timeoutMs,
    maxOutputBytes: 32 * 1024 * 1024,
  });
  const lines = result.stdout.toString("utf8").trim().split("\n");
  const report = parseLine(lines.at(-1));
  if (
    result.exitCode === EXTRACT_REFUSED &&
    isObject(report) &&
    typeof report["error"] === "string" &&
    typeof report["message"] === "string"
  ) {
    return { ok: false, refusal: report["error"] as ExtractRefusal, message: report["message"] };
  }
  if (result.exitCode === 0 && isObject(report) && Array.isArray(report["entries"]) && typeof report["total"] === "number") {
    return { ok: true, entries: report["entries"] as TreeEntry[], total: report["total"] };
  }
  // The script removes its staging folder whatever happens, unless it was killed before it could.
  const started = parseLine(lines[0]);
  if (isObject(started) && typeof started["staging"] === "string" && /\/\.emulator-extract-[^/]+$/.test(started["staging"])) {
    await channel.deleteFile(started["staging"], true).catch(() => undefined);
  }
  const why = result.timedOut ? `it took longer than ${options.timeoutMs} ms` : `exit status ${result.exitCode ?? result.signal}`;
  throw new Error(`unpacking the archive failed (${why}): ${result.stderr.toString("utf8").trim().slice(-2000)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseLine(line: string | undefined): unknown {
  try {
    return JSON.parse(line ?? "");
  } catch {
    return null;
  }
}
