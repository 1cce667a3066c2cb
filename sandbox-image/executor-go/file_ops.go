package main

// File requests. Paths are used as given: the server validates them, and the sandbox
// (container) is the security boundary, not this process. Errors keep their errno code for the API.

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

const readChunkBytes = 1024 * 1024

// What is read past a file's known size (or of a file of unknown size, /proc's), to find its end.
const endProbeBytes = 64 * 1024

// FileHead is the first bytes of a file and what is known about it.
type FileHead struct {
	content       []byte
	size          int64
	truncated     bool
	realPath      string
	readOnlyMount bool
}

func readFileHead(path string, maxBytes int64) (*FileHead, error) {
	// O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, failedFor("readFile", path, err)
	}
	defer syscall.Close(fd)
	var info syscall.Stat_t
	if err := syscall.Fstat(fd, &info); err != nil {
		return nil, failedFor("readFile", path, err)
	}
	switch info.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return nil, &FileOpError{"EISDIR", "readFile " + path + ": is a directory"}
	case syscall.S_IFIFO, syscall.S_IFSOCK:
		return nil, &FileOpError{"EINVAL", "readFile " + path + ": not a regular file"}
	}
	// Room for the whole file and the byte that finds its end: one allocation, and no copy, for most files.
	expected := info.Size + 1
	if expected > maxBytes+1 {
		expected = maxBytes + 1
	}
	content := make([]byte, 0, expected)
	for {
		want := nextRead(info.Size, maxBytes, int64(len(content)))
		if want <= 0 {
			break
		}
		if int64(cap(content)-len(content)) < want {
			grown := make([]byte, len(content), int64(len(content))+want)
			copy(grown, content)
			content = grown
		}
		count, err := syscall.Read(fd, content[len(content):int64(len(content))+want])
		if err != nil {
			return nil, failedFor("readFile", path, err)
		}
		if count == 0 {
			break
		}
		content = content[:len(content)+count]
	}
	realPath, err := openedPath(fd, path)
	if err != nil {
		return nil, err
	}
	size := info.Size
	if int64(len(content)) > size {
		size = int64(len(content))
	}
	if int64(len(content)) > maxBytes {
		content = content[:maxBytes]
	}
	if content == nil {
		content = []byte{}
	}
	// Hook discovery reads two paths that may name one file (a symlink); the real path tells them apart,
	// and whether it lies on a read-only mount decides who runs its hooks. Both are of the file we read.
	return &FileHead{content, size, size > maxBytes, realPath, isOnReadOnlyMount(realPath)}, nil
}

// nextRead: as much as the file holds (one read up to readChunkBytes), then a small read to see its
// end. One byte past the cap tells whether files of unknown size (/proc, devices) were truncated.
func nextRead(size, maxBytes, total int64) int64 {
	if total > maxBytes {
		return 0
	}
	expected := size + 1 - total
	if expected <= 1 {
		expected = endProbeBytes
	}
	want := int64(readChunkBytes)
	if maxBytes+1-total < want {
		want = maxBytes + 1 - total
	}
	if expected < want {
		want = expected
	}
	return want
}

// openedPath is the path of an open file, from /proc/self/fd; realpath(path) where there is no /proc.
func openedPath(fd int, path string) (string, error) {
	linked, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	// A file deleted since it was opened reads as "… (deleted)": like realpath, call that gone.
	if err == nil && strings.HasPrefix(linked, "/") && !strings.HasSuffix(linked, " (deleted)") {
		return linked, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", failedFor("readFile", path, err)
	}
	absolute, _ := filepath.Abs(real)
	return absolute, nil
}

func writeFileCreatingParents(path string, content []byte, mode *int64) (int64, error) {
	if err := makeParents(path); err != nil {
		return 0, failedFor("writeFile", path, err)
	}
	createMode := os.FileMode(0o666)
	if mode != nil {
		createMode = os.FileMode(*mode) & os.ModePerm
	}
	if err := os.WriteFile(path, content, createMode); err != nil {
		return 0, failedFor("writeFile", path, err)
	}
	// The creation mode is filtered by the umask and ignored for an existing file; the caller asked for exactly this.
	if mode != nil {
		if err := syscall.Chmod(path, uint32(*mode)); err != nil {
			return 0, failedFor("writeFile", path, err)
		}
	}
	return int64(len(content)), nil
}

// makeParents creates the folders above path as Node's mkdir(dirname, { recursive: true }) does,
// failing the same way: EEXIST when the folder itself exists as something else, ENOTDIR above it.
func makeParents(path string) error {
	parent := filepath.Dir(path)
	var info syscall.Stat_t
	if err := syscall.Stat(parent, &info); err == nil && info.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return syscall.EEXIST
	}
	return os.MkdirAll(parent, 0o777)
}

func listDirectory(path string) ([]FileEntry, error) {
	names, err := readNames(path)
	if err != nil {
		return nil, failedFor("listFiles", path, err)
	}
	entries := []FileEntry{}
	for _, name := range names {
		// lstat: a symlink is reported as a symlink, never as what it points to.
		var info syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(path, name), &info); err != nil {
			continue // deleted between readdir and lstat
		}
		entries = append(entries, FileEntry{Name: name, Type: entryType(&info), Size: info.Size, MtimeMs: float64(timeMs(info.Mtim))})
	}
	// Code-unit order: stable across locales and identical to the server's default sort.
	sort.Slice(entries, func(a, b int) bool { return lessCodeUnits(entries[a].Name, entries[b].Name) })
	return entries, nil
}

func readNames(path string) ([]string, error) {
	folder, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer folder.Close()
	names, err := folder.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	return names, nil
}

func deletePath(path string, recursive bool) error {
	var info syscall.Stat_t
	if err := syscall.Lstat(path, &info); err != nil {
		return failedFor("deleteFile", path, err)
	}
	if info.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		if err := syscall.Unlink(path); err != nil {
			return failedFor("deleteFile", path, err)
		}
		return nil
	}
	if !recursive {
		return &FileOpError{"EISDIR", "deleteFile " + path + ": is a directory; pass recursive: true to delete it and its contents"}
	}
	if err := os.RemoveAll(path); err != nil {
		return failedFor("deleteFile", path, err)
	}
	return nil
}

func entryType(info *syscall.Stat_t) string {
	switch info.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return "symlink"
	case syscall.S_IFREG:
		return "file"
	case syscall.S_IFDIR:
		return "directory"
	}
	return "other"
}

// timeMs: whole milliseconds since the epoch, as Math.trunc(stat.mtimeMs).
func timeMs(spec syscall.Timespec) int64 {
	return spec.Sec*1000 + spec.Nsec/1_000_000
}

// lessCodeUnits orders as JavaScript's < on strings: by UTF-16 code units.
func lessCodeUnits(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b
	}
	x, y := utf16Units(a), utf16Units(b)
	for index := 0; index < len(x) && index < len(y); index++ {
		if x[index] != y[index] {
			return x[index] < y[index]
		}
	}
	return len(x) < len(y)
}

func isASCII(text string) bool {
	for index := 0; index < len(text); index++ {
		if text[index] >= 0x80 {
			return false
		}
	}
	return true
}

func utf16Units(text string) []uint16 {
	units := make([]uint16, 0, len(text))
	for _, r := range text {
		if r >= 0x10000 {
			r -= 0x10000
			units = append(units, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			units = append(units, uint16(r))
		}
	}
	return units
}
