// Unpacking an uploaded archive (tar, tar.gz, tar.bz2, tar.xz or zip) into a folder, inside the sandbox
// as the sandbox user, with the image's python3 (tarfile and zipfile): every entry is checked first, and
// an archive with any entry that would leave the folder (absolute names, "..", symlinks pointing out,
// writing through an existing symlink that leads out, system folders), a special file, or (without
// overwrite) an existing file is refused before anything is written. Files are never written through a
// symlink (O_NOFOLLOW | O_EXCL after removing what overwrite replaces); setuid bits are dropped.

import type { CommandResult, SandboxChannel, TreeEntry } from "../sandbox/runtime.js";

/** Exit status of the script for a refusal; its last stdout line is then {"error", "message"}. */
const REFUSED = 3;

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
  const lastLine = result.stdout.toString("utf8").trim().split("\n").at(-1) ?? "";
  let report: unknown = null;
  try {
    report = JSON.parse(lastLine);
  } catch {
    // described below
  }
  if (result.exitCode === REFUSED && isObject(report) && typeof report["error"] === "string" && typeof report["message"] === "string") {
    return { ok: false, refusal: report["error"] as ExtractRefusal, message: report["message"] };
  }
  if (result.exitCode === 0 && isObject(report) && Array.isArray(report["entries"]) && typeof report["total"] === "number") {
    return { ok: true, entries: report["entries"] as TreeEntry[], total: report["total"] };
  }
  const why = result.timedOut ? `it took longer than ${options.timeoutMs} ms` : `exit status ${result.exitCode ?? result.signal}`;
  throw new Error(`unpacking the archive failed (${why}): ${result.stderr.toString("utf8").trim().slice(-2000)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Run as `python3 -c EXTRACT_SCRIPT archive destination overwrite(0|1) forbidden-json report-limit`. */
// biome-ignore lint/complexity/noUselessStringRaw: Python source; raw, so a backslash added later reaches Python as written
const EXTRACT_SCRIPT = String.raw`
import json, os, posixpath, shutil, stat, sys, tarfile, time, zipfile, zlib

archive, dest, overwrite, forbidden, report_limit = sys.argv[1], sys.argv[2], sys.argv[3] == "1", json.loads(sys.argv[4]), int(sys.argv[5])


def refuse(kind, message):
    print(json.dumps({"error": kind, "message": message}))
    sys.exit(3)


def under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def clean(name, what):
    if name.startswith("/"):
        refuse("escape", what + " " + json.dumps(name) + " is an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        refuse("escape", what + " " + json.dumps(name) + ' contains ".."')
    return "/".join(parts)


real_dest = os.path.realpath(dest)


def check_place(rel, name):
    """The entry's folder, with every symlink that exists now followed, must stay inside the target folder."""
    target = posixpath.join(real_dest, rel)
    parent = os.path.realpath(posixpath.dirname(target))
    if not under(parent, real_dest):
        refuse("escape", "entry " + json.dumps(name) + " would be written through a symlink to " + parent + ", outside the target folder")
    for folder in forbidden:
        if under(target, folder) or under(parent, folder):
            refuse("escape", "entry " + json.dumps(name) + " lands in " + folder + ", a system folder")
    return target


def check_link(rel, name, link):
    if link.startswith("/"):
        refuse("escape", "symlink " + json.dumps(name) + " points to the absolute path " + json.dumps(link))
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rel), link))
    if resolved == ".." or resolved.startswith("../"):
        refuse("escape", "symlink " + json.dumps(name) + " points outside the target folder (" + json.dumps(link) + ")")


class Entry:
    def __init__(self, name, kind, mode=0o644, mtime=None, link=None, opener=None):
        self.name, self.kind, self.mode, self.mtime, self.link, self.opener = name, kind, mode, mtime, link, opener
        self.rel = clean(name, "entry")


def tar_entries():
    try:
        archive_file = tarfile.open(archive, "r:*")
        members = archive_file.getmembers()
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        refuse("format", "the upload is not a tar, tar.gz, tar.bz2, tar.xz or zip archive, or it is damaged (" + type(error).__name__ + ")")
    entries = []
    for member in members:
        if member.isdir():
            entries.append(Entry(member.name, "dir", member.mode, member.mtime))
        elif member.isreg():
            entries.append(Entry(member.name, "file", member.mode, member.mtime, opener=lambda m=member: archive_file.extractfile(m)))
        elif member.issym():
            entries.append(Entry(member.name, "symlink", member.mode, member.mtime, link=member.linkname))
        elif member.islnk():
            entries.append(Entry(member.name, "hardlink", member.mode, member.mtime, link=clean(member.linkname, "hard link target")))
        else:
            refuse("unsupported", "entry " + json.dumps(member.name) + " is a device, FIFO or other special file; archives may hold files, folders and links only")
    return entries


