package main

// Root's side of a sandbox's files (exportTree, extractTree): a tar of named folders with their
// owners and modes, and the extract of one at "/", done by the executor itself as root, for runtimes
// whose engine has no archive API for a container on another machine (the swarm runtime's fork and
// snapshots, docs/scale-out.md). Every path is opened one component at a time from "/" with
// O_NOFOLLOW, so neither side ever goes through a symlink: a folder that sandbox code swaps for a link
// while a tar is made is refused, not followed (it could otherwise hand root's files to the tar).

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const folderFlags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC

// openFolder opens the folder at the absolute path one component at a time, never through a symlink
// (ELOOP or ENOTDIR). With create, missing folders are made, root's, mode 0755.
func openFolder(name string, create bool) (int, error) {
	fd, err := syscall.Open("/", folderFlags, 0)
	if err != nil {
		return -1, err
	}
	for _, part := range strings.Split(strings.Trim(path.Clean(name), "/"), "/") {
		if part == "" {
			continue
		}
		next, err := syscall.Openat(fd, part, folderFlags, 0)
		if err == syscall.ENOENT && create {
			if err = syscall.Mkdirat(fd, part, 0o755); err == nil || err == syscall.EEXIST {
				next, err = syscall.Openat(fd, part, folderFlags, 0)
			}
		}
		if err == syscall.ENOTDIR {
			// O_DIRECTORY answers ENOTDIR for a symlink too: that one is ELOOP, not a missing folder.
			if info, statErr := lstatAt(fd, part); statErr == nil && info.Mode&syscall.S_IFMT == syscall.S_IFLNK {
				err = syscall.ELOOP
			}
		}
		syscall.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// lstatAt describes name in the folder dirFd without following it.
func lstatAt(dirFd int, name string) (syscall.Stat_t, error) {
	var info syscall.Stat_t
	fd, err := syscall.Openat(dirFd, name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return info, err
	}
	defer syscall.Close(fd)
	err = syscall.Fstat(fd, &info)
	return info, err
}

func readlinkAt(dirFd int, name string) (string, error) {
	buffer := make([]byte, 4096)
	pointer, err := syscall.BytePtrFromString(name)
	if err != nil {
		return "", err
	}
	n, _, errno := syscall.Syscall6(syscall.SYS_READLINKAT, uintptr(dirFd), uintptr(unsafe.Pointer(pointer)),
		uintptr(unsafe.Pointer(&buffer[0])), uintptr(len(buffer)), 0, 0)
	if errno != 0 {
		return "", errno
	}
	return string(buffer[:n]), nil
}

func symlinkAt(target string, dirFd int, name string) error {
	from, err := syscall.BytePtrFromString(target)
	if err != nil {
		return err
	}
	to, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall(syscall.SYS_SYMLINKAT, uintptr(unsafe.Pointer(from)), uintptr(dirFd), uintptr(unsafe.Pointer(to)))
	if errno != 0 {
		return errno
	}
	return nil
}

func linkAt(fromDir int, from string, toDir int, to string) error {
	source, err := syscall.BytePtrFromString(from)
	if err != nil {
		return err
	}
	target, err := syscall.BytePtrFromString(to)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fromDir), uintptr(unsafe.Pointer(source)),
		uintptr(toDir), uintptr(unsafe.Pointer(target)), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// ---- exportTree ----

type treeExport struct {
	writer   *tar.Writer
	buffer   *bytes.Buffer
	maxBytes int64
	entries  int64
	// Regular files with more than one link, by device and inode: later names become hard links.
	linked map[[2]uint64]string
}

func tooLarge(maxBytes int64) *FileOpError {
	return &FileOpError{TooLargeCode, fmt.Sprintf("exportTree: the files pass %d bytes", maxBytes)}
}

// exportTree is the tar of what lies under the absolute paths (missing ones skipped), names without the
// leading "/", at most maxBytes.
func exportTree(paths []string, maxBytes int64) ([]byte, int64, *FileOpError) {
	export := &treeExport{buffer: &bytes.Buffer{}, maxBytes: maxBytes, linked: map[[2]uint64]string{}}
	export.writer = tar.NewWriter(export.buffer)
	for _, name := range paths {
		name = path.Clean(name)
		if name == "/" {
			return nil, 0, &FileOpError{"EINVAL", "exportTree: \"/\" is not a folder that can be exported"}
		}
		parent, err := openFolder(path.Dir(name), false)
		if isMissing(err) {
			continue
		}
		if err != nil {
			return nil, 0, failedFor("exportTree", name, err)
		}
		err = export.add(parent, path.Base(name), name)
		syscall.Close(parent)
		if err != nil {
			if failure, ok := err.(*FileOpError); ok {
				return nil, 0, failure
			}
			return nil, 0, failedFor("exportTree", name, err)
		}
	}
	if err := export.writer.Close(); err != nil {
		return nil, 0, failedFor("exportTree", paths[0], err)
	}
	if int64(export.buffer.Len()) > maxBytes {
		return nil, 0, tooLarge(maxBytes)
	}
	return export.buffer.Bytes(), export.entries, nil
}

func (export *treeExport) header(info *syscall.Stat_t, name string, kind byte) *tar.Header {
	return &tar.Header{
		Typeflag: kind,
		Name:     strings.TrimPrefix(name, "/"),
		Mode:     int64(info.Mode & 0o7777),
		Uid:      int(info.Uid),
		Gid:      int(info.Gid),
		ModTime:  time.Unix(info.Mtim.Sec, 0),
	}
}

func (export *treeExport) write(header *tar.Header) error {
	if int64(export.buffer.Len())+1024+header.Size > export.maxBytes {
		return tooLarge(export.maxBytes)
	}
	export.entries++
	return export.writer.WriteHeader(header)
}

// add writes the entry `base` of the folder dirFd (at absolute path name), and everything under it.
func (export *treeExport) add(dirFd int, base, name string) error {
	info, err := lstatAt(dirFd, base)
	if isMissing(err) {
		return nil // gone meanwhile
	}
	if err != nil {
		return err
	}
	switch info.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		header := export.header(&info, name+"/", tar.TypeDir)
		if err := export.write(header); err != nil {
			return err
		}
		fd, err := syscall.Openat(dirFd, base, folderFlags, 0)
		if err != nil {
			return err // swapped for something else meanwhile: refused, never followed
		}
		folder := os.NewFile(uintptr(fd), name)
		names, err := folder.Readdirnames(-1)
		if err != nil {
			folder.Close()
			return err
		}
		sort.Strings(names)
		for _, child := range names {
			if err := export.add(fd, child, path.Join(name, child)); err != nil {
				folder.Close()
				return err
			}
		}
		return folder.Close()
	case syscall.S_IFLNK:
		target, err := readlinkAt(dirFd, base)
		if err != nil {
			return err
		}
		header := export.header(&info, name, tar.TypeSymlink)
		header.Linkname = target
		return export.write(header)
	case syscall.S_IFREG:
		return export.addFile(dirFd, base, name)
	}
	return nil // sockets, pipes and devices are not a sandbox's files
}

func (export *treeExport) addFile(dirFd int, base, name string) error {
	fd, err := syscall.Openat(dirFd, base, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if isMissing(err) {
		return nil
	}
	if err != nil {
		return err
	}
	file := os.NewFile(uintptr(fd), name)
	defer file.Close()
	var info syscall.Stat_t
	if err := syscall.Fstat(fd, &info); err != nil {
		return err
	}
	if info.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil
	}
	key := [2]uint64{uint64(info.Dev), info.Ino}
	if first, seen := export.linked[key]; seen {
		header := export.header(&info, name, tar.TypeLink)
		header.Linkname = first
		return export.write(header)
	}
	if info.Nlink > 1 {
		export.linked[key] = strings.TrimPrefix(name, "/")
	}
	header := export.header(&info, name, tar.TypeReg)
	header.Size = info.Size
	if err := export.write(header); err != nil {
		return err
	}
	// The size as opened: a file that shrinks meanwhile is padded, one that grows is cut.
	copied, err := io.Copy(export.writer, io.LimitReader(file, info.Size))
	if err != nil {
		return err
	}
	if copied < info.Size {
		_, err = export.writer.Write(make([]byte, info.Size-copied))
	}
	return err
}

// ---- extractTree ----

// extractTree puts the tar's entries in place at "/" with their owners, modes and times; it returns how
// many it placed. Owners are set only when running as root (the local executor keeps its own).
func extractTree(body []byte) (int64, *FileOpError) {
	reader := tar.NewReader(bytes.NewReader(body))
	placed := map[string]bool{}
	var count int64
	for {
		header, err := reader.Next()
		if err == io.EOF {
			return count, nil
		}
		if err != nil {
			return count, &FileOpError{"EINVAL", "extractTree: not a tar: " + err.Error()}
		}
		name, ok := entryPath(header.Name)
		if !ok {
			return count, &FileOpError{"EINVAL", fmt.Sprintf("extractTree: entry %q leaves \"/\"", header.Name)}
		}
		if name == "/" {
			continue
		}
		if err := extractEntry(header, name, reader, placed); err != nil {
			if failure, ok := err.(*FileOpError); ok {
				return count, failure
			}
			return count, failedFor("extractTree", name, err)
		}
		placed[name] = true
		count++
	}
}

// entryPath is the absolute place of a tar entry; false for one with a ".." component.
func entryPath(name string) (string, bool) {
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", false
		}
	}
	return path.Clean("/" + name), true
}

