// The environments files API's reading side: listing (GET …/files/{path}) and downloading
// (?alt=media). Every request names a path (sandbox-path.ts: from /workspace or, starting with a root folder, from the root), is resolved inside the sandbox,
// and runs through the environment's executor channel as the sandbox user. Downloads stream in chunks,
// so a large file never sits whole in memory.

import path from "node:path/posix";
import { MAX_FILE_CHUNK_BYTES } from "../../sandbox-image/executor/protocol.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError, PermissionDeniedError } from "../common/errors.js";
import { SandboxFileError, type FileInfo, type SandboxChannel } from "../sandbox/runtime.js";
import type { EnvironmentRecord } from "../environments/environment-store.js";
import { fileApiError } from "./file-errors.js";
import { mimeTypeOf } from "./mime-types.js";
import { renderFile, type EnvironmentFile } from "./render-file.js";
import { PSEUDO_FOLDERS, UNWRITABLE_FOLDERS } from "../sandbox/layout.js";
import { measureFolderArchive, writeFolderArchive, type FolderArchiveOptions } from "./folder-archive.js";
import { apiPathOf, checkReach, parseFilePath, type Access } from "./sandbox-path.js";
import { decodePageToken, encodePageToken } from "../common/page-token.js";

export interface FileServiceOptions {
  /** EMULATOR_MAX_DOWNLOAD_BYTES */
  maxDownloadBytes: number;
}

export interface ListOptions {
  recursive: boolean;
  pageSize: number;
  pageToken?: string;
}

/**
 * Where a download goes: begin() once with the headers' facts (no size for a folder's archive, whose
 * length is known only once sent), then write() each chunk (resolves when it may continue).
 */
export interface DownloadSink {
  begin(meta: { name: string; size?: number; mimeType: string }): void;
  write(chunk: Buffer): Promise<void>;
}

/** A files API path, resolved in its environment's sandbox. */
export interface PathContext {
  record: EnvironmentRecord;
  channel: SandboxChannel;
  /** The absolute path in the sandbox, as the caller named it (symlinks not resolved). */
  absolute: string;
  /** The path as the caller gave it, normalised: for messages. */
  shown: string;
  /** What it names, symlinks followed; null when nothing is there yet. */
  info: FileInfo | null;
}

export interface DownloadOptions {
  /** For a folder: its subfolders' contents too. */
  recursive: boolean;
}

/** Where uploads are staged in the sandbox (upload-service.ts): never part of a folder's archive. */
export const UPLOAD_STAGING_FOLDER = "/tmp/.emulator-uploads";

/** Bytes per chunk read from the sandbox during a download. */
const DOWNLOAD_CHUNK_BYTES = Math.min(1024 * 1024, MAX_FILE_CHUNK_BYTES);

export class FileService {
  constructor(
    private readonly environments: EnvironmentService,
    private readonly options: FileServiceOptions,
  ) {}

  /**
   * Runs `work` on the environment's channel with the path resolved and its reach checked; every failure
   * becomes the API error that names the path as the caller gave it.
   */
  async withPath<T>(
    owner: string,
    environmentId: string,
    apiPath: string,
    access: Access,
    work: (context: PathContext) => Promise<T>,
  ): Promise<T> {
    const absolute = parseFilePath(apiPath);
    const shown = apiPathOf(absolute);
    const record = this.environments.getUsable(environmentId, owner);
    return this.environments.using(record.id, async () => {
      try {
        const channel = await this.environments.channel(record);
        const { info, realPath } = await channel.stat(absolute);
        checkReach(realPath, access, shown);
        return await work({ record, channel, absolute, shown, info });
      } catch (error) {
        throw fileApiError(error, shown, record.id);
      }
    });
  }

  async list(
    owner: string,
    environmentId: string,
    apiPath: string,
    options: ListOptions,
  ): Promise<{ files: EnvironmentFile[]; next_page_token: string }> {
    return this.withPath(owner, environmentId, apiPath, "read", async ({ record, channel, absolute, shown, info }) => {
      if (!info) throw new NotFoundError(`"${shown}" not found in environment ${record.id}.`);
      const after =
        options.pageToken === undefined || options.pageToken === "" ? undefined : afterOf(options.pageToken, absolute, options.recursive);
      // A folder is listed by its contents, a file by itself (as the SDK's typings describe the response):
      // the walk's first entry, the folder itself, is fetched in one more and left out.
      const skipsSelf = info.type === "directory" && after === undefined;
      const page = await channel
        .walk(absolute, {
          recursive: options.recursive,
          limit: options.pageSize + (skipsSelf ? 1 : 0),
          ...(after !== undefined ? { after } : {}),
          exclude: PSEUDO_FOLDERS,
        })
        .catch(unreadable(`"${shown}" is a folder the sandbox user may not read, so it cannot be listed`));
      const last = page.entries.at(-1);
      const files = page.entries
        .filter((entry) => !(skipsSelf && entry.path === ""))
        .map((entry) => renderFile(path.join(absolute, entry.path), entry));
      return {
        files,
        next_page_token:
          page.more && last ? encodePageToken({ p: absolute, r: options.recursive, a: last.path } satisfies ListPosition) : "",
      };
    });
  }

