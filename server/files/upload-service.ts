// The environments files API's upload side, the resumable protocol exactly as the SDK speaks it:
//   PUT  /upload/{v}/environments/{env}/files/{path}?overwrite=&extract=   x-goog-upload-command: start
//        → 200 with X-Goog-Upload-URL (this path plus ?upload_id=…)
//   POST <that URL>  x-goog-upload-command: upload | upload, finalize (| query | cancel), x-goog-upload-offset
//        → 200; on finalize {files: [...]}
// Bytes are appended to a staging file in the sandbox as they arrive (at most one batch is held here),
// through the executor as the sandbox user; finalize moves the file into place (or unpacks the archive).
// Also the single-request form of the REST examples: PUT with the bytes as its body and none of the
// x-goog-upload-* headers, answered {files: [...]} (single() below: a start and a finalize in one).

import { randomBytes } from "node:crypto";
import path from "node:path/posix";
import { MAX_FILE_CHUNK_BYTES } from "../../sandbox-image/executor/protocol.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import {
  AbortedError,
  ApiError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
} from "../common/errors.js";
import type { SandboxChannel } from "../sandbox/runtime.js";
import { extractArchive } from "./extract-archive.js";
import { fileApiError } from "./file-errors.js";
import { UPLOAD_STAGING_FOLDER, type FileService } from "./file-service.js";
import { renderFile, type EnvironmentFile } from "./render-file.js";
import { UNWRITABLE_FOLDERS } from "../sandbox/layout.js";

export interface UploadServiceOptions {
  /** EMULATOR_MAX_UPLOAD_BYTES */
  maxUploadBytes: number;
  /** An upload without a chunk for this long is dropped and its staging file removed. */
  idleMs?: number;
  /** Deadline of unpacking one archive. */
  extractTimeoutMs?: number;
}

export interface UploadStart {
  protocol: string | undefined;
  command: string | undefined;
  /** x-goog-upload-header-content-length, as sent. */
  declaredLength: string | undefined;
  overwrite: boolean;
  extract: boolean;
}

export type ChunkOutcome =
  | { status: "active"; received: number }
  | { status: "final"; received: number; files: EnvironmentFile[] }
  | { status: "cancelled"; received: number };

interface UploadSession {
  id: string;
  owner: string;
  environmentId: string;
  /** The path in the API's listed form (from the sandbox root: "workspace/a.txt"). */
  apiPath: string;
  destination: string;
  staging: string;
  declaredLength: number | null;
  received: number;
  overwrite: boolean;
  extract: boolean;
  busy: boolean;
  lastActivity: number;
}

/** Where uploads are staged: the sandbox user's, outside the folders an environment's usage counts. */
const STAGING_FOLDER = UPLOAD_STAGING_FOLDER;
/** Bytes gathered from the request before they are appended in the sandbox. */
const APPEND_BATCH_BYTES = Math.min(1024 * 1024, MAX_FILE_CHUNK_BYTES);
/** Extracted entries described in a finalize response (the rest are counted in the total only). */
const EXTRACT_REPORT_LIMIT = 10_000;
const COMMANDS = new Set(["start", "upload", "finalize", "query", "cancel"]);