func extractEntry(header *tar.Header, name string, content io.Reader, placed map[string]bool) error {
	parent, err := openFolder(path.Dir(name), true)
	if err != nil {
		return err
	}
	defer syscall.Close(parent)
	base := path.Base(name)
	existing, err := lstatAt(parent, base)
	exists := err == nil
	if err != nil && !isMissing(err) {
		return err
	}
	isFolder := exists && existing.Mode&syscall.S_IFMT == syscall.S_IFDIR
	if header.Typeflag == tar.TypeDir {
		if exists && !isFolder {
			if err := syscall.Unlinkat(parent, base); err != nil {
				return err
			}
		}
		if !isFolder {
			if err := syscall.Mkdirat(parent, base, 0o700); err != nil {
				return err
			}
		}
		fd, err := syscall.Openat(parent, base, folderFlags, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		return setOwnerAndMode(fd, header)
	}
	if isFolder {
		return &FileOpError{"EISDIR", fmt.Sprintf("extractTree: %s is a folder, the tar has a file there", name)}
	}
	if exists {
		if err := syscall.Unlinkat(parent, base); err != nil {
			return err
		}
	}
	switch header.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		fd, err := syscall.Openat(parent, base, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		file := os.NewFile(uintptr(fd), name)
		defer file.Close()
		if _, err := io.Copy(file, content); err != nil {
			return err
		}
		return setOwnerAndMode(fd, header)
	case tar.TypeSymlink:
		if err := symlinkAt(header.Linkname, parent, base); err != nil {
			return err
		}
		if os.Geteuid() != 0 {
			return nil
		}
		return syscall.Fchownat(parent, base, header.Uid, header.Gid, atSymlinkNoFollow)
	case tar.TypeLink:
		// Only to an entry this tar placed: never a second name for a file of the image's.
		target, ok := entryPath(header.Linkname)
		if !ok || !placed[target] {
			return &FileOpError{"EINVAL", fmt.Sprintf("extractTree: %s links to %q, which the tar did not place", name, header.Linkname)}
		}
		from, err := openFolder(path.Dir(target), false)
		if err != nil {
			return err
		}
		defer syscall.Close(from)
		return linkAt(from, path.Base(target), parent, base)
	}
	return nil // devices, pipes: never made
}

// Linux's O_PATH, the same on every architecture; Go 1.19's syscall lacks it.
const oPath = 0x200000

// setOwnerAndMode gives the opened file or folder the entry's mode and time, then its owner: while
// root owns it, no capability but CAP_CHOWN is needed (a folder owned by someone else is root's first).
func setOwnerAndMode(fd int, header *tar.Header) error {
	root := os.Geteuid() == 0
	if root {
		if err := syscall.Fchown(fd, 0, 0); err != nil {
			return err
		}
	}
	if err := syscall.Fchmod(fd, uint32(header.Mode&0o7777)); err != nil {
		return err
	}
	modified := syscall.NsecToTimeval(header.ModTime.UnixNano())
	if err := syscall.Futimes(fd, []syscall.Timeval{modified, modified}); err != nil {
		return err
	}
	if root {
		return syscall.Fchown(fd, header.Uid, header.Gid)
	}
	return nil
}
