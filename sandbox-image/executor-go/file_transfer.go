package main

// Moving file content in pieces, so that a large download or upload never sits whole
// in memory on either side of the channel: read a chunk at an offset, append a chunk at the expected
// offset, and move a finished file into place (atomically, or refusing to replace what is there).

import (
	"fmt"
	"io"
	"os"
	"syscall"
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
		err := syscall.Rename(from, to)
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
