package main

// How the disk guard measures (disk_measure.go), on real files in a temporary folder. What the guard
// then does in a sandbox is shown in test/e2e/limits.test.ts.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

var (
	sandboxIdentity = &Identity{Name: "sandbox", UID: 1000, GID: 1000, Home: "/home/sandbox"}
	hooksIdentity   = &Identity{Name: "hooks", UID: 1001, GID: 1001, Home: "/home/hooks"}
)

func TestChargedBytes(t *testing.T) {
	cases := []struct {
		blocks int64
		want   int64
	}{
		{0, minEntryBytes}, // never less than one 4 KiB block: an empty file still costs an inode
		{1, minEntryBytes},
		{8, 4096},
		{2048, 1 << 20},
	}
	for _, c := range cases {
		if got := chargedBytes(&syscall.Stat_t{Blocks: c.blocks}); got != c.want {
			t.Errorf("%d blocks charged %d bytes, want %d", c.blocks, got, c.want)
		}
	}
}

// measurableFolder is a temporary folder measureTrees can see: it measures the root file system only.
func measurableFolder(t *testing.T) string {
	t.Helper()
	folder := t.TempDir()
	var root, here syscall.Stat_t
	if err := syscall.Lstat("/", &root); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Lstat(folder, &here); err != nil {
		t.Fatal(err)
	}
	if root.Dev != here.Dev {
		t.Skipf("%s is not on the root file system, which is all the disk guard measures: set TMPDIR to a folder on it", folder)
	}
	return folder
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func lstat(t *testing.T, path string) *syscall.Stat_t {
	t.Helper()
	var info syscall.Stat_t
	must(t, syscall.Lstat(path, &info))
	return &info
}

func TestMeasuresATreeHardLinksOnceSparseFilesByWhatTheyHold(t *testing.T) {
	tree := filepath.Join(measurableFolder(t), "tree")
	must(t, os.MkdirAll(filepath.Join(tree, "sub"), 0o755))
	data := filepath.Join(tree, "sub", "data")
	must(t, os.WriteFile(data, bytes.Repeat([]byte{1}, 1<<20), 0o644))
	must(t, os.Link(data, filepath.Join(tree, "again")))
	must(t, os.Symlink("sub/data", filepath.Join(tree, "link")))
	must(t, os.WriteFile(filepath.Join(tree, "empty"), nil, 0o644))
	// A sparse file of 64 MiB that holds one byte: charged what it allocates, not its length.
	sparse, err := os.Create(filepath.Join(tree, "sparse"))
	must(t, err)
	must(t, sparse.Truncate(64<<20))
	_, err = sparse.WriteAt([]byte{1}, 32<<20)
	must(t, err)
	must(t, sparse.Close())

	usage := measureTrees([]string{tree})
	// tree, sub, data (once), link, empty, sparse.
	if usage.entries != 6 {
		t.Errorf("entries %d, want 6", usage.entries)
	}
	dataBytes := chargedBytes(lstat(t, data))
	sparseBytes := chargedBytes(lstat(t, filepath.Join(tree, "sparse")))
	if sparseBytes >= 1<<20 {
		t.Fatalf("the sparse file allocates %d bytes: this file system does not make sparse files", sparseBytes)
	}
	if usage.bytes < dataBytes+4*minEntryBytes+sparseBytes {
		t.Errorf("%d bytes: less than the data once, the sparse file and four small entries", usage.bytes)
	}
	if usage.bytes >= 2*dataBytes {
		t.Errorf("%d bytes: the hard link was counted twice (data is %d)", usage.bytes, dataBytes)
	}
	if usage.unreadable != 0 {
		t.Errorf("unreadable %d, want 0", usage.unreadable)
	}
}

func TestManyEmptyFilesCostTheirInodes(t *testing.T) {
	many := filepath.Join(measurableFolder(t), "many")
	must(t, os.Mkdir(many, 0o755))
	for index := 0; index < 3000; index++ {
		must(t, os.WriteFile(filepath.Join(many, fmt.Sprintf("f%d", index)), nil, 0o644))
	}
	usage := measureTrees([]string{many})
	if usage.entries != 3001 {
		t.Errorf("entries %d, want 3001", usage.entries)
	}
	if usage.bytes < 3000*minEntryBytes {
		t.Errorf("%d bytes for 3000 empty files, want at least %d", usage.bytes, 3000*minEntryBytes)
	}
}

func TestKnowsWhichFoldersTheSandboxUsersMayWriteIn(t *testing.T) {
	folder := func(uid, gid, mode uint32) *syscall.Stat_t {
		return &syscall.Stat_t{Uid: uid, Gid: gid, Mode: syscall.S_IFDIR | mode}
	}
	both := []*Identity{sandboxIdentity, hooksIdentity}
	cases := []struct {
		info       *syscall.Stat_t
		identities []*Identity
		want       bool
		why        string
	}{
		{folder(0, 0, 0o1777), both, true, "/tmp: everyone's"},
		{folder(0, 1000, 0o775), both, true, "/workspace: root's, the sandbox group's to write"},
		{folder(1001, 1001, 0o700), both, true, "/home/hooks"},
		{folder(1000, 1000, 0o555), []*Identity{sandboxIdentity}, true, "the sandbox user's own, read-only for now: a chmod makes it writable"},
		{folder(0, 0, 0o755), both, false, "/usr"},
		{folder(0, 1001, 0o775), []*Identity{sandboxIdentity}, false, "another group's"},
		{folder(0, 1000, 0o755), both, false, "the sandbox group's, but not for it to write"},
	}
	for _, c := range cases {
		if got := writableBy(c.info, c.identities); got != c.want {
			t.Errorf("%s: writable %v, want %v", c.why, got, c.want)
		}
	}
}
