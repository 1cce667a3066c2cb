// The Python program that unpacks an archive inside the sandbox as the sandbox user (extract-archive.ts
// runs it). All or nothing: the archive is unpacked into a staging folder beside the target (on the
// same file system, so the final move is renames), every entry and every symlink's physical target is
// checked against the tree the target will hold once the move is done, and only a fully valid tree is
// moved into place; a refused archive leaves nothing, the staging folder included.
//
// The checks work on the *merged view*: the staged tree laid over the target folder as the move will
// lay it (a staged folder merges with an existing folder; anything else replaces what is there). A
// path is resolved in that view one name at a time, every symlink followed (the staged ones and the
// target's own), so "c -> ." followed by "a -> c/.." is seen to lead out of the target however the
// entries are ordered. Entries are written at the path they resolve to, never through a symlink, so
// the staging folder holds only real folders, files and the archive's symlinks.

/** Exit status of the script for a refusal; its last stdout line is then {"error", "message"}. */
export const EXTRACT_REFUSED = 3;

/**
 * Run as `python3 -c EXTRACT_SCRIPT archive destination overwrite(0|1) forbidden-json report-limit`.
 * Its first stdout line is {"staging": path} once the staging folder exists (so a killed run's folder
 * can be removed by the caller); its last line the outcome.
 */