export class UploadService {
  private readonly sessions = new Map<string, UploadSession>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly environments: EnvironmentService,
    private readonly files: FileService,
    private readonly options: UploadServiceOptions,
  ) {
    this.sweep = setInterval(() => this.dropIdle(), 60_000);
    this.sweep.unref();
  }

  close(): void {
    clearInterval(this.sweep);
  }

  /** The start request: everything that can be refused is refused here, before a byte is sent. */
  async start(owner: string, environmentId: string, apiPath: string, request: UploadStart): Promise<string> {
    if (request.protocol?.trim().toLowerCase() !== "resumable") {
      throw new InvalidArgumentError(
        `x-goog-upload-protocol must be "resumable" (got ${JSON.stringify(request.protocol ?? null)}); this emulator speaks only the resumable upload protocol.`,
      );
    }
    if (request.command?.trim().toLowerCase() !== "start") {
      throw new InvalidArgumentError(
        `x-goog-upload-command must be "start" on the first request (got ${JSON.stringify(request.command ?? null)}).`,
      );
    }
    const declaredLength = parseLength(request.declaredLength, "x-goog-upload-header-content-length");
    if (declaredLength !== null && declaredLength > this.options.maxUploadBytes) {
      throw tooLarge(declaredLength, this.options.maxUploadBytes);
    }
    const id = randomBytes(18).toString("base64url");
    const staging = `${STAGING_FOLDER}/${id}`;
    return this.files.withPath(owner, environmentId, apiPath, "write", async ({ record, channel, absolute, shown, info }) => {
      if (request.extract) {
        if (info && info.type !== "directory") {
          throw new InvalidArgumentError(`"${shown}" is a file; with extract=true the path names the folder to unpack the archive into.`);
        }
      } else {
        if (absolute === "/")
          throw new InvalidArgumentError("path is empty; give the path of the file to create, e.g. workspace/data.csv.");
        if (info?.type === "directory") {
          throw new InvalidArgumentError(
            `"${shown}" is a folder; upload to a file path inside it (e.g. "${shown}/name"), or pass extract=true to unpack an archive into it.`,
          );
        }
        if (info && !request.overwrite) {
          throw new AbortedError(`"${shown}" already exists in environment ${record.id}; pass overwrite=true to replace it.`);
        }
      }
      await channel.appendFile(staging, 0, Buffer.alloc(0), { create: true });
      this.sessions.set(id, {
        id,
        owner,
        environmentId: record.id,
        apiPath: shown,
        destination: absolute,
        staging,
        declaredLength,
        received: 0,
        overwrite: request.overwrite,
        extract: request.extract,
        busy: false,
        lastActivity: Date.now(),
      });
      return id;
    });
  }

  /**
   * The single-request form the environments page's REST examples send: one PUT whose body is the file
   * (or, with extract, the archive), without the resumable protocol's headers. The same checks, the
   * same staging and the same finish as a resumable upload started and finalized in one go.
   */
  async single(
    owner: string,
    environmentId: string,
    apiPath: string,
    request: { declaredLength: string | undefined; overwrite: boolean; extract: boolean },
    body: AsyncIterable<Buffer>,
  ): Promise<EnvironmentFile[]> {
    const id = await this.start(owner, environmentId, apiPath, { ...request, protocol: "resumable", command: "start" });
    const outcome = await this.chunk(owner, id, { command: "upload, finalize", offset: "0" }, body);
    if (outcome.status !== "final") throw new InternalError(`upload ${id} did not finish in its one request`);
    return outcome.files;
  }

  /** Whether the owner's upload goes on: started, and neither finished, cancelled nor failed. */
  isActive(owner: string, uploadId: string): boolean {
    return this.sessions.get(uploadId)?.owner === owner;
  }

  /** One request to the upload URL. `body` is the request stream (read only for an upload command). */
  async chunk(
    owner: string,
    uploadId: string,
    headers: { command?: string; offset?: string },
    body: AsyncIterable<Buffer>,
  ): Promise<ChunkOutcome> {
    const session = this.sessions.get(uploadId);
    if (!session || session.owner !== owner) {
      throw new NotFoundError(
        `Upload ${uploadId} not found: it finished, was cancelled, failed, or waited too long for its next chunk. Start it again with the PUT request.`,
      );
    }
    const commands = (headers.command ?? "")
      .split(",")
      .map((part) => part.trim().toLowerCase())
      .filter(Boolean);
    const unknown = commands.filter((command) => !COMMANDS.has(command) || command === "start");
    if (commands.length === 0 || unknown.length > 0) {
      throw new InvalidArgumentError(
        `x-goog-upload-command ${JSON.stringify(headers.command ?? "")} is not understood here; send "upload", "upload, finalize", "finalize", "query" or "cancel".`,
      );
    }
    if (session.busy)
      throw new FailedPreconditionError(`Another request of upload ${uploadId} is still being written; send chunks one after the other.`);
    session.busy = true;
    session.lastActivity = Date.now();
    try {
      if (commands.includes("cancel")) {
        await this.discard(session);
        return { status: "cancelled", received: session.received };
      }
      if (commands.includes("query")) return { status: "active", received: session.received };
      if (commands.includes("upload")) {
        const offset = parseLength(headers.offset, "x-goog-upload-offset");
        if (offset === null)
          throw new InvalidArgumentError(
            "x-goog-upload-offset is required with the upload command: the number of bytes sent before this chunk.",
          );
        if (offset !== session.received) {
          throw new InvalidArgumentError(
            `x-goog-upload-offset is ${offset}, but ${session.received} bytes of this upload have arrived; send the bytes from offset ${session.received}.`,
          );
        }
        await this.failing(session, () => this.append(session, body));
      }
      if (!commands.includes("finalize")) return { status: "active", received: session.received };
      const files = await this.failing(session, () => this.finish(session));
      return { status: "final", received: session.received, files };
    } finally {
      session.busy = false;
      session.lastActivity = Date.now();
    }
  }

  /** Any failure of an upload or finalize ends the upload: its staging file is removed, and it must start again. */
  private async failing<T>(session: UploadSession, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await this.discard(session);
      throw error instanceof ApiError ? error : fileApiError(error, session.apiPath, session.environmentId);
    }
  }

  private async channelOf(session: UploadSession): Promise<SandboxChannel> {
    return this.environments.channel(this.environments.getUsable(session.environmentId, session.owner));
  }

  /**
   * Appends the request's bytes in batches, one batch written in the sandbox while the next is read from
   * the request: at most two batches in memory, and the request stream paused while both are taken.
   * Appends go out in order on the one channel, each at the offset the one before ends at (the executor
   * refuses any other), and the upload is not left before the last one has answered.
   */
  private async append(session: UploadSession, body: AsyncIterable<Buffer>): Promise<void> {
    const limit = session.declaredLength ?? this.options.maxUploadBytes;
    await this.environments.using(session.environmentId, async () => {
      const channel = await this.channelOf(session);
      let batch: Buffer[] = [];
      let batched = 0;
      /** Bytes handed to appends: written, or being written. */
      let sent = session.received;
      /** The append under way (a holder: the closure below replaces it). */
      const under = { writing: null as Promise<void> | null };
      const flush = async (): Promise<void> => {
        if (batched === 0) return;
        const content = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
        batch = [];
        batched = 0;
        // The batch before must have been written first: a failed one ends the upload here.
        await under.writing;
        const offset = sent;
        sent += content.length;
        under.writing = channel.appendFile(session.staging, offset, content).then((size) => {
          session.received = size;
        });
        // Awaited by the next flush or at the end; never left to reject unobserved meanwhile.
        under.writing.catch(() => undefined);
      };
      try {
        for await (const chunk of body) {
          if (sent + batched + chunk.length > limit) {
            throw session.declaredLength !== null
              ? new InvalidArgumentError(
                  `The upload is longer than the ${session.declaredLength} bytes announced in x-goog-upload-header-content-length; the upload was cancelled, start it again with the right length.`,
                )
              : tooLarge(sent + batched + chunk.length, this.options.maxUploadBytes);
          }
          batch.push(chunk);
          batched += chunk.length;
          // Awaited while the request stream is paused: memory holds two batches, the rest waits in the socket.
          if (batched >= APPEND_BATCH_BYTES) await flush();
        }
        await flush();
        await under.writing;
      } finally {
        // Whatever ended the loop, the append under way has answered before the upload is let go.
        await under.writing?.catch(() => undefined);
      }
    });
  }

  private async finish(session: UploadSession): Promise<EnvironmentFile[]> {
    if (session.declaredLength !== null && session.received !== session.declaredLength) {
      throw new InvalidArgumentError(
        `The upload was finalized after ${session.received} bytes, but x-goog-upload-header-content-length announced ${session.declaredLength}; the upload was cancelled, start it again.`,
      );
    }
    // The destination is resolved again: a symlink made since the start must not redirect the file.
    const files = await this.files.withPath(
      session.owner,
      session.environmentId,
      session.apiPath,
      "write",
      async ({ channel, absolute, shown, info }) => {
        if (session.extract) return this.unpack(session, channel, absolute, shown);
        if (info?.type === "directory")
          throw new InvalidArgumentError(`"${shown}" became a folder during the upload; upload to a file path inside it.`);
        await channel.moveFile(session.staging, absolute, session.overwrite);
        const placed = await channel.stat(absolute);
        if (!placed.info) throw new InternalError(`"${shown}" vanished right after the upload`);
        this.environments.recordUpload(session.environmentId, absolute);
        return [renderFile(absolute, placed.info)];
      },
    );
    this.sessions.delete(session.id);
    return files;
  }

  private async unpack(session: UploadSession, channel: SandboxChannel, destination: string, shown: string): Promise<EnvironmentFile[]> {
    const outcome = await extractArchive(channel, session.staging, destination, {
      overwrite: session.overwrite,
      forbidden: UNWRITABLE_FOLDERS,
      reportLimit: EXTRACT_REPORT_LIMIT,
      timeoutMs: this.options.extractTimeoutMs ?? 600_000,
    });
    await channel.deleteFile(session.staging, false).catch(() => undefined);
    if (!outcome.ok) {
      const message = `Cannot unpack the archive into "${shown}": ${outcome.message}.`;
      switch (outcome.refusal) {
        case "exists":
          throw new AbortedError(`${message} Pass overwrite=true to replace what is there.`);
        case "permission":
          throw new PermissionDeniedError(message);
        default:
          throw new InvalidArgumentError(message);
      }
    }
    const tops = destination === "/" ? [...new Set(outcome.entries.map((entry) => `/${entry.path.split("/")[0]}`))] : [destination];
    for (const top of tops) this.environments.recordUpload(session.environmentId, top);
    return outcome.entries.map((entry) => renderFile(path.join(destination, entry.path), entry));
  }

  private async discard(session: UploadSession): Promise<void> {
    this.sessions.delete(session.id);
    try {
      const channel = await this.channelOf(session);
      await channel.deleteFile(session.staging, false);
    } catch {
      // Gone with its environment, or never created: nothing to clean.
    }
  }

  private dropIdle(now = Date.now()): void {
    const idleMs = this.options.idleMs ?? 3_600_000;
    for (const session of this.sessions.values()) {
      if (!session.busy && now - session.lastActivity > idleMs) void this.discard(session);
    }
  }
}

function parseLength(value: string | undefined, header: string): number | null {
  if (value === undefined || value.trim() === "") return null;
  if (!/^\d+$/.test(value.trim()))
    throw new InvalidArgumentError(`${header} ${JSON.stringify(value)} is not a byte count; send a non-negative integer.`);
  const length = Number(value.trim());
  if (!Number.isSafeInteger(length)) throw new InvalidArgumentError(`${header} ${value} is out of range.`);
  return length;
}

function tooLarge(length: number, max: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The upload is ${length} bytes, more than this emulator accepts (EMULATOR_MAX_UPLOAD_BYTES = ${max}); raise that setting, or split the file and upload the parts.`,
  );
}