  /** A file's bytes, or a folder (the root too) as a tar archive of what the sandbox user may read. */
  async download(owner: string, environmentId: string, apiPath: string, sink: DownloadSink, options: DownloadOptions): Promise<void> {
    await this.withPath(owner, environmentId, apiPath, "read", async ({ record, channel, absolute, shown, info }) => {
      if (!info) throw new NotFoundError(`"${shown}" not found in environment ${record.id}.`);
      if (info.type === "directory") {
        await this.downloadFolder(channel, absolute, shown, sink, options);
        return;
      }
      if (info.type !== "file") throw new InvalidArgumentError(`"${shown}" is not a regular file (it is a FIFO, socket or device).`);
      this.checkDownloadSize(shown, info.size);
      // The first chunk is read before anything is sent: opening the file as the sandbox user is what
      // proves it readable, so a file that user may not read is a 403, never a 200 cut off after the headers.
      const first = await channel
        .readFileChunk(absolute, 0, Math.min(DOWNLOAD_CHUNK_BYTES, info.size))
        .catch(unreadable(`"${shown}" is a file the sandbox user may not read, so it cannot be downloaded`));
      const size = first.size;
      this.checkDownloadSize(shown, size);
      sink.begin({ name: path.basename(absolute), size, mimeType: mimeTypeOf(path.basename(absolute)) });
      for (let offset = 0, content = first.content; offset < size; ) {
        // Shrunk while being sent: the response cannot be completed truthfully.
        if (content.length === 0) throw new Error(`"${shown}" shrank to ${offset} bytes during the download`);
        await sink.write(content);
        offset += content.length;
        if (offset < size) ({ content } = await channel.readFileChunk(absolute, offset, Math.min(DOWNLOAD_CHUNK_BYTES, size - offset)));
      }
    });
  }

  private async downloadFolder(
    channel: SandboxChannel,
    absolute: string,
    shown: string,
    sink: DownloadSink,
    options: DownloadOptions,
  ): Promise<void> {
    const archive: FolderArchiveOptions = {
      recursive: options.recursive,
      // The root's archive is the environment's files: the operating system's and the emulator's folders are left out.
      exclude: [...(absolute === "/" ? UNWRITABLE_FOLDERS : PSEUDO_FOLDERS), UPLOAD_STAGING_FOLDER],
      chunkBytes: DOWNLOAD_CHUNK_BYTES,
    };
    const max = this.options.maxDownloadBytes;
    // Measured first (and the folder proved readable): a refusal is an ordinary JSON answer, never a cut-off archive.
    const measured = await measureFolderArchive(channel, absolute, archive, max).catch(
      unreadable(`"${shown || "/"}" is a folder the sandbox user may not read, so it cannot be downloaded`),
    );
    if (measured.bytes > max) {
      throw new FailedPreconditionError(
        `The archive of "${shown || "/"}" would be more than ${max} bytes, more than this emulator downloads (EMULATOR_MAX_DOWNLOAD_BYTES); ` +
          "raise that setting, or download its subfolders (or without recursive=true) one by one.",
      );
    }
    const name = absolute === "/" ? "environment.tar" : `${path.basename(absolute)}.tar`;
    sink.begin({ name, mimeType: "application/x-tar" });
    await writeFolderArchive(channel, absolute, archive, max, (chunk) => sink.write(chunk));
  }

  private checkDownloadSize(shown: string, size: number): void {
    if (size > this.options.maxDownloadBytes) {
      throw new FailedPreconditionError(
        `"${shown}" is ${size} bytes, more than this emulator downloads (EMULATOR_MAX_DOWNLOAD_BYTES = ${this.options.maxDownloadBytes}); ` +
          "raise that setting, or split the file in the sandbox first (e.g. with split) and download the parts.",
      );
    }
  }
}

/**
 * A permission refusal from the sandbox as a 403 that says what was refused and why; anything else goes
 * on to the usual mapping. Tools and the files API act as the sandbox user (uid 1000), and the
 * operating system's permissions decide what that user may read (docs/environments-and-files.md).
 */
function unreadable(what: string): (error: unknown) => never {
  return (error: unknown) => {
    if (error instanceof SandboxFileError && (error.code === "EACCES" || error.code === "EPERM")) {
      throw new PermissionDeniedError(
        `${what} (${error.message}). Files and folders are read as the sandbox user (uid 1000), whom the file's permissions must allow; change them with code_execution (chmod) if the file is yours.`,
      );
    }
    throw error;
  };
}

/** Where the next page of one listing starts; the token also names the listing it belongs to. */
interface ListPosition {
  p: string;
  r: boolean;
  a: string;
}

const isListPosition = (value: unknown): value is ListPosition => {
  const candidate = value as Partial<ListPosition> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.p === "string" &&
    typeof candidate.r === "boolean" &&
    typeof candidate.a === "string"
  );
};

function afterOf(token: string, absolute: string, recursive: boolean): string {
  const position = decodePageToken(token, isListPosition);
  if (position.p !== absolute || position.r !== recursive) {
    throw new InvalidArgumentError(
      "page_token belongs to another listing; pass the same path and recursive as the request that returned it.",
    );
  }
  return position.a;
}
