package main

// Moving file content in pieces, so that a large download or upload never sits whole
// in memory on either side of the channel: read a chunk at an offset, append a chunk at the expected
// offset, and move a finished file into place (atomically, or refusing to replace what is there).

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

func readFileChunk(path string, offset, length int64) ([]byte, int64, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, failedFor("readFileChunk", path, err)
	}
	defer syscall.Close(fd)
	var info syscall.Stat_t
	if err := syscall.Fstat(fd, &info); err != nil {
		return nil, 0, failedFor("readFileChunk", path, err)
	}
	switch info.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return nil, 0, &FileOpError{"EISDIR", "readFileChunk " + path + ": is a directory"}
	case syscall.S_IFREG:
	default:
		return nil, 0, &FileOpError{"EINVAL", "readFileChunk " + path + ": not a regular file"}
	}
	want := info.Size - offset
	if want < 0 {
		want = 0
	}
	if length < want {
		want = length
	}
	// Handed back (releaseBuffer) by whoever sends it, once sent.
	content := takeBuffer(int(want))
	filled := 0
	for filled < len(content) {
		count, err := syscall.Pread(fd, content[filled:], offset+int64(filled))
		if err != nil {
			releaseBuffer(content)
			return nil, 0, failedFor("readFileChunk", path, err)
		}
		if count == 0 {
			break // shrank meanwhile
		}
		filled += count
	}
	return content[:filled], info.Size, nil
}

func appendFileAt(path string, offset int64, create bool, content []byte) (int64, error) {
	flags := syscall.O_WRONLY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	if create {
		if err := makeParents(path); err != nil {
			return 0, failedFor("appendFile", path, err)
		}
		// O_EXCL also refuses a symlink planted at the path, dangling or not.
		flags = syscall.O_WRONLY | syscall.O_CREAT | syscall.O_EXCL | syscall.O_CLOEXEC
	}
	fd, err := syscall.Open(path, flags, 0o644)
	if err != nil {
		return 0, failedFor("appendFile", path, err)
	}
	defer syscall.Close(fd)
	var info syscall.Stat_t
	if err := syscall.Fstat(fd, &info); err != nil {
		return 0, failedFor("appendFile", path, err)
	}
	if info.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, &FileOpError{"EINVAL", "appendFile " + path + ": not a regular file"}
	}
	if info.Size != offset {
		return 0, &FileOpError{"EOFFSET", fmt.Sprintf("appendFile %s: the file has %d bytes, so the next bytes go at offset %d, not %d", path, info.Size, info.Size, offset)}
	}
	written := 0
	for written < len(content) {
		count, err := syscall.Pwrite(fd, content[written:], offset+int64(written))
		if err != nil {
			return 0, failedFor("appendFile", path, err)
		}
		written += count
	}
	return offset + int64(written), nil
}

func moveFile(from, to string, overwrite bool) error {
	if err := makeParents(to); err != nil {
		return failedFor("moveFile", to, err)
	}
	if overwrite {
		// rename replaces a file (or a symlink, never what it points to) atomically; onto a folder it is EISDIR.
		err := renameReplacing(from, to)
		if err == nil {
			return nil
		}
		if errnoOf(err) != syscall.EXDEV {
			return failedFor("moveFile", to, err)
		}
		// Not atomic across file systems; removing first means a symlink at `to` is replaced, not followed.
		if err := syscall.Unlink(to); err != nil && errnoOf(err) != syscall.ENOENT {
			return failedFor("moveFile", to, err)
		}
		return copyThenUnlink(from, to)
	}
	// link fails with EEXIST whatever is at `to`: no window in which an existing file could be replaced.
	if err := syscall.Link(from, to); err != nil {
		errno := errnoOf(err)
		if errno != syscall.EXDEV && errno != syscall.EPERM {
			return failedFor("moveFile", to, err)
		}
		return copyThenUnlink(from, to)
	}
	if err := syscall.Unlink(from); err != nil {
		return failedFor("moveFile", to, err)
	}
	return nil
}

const (
	renameNoReplace = 1 // RENAME_NOREPLACE
	renameExchange  = 2 // RENAME_EXCHANGE
)

func renameat2(from, to string, flags uintptr) error {
	if sysRenameat2 < 0 {
		return syscall.ENOSYS
	}
	fromPtr, err := syscall.BytePtrFromString(from)
	if err != nil {
		return err
	}
	toPtr, err := syscall.BytePtrFromString(to)
	if err != nil {
		return err
	}
	const atFdcwd = ^uintptr(99) // AT_FDCWD, -100
	_, _, errno := syscall.Syscall6(uintptr(sysRenameat2), atFdcwd, uintptr(unsafe.Pointer(fromPtr)), atFdcwd, uintptr(unsafe.Pointer(toPtr)), flags, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// renameUnsupported: the kernel or the file system has no renameat2 or not this flag of it (a seccomp
// filter that does not know it answers EPERM).
func renameUnsupported(err error) bool {
	errno := errnoOf(err)
	return errno == syscall.ENOSYS || errno == syscall.EINVAL || errno == syscall.EPERM
}

// renameReplacing is rename(from, to) for a regular file, without ext4's flush of a file renamed over
// another (auto_da_alloc: it writes the new file's 100 MiB to the disk inside rename, 45-60 ms here,
// docs/benchmarks.md). Nothing at `to`: a rename that replaces nothing. A file or symlink there: the two
// are exchanged (atomically: `to` is always the old or the new file, as with rename), and the old one,
// now at `from`, removed. Anything else, or no renameat2, is rename's own case.
func renameReplacing(from, to string) error {
	err := renameat2(from, to, renameNoReplace)
	if err == nil || errnoOf(err) != syscall.EEXIST {
		if err != nil && renameUnsupported(err) {
			return syscall.Rename(from, to)
		}
		return err
	}
	var moving, there syscall.Stat_t
	if syscall.Lstat(from, &moving) != nil || moving.Mode&syscall.S_IFMT != syscall.S_IFREG ||
		syscall.Lstat(to, &there) != nil || there.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return syscall.Rename(from, to)
	}
	if err := renameat2(from, to, renameExchange); err != nil {
		if renameUnsupported(err) {
			return syscall.Rename(from, to)
		}
		return err
	}
	// A folder put at `to` since the look above is now at `from`: both go back, and rename says EISDIR.
	var old syscall.Stat_t
	if syscall.Lstat(from, &old) == nil && old.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		if err := renameat2(from, to, renameExchange); err != nil {
			return err
		}
		return syscall.Rename(from, to)
	}
	if err := syscall.Unlink(from); err != nil && errnoOf(err) != syscall.ENOENT {
		return err
	}
	return nil
}

// copyThenUnlink is a move where rename or link cannot do it (another file system, links refused):
// `from` copied to `to`, which must not exist, then removed.
func copyThenUnlink(from, to string) error {
	if err := copyExclusive(from, to); err != nil {
		return failedFor("moveFile", to, err)
	}
	if err := syscall.Unlink(from); err != nil {
		return failedFor("moveFile", to, err)
	}
	return nil
}

// copyExclusive is copyFile with COPYFILE_EXCL: the target must not exist.
func copyExclusive(from, to string) error {
	source, err := os.Open(from)
	if err != nil {
		return err
	}
	defer source.Close()
	info, err := source.Stat()
	if err != nil {
		return err
	}
	target, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(target, source); err != nil {
		target.Close()
		return err
	}
	return target.Close()
}