def zip_entries():
    try:
        archive_file = zipfile.ZipFile(archive)
        infos = archive_file.infolist()
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        refuse("format", "the upload is a damaged zip archive (" + str(error) + ")")
    entries = []
    for info in infos:
        mode = (info.external_attr >> 16) & 0xFFFF
        mtime = time.mktime(info.date_time + (0, 0, -1))
        if info.is_dir():
            entries.append(Entry(info.filename, "dir", mode & 0o777 or 0o755, mtime))
        elif stat.S_ISLNK(mode):
            entries.append(Entry(info.filename, "symlink", 0o777, mtime, link=archive_file.read(info).decode("utf-8")))
        else:
            entries.append(Entry(info.filename, "file", mode & 0o777 or 0o644, mtime, opener=lambda i=info: archive_file.open(i)))
    return entries


entries = zip_entries() if zipfile.is_zipfile(archive) else tar_entries()

# Every entry is checked before anything is written: a refused archive changes nothing.
planned = {}
for entry in entries:
    if entry.rel == "":
        if entry.kind != "dir":
            refuse("escape", "entry " + json.dumps(entry.name) + " names the target folder itself")
        continue
    check_place(entry.rel, entry.name)
    if entry.kind == "symlink":
        check_link(entry.rel, entry.name, entry.link)
    if entry.kind == "hardlink" and planned.get(entry.link) != "file":
        refuse("unsupported", "hard link " + json.dumps(entry.name) + " must point to a regular file earlier in the archive")
    target = posixpath.join(dest, entry.rel)
    existing = os.path.lexists(target)
    is_folder = existing and os.path.isdir(target) and not os.path.islink(target)
    if entry.kind == "dir":
        if existing and not is_folder and not overwrite:
            refuse("exists", json.dumps(entry.rel) + " already exists and is not a folder; pass overwrite=true to replace it")
    else:
        if is_folder or planned.get(entry.rel) == "dir":
            refuse("conflict", json.dumps(entry.rel) + " is a folder, so the archive's " + entry.kind + " cannot replace it")
        if (existing or entry.rel in planned) and not overwrite:
            refuse("exists", json.dumps(entry.rel) + " already exists; pass overwrite=true to replace it")
    planned[entry.rel] = "dir" if entry.kind == "dir" else "file" if entry.kind in ("file", "hardlink") else entry.kind

extracted = []
try:
    os.makedirs(dest, exist_ok=True)
    for entry in entries:
        if entry.rel == "":
            continue
        # Checked again now: an earlier entry of this archive may have changed what the path leads to.
        check_place(entry.rel, entry.name)
        target = posixpath.join(dest, entry.rel)
        os.makedirs(posixpath.dirname(target), exist_ok=True)
        if entry.kind == "dir":
            if os.path.lexists(target) and not (os.path.isdir(target) and not os.path.islink(target)):
                os.unlink(target)
            os.makedirs(target, exist_ok=True)
        else:
            if os.path.lexists(target):
                os.unlink(target)
            if entry.kind == "file":
                # O_EXCL | O_NOFOLLOW: never written through a symlink, whatever appeared meanwhile.
                descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                with os.fdopen(descriptor, "wb") as out, entry.opener() as source:
                    shutil.copyfileobj(source, out, 1024 * 1024)
                os.chmod(target, (entry.mode & 0o755) | 0o600)
            elif entry.kind == "symlink":
                os.symlink(entry.link, target)
            else:
                os.link(posixpath.join(dest, entry.link), target, follow_symlinks=False)
            if entry.mtime is not None:
                os.utime(target, (entry.mtime, entry.mtime), follow_symlinks=False)
        if entry.rel not in extracted:
            extracted.append(entry.rel)
except PermissionError as error:
    refuse("permission", str(error))
except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, UnicodeDecodeError) as error:
    refuse("io", str(error))


def describe(rel):
    info = os.lstat(posixpath.join(dest, rel))
    kind = "directory" if stat.S_ISDIR(info.st_mode) else "file" if stat.S_ISREG(info.st_mode) else "symlink" if stat.S_ISLNK(info.st_mode) else "other"
    return {"path": rel, "type": kind, "size": 0 if kind == "directory" else info.st_size, "mtimeMs": int(info.st_mtime * 1000), "birthtimeMs": int(info.st_ctime * 1000)}


print(json.dumps({"entries": [describe(rel) for rel in extracted[:report_limit]], "total": len(extracted)}))
`;
