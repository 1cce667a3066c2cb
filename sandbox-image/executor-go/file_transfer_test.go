package main

// moveFile where neither rename nor link can do it: from a temporary folder onto /dev/shm, another
// file system (the test skips where it is the same one, or absent). Either way the file arrives whole
// and its old name is gone; without overwrite an existing target is refused and both are kept; with
// overwrite a symlink at the target is replaced, never followed.

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func crossDeviceFolders(t *testing.T) (string, string) {
	t.Helper()
	from := t.TempDir()
	to, err := os.MkdirTemp("/dev/shm", "move-test-")
	if err != nil {
		t.Skip("no /dev/shm to move across to:", err)
	}
	t.Cleanup(func() { os.RemoveAll(to) })
	var a, b syscall.Stat_t
	if syscall.Stat(from, &a) != nil || syscall.Stat(to, &b) != nil || a.Dev == b.Dev {
		t.Skip("the temporary folder and /dev/shm are one file system here")
	}
	return from, to
}

func writeText(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
}

func assertText(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("%s holds %q (%v), want %q", path, got, err, want)
	}
}

func assertNotSymlink(t *testing.T, path string) {
	t.Helper()
	if info, err := os.Lstat(path); err != nil || info.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("%s is still a symlink (%v)", path, err)
	}
}

func assertGone(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("%s is still there (%v)", path, err)
	}
}

func TestMovesAFileToAnotherFileSystem(t *testing.T) {
	fromDir, toDir := crossDeviceFolders(t)
	for _, overwrite := range []bool{false, true} {
		from, to := filepath.Join(fromDir, "a.txt"), filepath.Join(toDir, "new", "a.txt")
		writeText(t, from, "moved")
		if err := moveFile(from, to, overwrite); err != nil {
			t.Fatalf("overwrite %v: %v", overwrite, err)
		}
		assertText(t, to, "moved")
		assertGone(t, from)
		if info, _ := os.Stat(to); info.Mode().Perm() != 0o640 {
			t.Fatalf("overwrite %v: mode %v, want the source's 0640", overwrite, info.Mode().Perm())
		}
		os.Remove(to)
	}
}

func TestRefusesAnExistingTargetOnAnotherFileSystemWithoutOverwrite(t *testing.T) {
	fromDir, toDir := crossDeviceFolders(t)
	from, to := filepath.Join(fromDir, "a.txt"), filepath.Join(toDir, "a.txt")
	writeText(t, from, "new")
	writeText(t, to, "old")
	err := moveFile(from, to, false)
	if failure, ok := err.(*FileOpError); !ok || failure.Code != "EEXIST" {
		t.Fatalf("got %v, want an EEXIST FileOpError", err)
	}
	assertText(t, from, "new")
	assertText(t, to, "old")
}

func TestReplacesASymlinkOnAnotherFileSystemWithOverwriteNotItsTarget(t *testing.T) {
	fromDir, toDir := crossDeviceFolders(t)
	from, to, aim := filepath.Join(fromDir, "a.txt"), filepath.Join(toDir, "link"), filepath.Join(toDir, "aim.txt")
	writeText(t, from, "new")
	writeText(t, aim, "untouched")
	if err := os.Symlink(aim, to); err != nil {
		t.Fatal(err)
	}
	if err := moveFile(from, to, true); err != nil {
		t.Fatal(err)
	}
	assertNotSymlink(t, to)
	assertText(t, to, "new")
	assertText(t, aim, "untouched")
	assertGone(t, from)
}
