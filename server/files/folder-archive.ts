// A folder of a sandbox as a tar archive, streamed: what `?alt=media` answers for a folder (and the
// root, and the deprecated files/environment-{id}:download snapshot). The folder is walked twice: once
// to measure the archive, so that one larger than EMULATOR_MAX_DOWNLOAD_BYTES is refused before a byte
// is sent, once to send it. Files are read in chunks as they are sent, so no file sits whole in memory.
// Regular files and folders go in; symlinks and special files do not, nor what the sandbox user may not
// read (a file that cannot be opened, a folder that cannot be entered): the archive is what that user sees.

import path from "node:path/posix";
import { pack, type Header, type Pack } from "tar-stream";
import { isWithin } from "../common/paths.js";
import { SandboxFileError, type SandboxChannel, type TreeEntry } from "../sandbox/runtime.js";

export interface FolderArchiveOptions {
  /** Subfolders' contents too; without it, the folder's own files and its subfolders as empty folders. */
  recursive: boolean;
  /** Absolute folders left out, with everything in them. */
  exclude: readonly string[];
  /** Bytes per read from the sandbox. */
  chunkBytes: number;
}

type Sink = ReturnType<Pack["entry"]>;

/** Entries asked of the sandbox per walk request. */
const WALK_PAGE = 2000;
const BLOCK = 512;

/** Every entry under `folder` (not the folder itself) that goes into the archive, page by page. */
async function* entriesOf(channel: SandboxChannel, folder: string, options: FolderArchiveOptions): AsyncGenerator<TreeEntry> {
  let after: string | undefined;
  for (;;) {
    const page = await channel.walk(folder, {
      recursive: options.recursive,
      limit: WALK_PAGE,
      exclude: [...options.exclude],
      ...(after !== undefined ? { after } : {}),
    });
    for (const entry of page.entries) {
      if (entry.path === "") continue;
      if (entry.type !== "file" && entry.type !== "directory") continue;
      if (options.exclude.some((excluded) => isWithin(path.join(folder, entry.path), excluded))) continue;
      yield entry;
    }
    const last = page.entries.at(-1);
    if (!page.more || !last) return;
    after = last.path;
  }
}

/** The archive's size in bytes as tar-stream writes it (a long name adds a pax header), the end blocks included. */
export async function measureFolderArchive(
  channel: SandboxChannel,
  folder: string,
  options: FolderArchiveOptions,
  stopAbove: number,
): Promise<{ entries: number; bytes: number }> {
  let bytes = 2 * BLOCK;
  let entries = 0;
  for await (const entry of entriesOf(channel, folder, options)) {
    entries++;
    bytes += headerBytes(entry) + (entry.type === "file" ? roundUp(entry.size) : 0);
    if (bytes > stopAbove) break;
  }
  return { entries, bytes };
}

/**
 * Sends the archive to `write` (resolves when it may continue). Rejects when the sandbox fails, a file
 * shrinks while it is read, the archive grows past `maxBytes` (files grew since it was measured), or
 * `write` rejects (the client went away).
 */
export async function writeFolderArchive(
  channel: SandboxChannel,
  folder: string,
  options: FolderArchiveOptions,
  maxBytes: number,
  write: (chunk: Buffer) => Promise<void>,
): Promise<void> {
  const archive = pack();
  let sent = 0;
  const consumer = (async () => {
    for await (const chunk of archive as AsyncIterable<Buffer>) {
      sent += chunk.length;
      if (sent > maxBytes) throw new Error(`the archive grew past ${maxBytes} bytes while it was sent`);
      await write(chunk);
    }
  })();
  // Whichever side fails first ends both: the producer stops waiting on an archive nobody reads.
  let failure: unknown = null;
  const consumed = consumer.catch((error: unknown) => {
    failure ??= error;
    archive.destroy(error as Error);
  });
  try {
    for await (const entry of entriesOf(channel, folder, options)) {
      if (failure !== null) break;
      const name = entry.type === "directory" ? `${entry.path}/` : entry.path;
      const mtime = new Date(entry.mtimeMs);
      if (entry.type === "directory") {
        await addEntry(archive, { name, type: "directory", mode: 0o755, mtime }).done;
        continue;
      }
      const absolute = path.join(folder, entry.path);
      const first = await channel.readFileChunk(absolute, 0, Math.min(options.chunkBytes, entry.size)).catch(skipUnreadable);
      if (first === null) continue;
      const { sink, done } = addEntry(archive, { name, type: "file", mode: 0o644, mtime, size: first.size });
      let offset = 0;
      let content = first.content;
      while (offset < first.size) {
        if (content.length === 0) throw new Error(`"${absolute}" shrank to ${offset} bytes while it was archived`);
        const piece = content.subarray(0, first.size - offset);
        await writeTo(sink, piece);
        offset += piece.length;
        if (offset < first.size) {
          ({ content } = await channel.readFileChunk(absolute, offset, Math.min(options.chunkBytes, first.size - offset)));
        }
      }
      sink.end(Buffer.alloc(0));
      await done;
    }
    if (failure === null) archive.finalize();
  } catch (error) {
    failure ??= error;
    archive.destroy(error as Error);
  }
  await consumed;
  if (failure !== null) throw failure;
}

/** A file the sandbox user may not open, or that went away since the walk: left out. */
function skipUnreadable(error: unknown): null {
  if (error instanceof SandboxFileError && ["EACCES", "EPERM", "ENOENT", "ENOTDIR", "EISDIR"].includes(error.code)) return null;
  throw error;
}

/** An entry begun in the archive, and when it is wholly written (rejects when the archive is destroyed). */
function addEntry(archive: Pack, header: Partial<Header> & { name: string }): { sink: Sink; done: Promise<void> } {
  let sink: Sink | undefined;
  const done = new Promise<void>((resolve, reject) => {
    sink = archive.entry(header, (error) => (error ? reject(error) : resolve()));
  });
  // Awaited by the caller unless it fails first: never an unhandled rejection.
  done.catch(() => undefined);
  return { sink: sink!, done };
}

/** Writes a chunk of an entry, waiting while the archive is not read; rejects when the entry is destroyed. */
function writeTo(sink: Sink, chunk: Buffer): Promise<void> {
  if (sink.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      sink.off("close", onClose);
      resolve();
    };
    const onClose = (): void => {
      sink.off("drain", onDrain);
      reject(new Error("the archive was closed"));
    };
    sink.once("drain", onDrain);
    sink.once("close", onClose);
  });
}

function headerBytes(entry: TreeEntry): number {
  // tar-stream writes a pax header (a header block and the record, rounded up) for a name that does not
  // fit ustar's 100 + 155 bytes: counted generously as 3 blocks, with the record's name length.
  const name = Buffer.byteLength(entry.path) + 1;
  return BLOCK + (name > 99 ? 2 * BLOCK + roundUp(name + 32) : 0);
}

function roundUp(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}