// biome-ignore lint/complexity/noUselessStringRaw: Python source; raw, so a backslash added later reaches Python as written
export const EXTRACT_SCRIPT = String.raw`
import errno, json, os, posixpath, shutil, stat, sys, tarfile, tempfile, time, zipfile, zlib

archive, dest, overwrite, forbidden, report_limit = sys.argv[1], sys.argv[2], sys.argv[3] == "1", json.loads(sys.argv[4]), int(sys.argv[5])
MAX_LINK_HOPS = 40


class Refusal(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind, self.message = kind, message


def refuse(kind, message):
    raise Refusal(kind, message)


def under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def clean(name, what):
    if name.startswith("/"):
        refuse("escape", what + " " + json.dumps(name) + " is an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        refuse("escape", what + " " + json.dumps(name) + ' contains ".."')
    return "/".join(parts)


def lstat_or_none(path):
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def is_real_dir(path):
    info = lstat_or_none(path)
    return info is not None and stat.S_ISDIR(info.st_mode)


def kind_of(info):
    return "dir" if stat.S_ISDIR(info.st_mode) else "symlink" if stat.S_ISLNK(info.st_mode) else "file"


real_dest = os.path.realpath(dest)
staging = None


def join(root, parts):
    return posixpath.join(root, *parts) if parts else root


shown_cache = {}


def target_shows(parts):
    """Whether the target's own entries below the folder at parts stay in the merged view: a real folder all the way."""
    key = tuple(parts)
    if key not in shown_cache:
        shown_cache[key] = (not parts or target_shows(parts[:-1])) and is_real_dir(join(real_dest, parts))
    return shown_cache[key]


def lookup(parts):
    """What the merged view holds at parts (no symlink on the way): (kind, link text), or None."""
    path = join(staging, parts)
    info = lstat_or_none(path)
    if info is None:
        if not target_shows(parts[:-1]):
            return None
        path = join(real_dest, parts)
        if path == staging:
            return None
        info = lstat_or_none(path)
        if info is None:
            return None
    kind = kind_of(info)
    return (kind, os.readlink(path) if kind == "symlink" else None)


def resolve(parts, what):
    """Where parts lead in the merged view: ("inside", parts without symlinks), ("through-file", the file's parts) or ("outside", None)."""
    pending = list(reversed(parts))
    done = []
    hops = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if done:
                done.pop()
            elif real_dest != "/":
                return ("outside", None)
            continue
        found = lookup(done + [part])
        if found is not None and found[0] == "symlink":
            hops += 1
            if hops > MAX_LINK_HOPS:
                refuse("unsupported", what + " goes through more than " + str(MAX_LINK_HOPS) + " symlinks (a loop of symlinks?)")
            link = found[1]
            if link.startswith("/"):
                # Only the target's own symlinks can be absolute (the archive's are refused): where it leads now.
                lexical = posixpath.normpath(link)
                physical = lexical if under(lexical, real_dest) else os.path.realpath(lexical)
                if not under(physical, real_dest):
                    return ("outside", None)
                done = [p for p in posixpath.relpath(physical, real_dest).split("/") if p not in ("", ".")]
            else:
                pending.extend(reversed(link.split("/")))
            continue
        done.append(part)
        if found is not None and found[0] != "dir" and any(p not in ("", ".") for p in pending):
            return ("through-file", done)
    return ("inside", done)


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


def make_staging():
    """A private folder in the deepest folder that exists on the way to the target (the target itself when it exists), else beside the upload."""
    place = real_dest
    while not is_real_dir(place):
        place = posixpath.dirname(place)
    for folder in (place, posixpath.dirname(archive)):
        try:
            return tempfile.mkdtemp(prefix=".emulator-extract-", dir=folder)
        except PermissionError:
            continue
    refuse("permission", "the sandbox user may not create folders in " + place)


placed = {}
kinds = {}
# Each path the archive filled, once, under the name the archive gave it first (the answer's list).
extracted = {}


def stage(entry):
    """Writes one entry into the staging folder, at the path it will have in the target; refuses what may not be."""
    parts = entry.rel.split("/")
    status, parent = resolve(parts[:-1], "entry " + json.dumps(entry.name))
    if status == "outside":
        refuse("escape", "entry " + json.dumps(entry.name) + " would be written through a symlink that leads outside the target folder")
    if status == "through-file":
        refuse("conflict", "entry " + json.dumps(entry.name) + " would be written below " + json.dumps("/".join(parent)) + ", which is not a folder")
    canonical = parent + [parts[-1]]
    key = "/".join(canonical)
    for folder in forbidden:
        landing = join(real_dest, canonical)
        if under(landing, folder):
            refuse("escape", "entry " + json.dumps(entry.name) + " lands in " + folder + ", a system folder")
        if under(folder, landing):
            refuse("escape", "entry " + json.dumps(entry.name) + " lands on " + landing + ", which holds " + folder + ", a system folder")
    if entry.kind == "symlink" and entry.link.startswith("/"):
        refuse("escape", "symlink " + json.dumps(entry.name) + " points to the absolute path " + json.dumps(entry.link))
    link_key = None
    if entry.kind == "hardlink":
        link_key = placed.get(entry.link)
        if link_key is None or kinds.get(link_key) != "file":
            refuse("unsupported", "hard link " + json.dumps(entry.name) + " must point to a regular file earlier in the archive")
    found = lookup(canonical)
    if entry.kind == "dir":
        if found is not None and found[0] != "dir" and not overwrite:
            refuse("exists", json.dumps(key) + " already exists and is not a folder; pass overwrite=true to replace it")
    else:
        if found is not None and found[0] == "dir":
            refuse("conflict", json.dumps(key) + " is a folder, so the archive's " + entry.kind + " cannot replace it")
        if found is not None and not overwrite:
            refuse("exists", json.dumps(key) + " already exists; pass overwrite=true to replace it")
    target = join(staging, canonical)
    os.makedirs(posixpath.dirname(target), exist_ok=True)
    if entry.kind == "dir":
        if os.path.lexists(target) and not is_real_dir(target):
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
            os.link(join(staging, link_key.split("/")), target, follow_symlinks=False)
        if entry.mtime is not None:
            os.utime(target, (entry.mtime, entry.mtime), follow_symlinks=False)
    placed[entry.rel] = key
    kinds[key] = "dir" if entry.kind == "dir" else "file" if entry.kind in ("file", "hardlink") else entry.kind
    if key not in extracted:
        extracted[key] = entry.rel


def check_symlinks():
    """Every symlink the archive made, resolved in the merged view of the whole tree: the order of entries cannot hide an escape."""
    for folder, folders, files in os.walk(staging):
        for name in folders + files:
            path = posixpath.join(folder, name)
            if not os.path.islink(path):
                continue
            parts = posixpath.relpath(path, staging).split("/")
            link = os.readlink(path)
            shown = json.dumps("/".join(parts))
            status, _ = resolve(parts[:-1] + link.split("/"), "symlink " + shown)
            if status == "outside":
                refuse("escape", "symlink " + shown + " points outside the target folder (" + json.dumps(link) + ", followed through the archive's and the folder's symlinks)")


def plan_moves(staged, target, moves):
    """The renames that put the staged tree in place: a staged folder merges into an existing one, anything else replaces or is new."""
    for name in sorted(os.listdir(staged)):
        source, destination = posixpath.join(staged, name), posixpath.join(target, name)
        if is_real_dir(source) and is_real_dir(destination):
            plan_moves(source, destination, moves)
            continue
        if is_real_dir(destination):
            refuse("conflict", json.dumps(posixpath.relpath(destination, real_dest)) + " became a folder during the upload")
        if os.path.lexists(destination) and not overwrite:
            refuse("exists", json.dumps(posixpath.relpath(destination, real_dest)) + " appeared during the upload; pass overwrite=true to replace it")
        moves.append((source, destination))


def check_writable(destination):
    """A rename needs write access to the folder it lands in (and, in a sticky folder, to own what it replaces)."""
    folder = posixpath.dirname(destination)
    if not os.access(folder, os.W_OK | os.X_OK):
        refuse("permission", "the sandbox user may not write in " + folder)
    existing = lstat_or_none(destination)
    if existing is not None and os.stat(folder).st_mode & stat.S_ISVTX and existing.st_uid != os.getuid():
        refuse("permission", "the sandbox user may not replace " + destination + " (another user's, in a sticky folder)")


def rename(source, destination):
    try:
        os.rename(source, destination)
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
        shutil.move(source, destination)


def move_into_place():
    global staging
    if not os.path.lexists(real_dest):
        # A new target folder is the staging folder itself, renamed: one step.
        os.makedirs(posixpath.dirname(real_dest), exist_ok=True)
        if posixpath.dirname(staging) == posixpath.dirname(real_dest):
            os.chmod(staging, 0o755)
            os.rename(staging, real_dest)
            staging = None
            return
        os.makedirs(real_dest)
    moves = []
    plan_moves(staging, real_dest, moves)
    for _, destination in moves:
        check_writable(destination)
    for source, destination in moves:
        if is_real_dir(source) and os.path.lexists(destination):
            os.unlink(destination)
        rename(source, destination)


def describe(rel):
    info = os.lstat(join(real_dest, rel.split("/")))
    kind = "directory" if stat.S_ISDIR(info.st_mode) else "file" if stat.S_ISREG(info.st_mode) else "symlink" if stat.S_ISLNK(info.st_mode) else "other"
    return {"path": rel, "type": kind, "size": 0 if kind == "directory" else info.st_size, "mtimeMs": int(info.st_mtime * 1000), "birthtimeMs": int(info.st_ctime * 1000)}


def main():
    global staging
    try:
        entries = zip_entries() if zipfile.is_zipfile(archive) else tar_entries()
    except (OSError, zipfile.BadZipFile, EOFError, zlib.error, UnicodeDecodeError) as error:
        refuse("format", "the archive cannot be read (" + type(error).__name__ + ": " + str(error) + ")")
    staging = make_staging()
    print(json.dumps({"staging": staging}), flush=True)
    try:
        for entry in entries:
            if entry.rel == "":
                if entry.kind != "dir":
                    refuse("escape", "entry " + json.dumps(entry.name) + " names the target folder itself")
                continue
            stage(entry)
        check_symlinks()
        move_into_place()
    except PermissionError as error:
        refuse("permission", str(error))
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, UnicodeDecodeError) as error:
        refuse("io", str(error))
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    print(json.dumps({"entries": [describe(rel) for rel in list(extracted.values())[:report_limit]], "total": len(extracted)}))


try:
    main()
except Refusal as refusal:
    print(json.dumps({"error": refusal.kind, "message": refusal.message}))
    sys.exit(3)
`;
