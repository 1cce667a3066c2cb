package main

// Read-only views of the sandbox's file tree for the environments files API: what a path
// names (stat), a sorted, pageable listing (walk), and how many files and bytes lie under some folders
// (usage). Symlinks are never followed below the starting point, so a listing cannot wander out of it.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// infoOf describes the file at path, whose stat (or lstat, when !follow) is info.
func infoOf(info *syscall.Stat_t, path string, follow bool) FileInfo {
	size := info.Size
	if info.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		size = 0
	}
	// Overlay and some other file systems record no birth time: the status change time stands in.
	birth, known := birthtimeMs(path, follow)
	if !known {
		birth = timeMs(info.Ctim)
	}
	return FileInfo{Type: entryType(info), Size: size, MtimeMs: float64(timeMs(info.Mtim)), BirthtimeMs: float64(birth)}
}

func isMissing(err error) bool {
	errno := errnoOf(err)
	return errno == syscall.ENOENT || errno == syscall.ENOTDIR
}

// resolve is posix.resolve: an absolute, cleaned path against the working directory.
func resolve(name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	cwd, _ := os.Getwd()
	return path.Join(cwd, name)
}

// realPath is fs.realpath: every symlink resolved, an error when something is missing.
func realPath(name string) (string, error) {
	resolved, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", err
	}
	return resolve(resolved), nil
}

func statPath(name string) (*StatResult, error) {
	absolute := resolve(name)
	var info syscall.Stat_t
	err := syscall.Stat(absolute, &info)
	if err == nil {
		real, err := realPath(absolute)
		if err == nil {
			described := infoOf(&info, absolute, true)
			return &StatResult{Op: "stat", Info: &described, RealPath: real}, nil
		}
	}
	if err != nil && !isMissing(err) {
		return nil, failedFor("stat", name, err)
	}
	// Not there (or a dangling symlink): where would it be created? The nearest existing ancestor, resolved.
	var rest []string
	for current := absolute; ; current = path.Dir(current) {
		real, err := realPath(current)
		if err == nil {
			for left, right := 0, len(rest)-1; left < right; left, right = left+1, right-1 {
				rest[left], rest[right] = rest[right], rest[left]
			}
			return &StatResult{Op: "stat", RealPath: path.Join(append([]string{real}, rest...)...)}, nil
		}
		if !isMissing(err) || current == "/" {
			return nil, failedFor("stat", name, err)
		}
		rest = append(rest, path.Base(current))
	}
}

// comparePaths compares relative paths component by component: the order of a depth-first, name-sorted walk.
func comparePaths(a, b []string) int {
	for index := 0; index < len(a) && index < len(b); index++ {
		if a[index] != b[index] {
			if lessCodeUnits(a[index], b[index]) {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

func isPrefix(prefix, of []string) bool {
	if len(prefix) >= len(of) {
		return false
	}
	for index, part := range prefix {
		if of[index] != part {
			return false
		}
	}
	return true
}

type walkFinished struct{}

func walkTree(request *WalkRequest) (*WalkResult, error) {
	start := request.Path
	var startInfo syscall.Stat_t
	if err := syscall.Stat(start, &startInfo); err != nil {
		return nil, failedFor("walk", start, err)
	}
	realStart, err := realPath(start)
	if err != nil {
		return nil, failedFor("walk", start, err)
	}
	var after []string
	if request.After != nil && *request.After != "" {
		after = strings.Split(*request.After, "/")
	}
	hasAfter := request.After != nil
	excluded := map[string]bool{}
	if request.Exclude != nil {
		for _, folder := range *request.Exclude {
			excluded[resolve(folder)] = true
		}
	}
	entries := []TreeEntry{}
	// One more than asked: it tells whether another page follows.
	full := func() bool { return int64(len(entries)) > request.Limit }
	add := func(relative string, info *syscall.Stat_t, path string, follow bool) {
		described := infoOf(info, path, follow)
		entries = append(entries, TreeEntry{Path: relative, Type: described.Type, Size: described.Size, MtimeMs: described.MtimeMs, BirthtimeMs: described.BirthtimeMs})
	}
	if !hasAfter {
		add("", &startInfo, start, true)
	}
	var visit func(folder, realFolder string, relative []string) (bool, error)
	visit = func(folder, realFolder string, relative []string) (bool, error) {
		names, err := readNames(folder)
		if err != nil {
			// The folder asked for must be readable: an empty page would say it is empty (EACCES, a 403).
			if len(relative) == 0 {
				return false, failedFor("walk", start, err)
			}
			return false, nil // a subfolder that is unreadable (or gone): listed, but its contents are not
		}
		sort.Slice(names, func(a, b int) bool { return lessCodeUnits(names[a], names[b]) })
		for _, name := range names {
			childRelative := append(append([]string{}, relative...), name)
			order := 1
			if hasAfter {
				order = comparePaths(childRelative, after)
			}
			// Before the page's start and not on the way to it: its whole subtree is before it too.
			if order < 0 && !isPrefix(childRelative, after) {
				continue
			}
			var info syscall.Stat_t
			if err := syscall.Lstat(path.Join(folder, name), &info); err != nil {
				continue // removed since readdir
			}
			if order > 0 {
				add(strings.Join(childRelative, "/"), &info, path.Join(folder, name), false)
				if full() {
					return true, nil
				}
			}
			realChild := path.Join(realFolder, name)
			if request.Recursive && info.Mode&syscall.S_IFMT == syscall.S_IFDIR && !excluded[realChild] {
				done, err := visit(path.Join(folder, name), realChild, childRelative)
				if done || err != nil {
					return done, err
				}
			}
		}
		return false, nil
	}
	if startInfo.Mode&syscall.S_IFMT == syscall.S_IFDIR && !full() && !excluded[realStart] {
		if _, err := visit(start, realStart, nil); err != nil {
			return nil, err
		}
	}
	more := int64(len(entries)) > request.Limit
	if more {
		entries = entries[:request.Limit]
	}
	return &WalkResult{Op: "walk", Entries: entries, More: more}, nil
}

// diskUsage counts regular files (never through a symlink, each inode once) under the paths.
func diskUsage(paths []string, exclude []string) *UsageResult {
	excluded := map[string]bool{}
	for _, folder := range exclude {
		excluded[resolve(folder)] = true
	}
	seen := map[string]bool{}
	result := &UsageResult{Op: "usage"}
	// A stack: depth first, so what waits is bounded by the folders on the current path.
	pending := make([]string, 0, len(paths))
	for _, each := range paths {
		pending = append(pending, resolve(each))
	}
	for len(pending) > 0 {
		current := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		var info syscall.Stat_t
		if syscall.Lstat(current, &info) != nil {
			continue
		}
		identity := fmt.Sprintf("%d:%d", info.Dev, info.Ino)
		if seen[identity] {
			continue
		}
		seen[identity] = true
		switch info.Mode & syscall.S_IFMT {
		case syscall.S_IFREG:
			result.Files++
			result.Bytes += info.Size
		case syscall.S_IFDIR:
			if excluded[current] {
				continue
			}
			names, _ := readNames(current)
			for _, name := range names {
				pending = append(pending, path.Join(current, name))
			}
		}
	}
	return result
}
