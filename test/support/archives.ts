// Archives built in memory for upload tests (no host tools): tar.gz through tar-stream and zlib, and a
// minimal stored (uncompressed) zip writer. Entry names are written exactly as given, "../x" included.
// And the reverse for tests of what the emulator packs: a tar read back into its entries.

import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { extract } from "tar-stream";
import { tarBuffer } from "../../server/common/tar.js";

export interface ArchiveEntry {
  name: string;
  content?: Buffer | string;
  /** "link" is a hard link to `linkname`, an earlier entry of the archive (tar only). */
  type?: "file" | "directory" | "symlink" | "link";
  linkname?: string;
  mode?: number;
}

export async function tarGz(entries: ArchiveEntry[]): Promise<Buffer> {
  return gzipSync(await tar(entries));
}

/** A plain (uncompressed) tar. */
export async function tar(entries: ArchiveEntry[]): Promise<Buffer> {
  const mtime = new Date();
  return tarBuffer(
    entries.map((entry) => {
      const type = entry.type ?? "file";
      const content = entry.content === undefined ? undefined : Buffer.from(entry.content);
      return {
        header: {
          name: entry.name,
          type,
          mode: entry.mode ?? (type === "directory" ? 0o755 : 0o644),
          mtime,
          ...(entry.linkname !== undefined ? { linkname: entry.linkname } : {}),
          ...(content ? { size: content.length } : {}),
        },
        ...(content ? { content } : {}),
      };
    }),
  );
}

const CRC_TABLE = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A zip with every entry stored; folders end with "/", symlinks hold their target as content. */
export function zip(entries: ArchiveEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const type = entry.type ?? "file";
    const name = Buffer.from(type === "directory" && !entry.name.endsWith("/") ? `${entry.name}/` : entry.name, "utf8");
    const data = type === "symlink" ? Buffer.from(entry.linkname ?? "") : Buffer.from(entry.content ?? "");
    const mode =
      (type === "directory" ? 0o040000 : type === "symlink" ? 0o120000 : 0o100000) | (entry.mode ?? (type === "directory" ? 0o755 : 0o644));
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made on Unix: external attributes hold the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((mode << 16) | (type === "directory" ? 0x10 : 0)) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export interface TarEntryRead {
  mode: number;
  uid: number;
  content: string;
}

/** The entries of a tar, by name, with their mode, owner and content as UTF-8 text. */
export async function readTar(tar: Buffer): Promise<Map<string, TarEntryRead>> {
  const out = new Map<string, TarEntryRead>();
  await new Promise<void>((resolve, reject) => {
    const reader = extract();
    reader.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on("end", () => {
        out.set(header.name, { mode: header.mode ?? 0, uid: header.uid ?? -1, content: Buffer.concat(chunks).toString("utf8") });
        next();
      });
    });
    reader.on("finish", resolve);
    reader.on("error", reject);
    Readable.from([tar]).pipe(reader);
  });
  return out;
}
