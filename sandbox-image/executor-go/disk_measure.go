package main

// How much of the engine's disk the sandbox's users hold, for the disk guard.

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// The least an entry costs: ext4 allocates in 4 KiB blocks and spends an inode on every file, folder
// and link, so a million empty files fill a disk's inode table as surely as bytes fill its blocks.
const minEntryBytes = 4096

// Never measured, nor entered when looking for writable folders: not disk, or not the sandbox's.
var pseudoFolders = map[string]bool{"/proc": true, "/sys": true, "/dev": true}

func chargedBytes(info *syscall.Stat_t) int64 {
	if info.Blocks*512 > minEntryBytes {
		return info.Blocks * 512
	}
	return minEntryBytes
}

// writableBy: whether any identity may create entries in a folder with this owner and mode. A folder
// of their own counts whatever its mode: its owner may chmod it writable at any time.
func writableBy(info *syscall.Stat_t, identities []*Identity) bool {
	if info.Mode&0o002 != 0 {
		return true
	}
	for _, identity := range identities {
		if int(info.Uid) == identity.UID || (int(info.Gid) == identity.GID && info.Mode&0o020 != 0) {
			return true
		}
	}
	return false
}

func ownedByAny(info *syscall.Stat_t, identities []*Identity) bool {
	for _, identity := range identities {
		if int(info.Uid) == identity.UID {
			return true
		}
	}
	return false
}

// findWritableRoots: the outermost folders of the root file system the identities may write in, and
// their files that lie elsewhere. Every byte they can ever add is below or in one of these.
func findWritableRoots(identities []*Identity) []string {
	var root syscall.Stat_t
	if syscall.Lstat("/", &root) != nil {
		return nil
	}
	var roots []string
	pending := []string{"/"}
	for len(pending) > 0 {
		folder := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		names, err := readNames(folder)
		if err != nil {
			continue
		}
		for _, name := range names {
			path := folder + "/" + name
			if folder == "/" {
				path = "/" + name
			}
			if pseudoFolders[path] {
				continue
			}
			var info syscall.Stat_t
			if syscall.Lstat(path, &info) != nil || info.Dev != root.Dev {
				continue
			}
			if info.Mode&syscall.S_IFMT != syscall.S_IFDIR {
				if ownedByAny(&info, identities) {
					roots = append(roots, path)
				}
			} else if writableBy(&info, identities) {
				roots = append(roots, path)
			} else {
				pending = append(pending, path)
			}
		}
	}
	sort.Strings(roots)
	return roots
}

// TreeUsage is what measureTrees found.
type TreeUsage struct {
	bytes, entries, unreadable int64
}

// measureTrees measures the trees below roots, on the root file system only, hard links once.
func measureTrees(roots []string) TreeUsage {
	var usage TreeUsage
	var root syscall.Stat_t
	if syscall.Lstat("/", &root) != nil {
		return usage
	}
	// Only entries with several links are remembered: a set of every inode would grow with the attack it measures.
	linked := map[uint64]bool{}
	pending := append([]string{}, roots...)
	for len(pending) > 0 {
		path := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		var info syscall.Stat_t
		if syscall.Lstat(path, &info) != nil || info.Dev != root.Dev {
			continue
		}
		isFolder := info.Mode&syscall.S_IFMT == syscall.S_IFDIR
		if !isFolder && info.Nlink > 1 {
			if linked[info.Ino] {
				continue
			}
			linked[info.Ino] = true
		}
		usage.bytes += chargedBytes(&info)
		usage.entries++
		if isFolder {
			names, err := readNames(path)
			if err != nil {
				usage.unreadable++
				continue
			}
			for _, name := range names {
				pending = append(pending, path+"/"+name)
			}
		}
	}
	return usage
}

// openDeletedBytes: bytes held by files deleted while a process of identity kept them open, read as
// that user (who may look at its own processes' descriptors; root without CAP_SYS_PTRACE may not).
func openDeletedBytes(identity *Identity) int64 {
	var bytes int64
	actingAs(identity, func() {
		seen := map[string]bool{}
		for _, pid := range processesOf(identity) {
			folder := "/proc/" + strconv.Itoa(pid) + "/fd"
			descriptors, err := readNames(folder)
			if err != nil {
				continue
			}
			for _, descriptor := range descriptors {
				link := folder + "/" + descriptor
				target, err := os.Readlink(link)
				if err != nil || !strings.HasSuffix(target, " (deleted)") {
					continue
				}
				var info syscall.Stat_t
				if syscall.Stat(link, &info) != nil || info.Mode&syscall.S_IFMT != syscall.S_IFREG {
					continue
				}
				key := strconv.FormatUint(info.Dev, 10) + ":" + strconv.FormatUint(info.Ino, 10)
				if seen[key] {
					continue
				}
				seen[key] = true
				bytes += chargedBytes(&info)
			}
		}
	})
	return bytes
}
