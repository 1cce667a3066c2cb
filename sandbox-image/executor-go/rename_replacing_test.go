package main

// A replacing move within one file system (renameReplacing): what rename(2) would do, on every kind of
// entry found at the target, with no copy of the old file left behind.

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReplacingMoveOntoNothingAFileAndASymlink(t *testing.T) {
	folder := t.TempDir()
	from, to := filepath.Join(folder, "staged"), filepath.Join(folder, "final")
	writeText(t, from, "first")
	if err := renameReplacing(from, to); err != nil {
		t.Fatal(err)
	}
	assertText(t, to, "first")
	assertGone(t, from)

	writeText(t, from, "second")
	if err := renameReplacing(from, to); err != nil {
		t.Fatal(err)
	}
	assertText(t, to, "second")
	assertGone(t, from)

	aim, link := filepath.Join(folder, "aim"), filepath.Join(folder, "link")
	writeText(t, aim, "untouched")
	if err := os.Symlink(aim, link); err != nil {
		t.Fatal(err)
	}
	writeText(t, from, "third")
	if err := renameReplacing(from, link); err != nil {
		t.Fatal(err)
	}
	assertNotSymlink(t, link)
	assertText(t, link, "third")
	assertText(t, aim, "untouched")
	assertGone(t, from)
	entries, err := os.ReadDir(folder)
	if err != nil || len(entries) != 3 {
		t.Fatalf("the folder should hold final, aim and link only: %v (%v)", entries, err)
	}
}

func TestReplacingMoveOntoAFolderIsRefusedAndKeepsBoth(t *testing.T) {
	folder := t.TempDir()
	from, to := filepath.Join(folder, "staged"), filepath.Join(folder, "dir")
	writeText(t, from, "file")
	if err := os.Mkdir(to, 0o750); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(to, "inside"), "kept")
	err := renameReplacing(from, to)
	if !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("moving a file onto a folder: %v, want EISDIR", err)
	}
	assertText(t, from, "file")
	assertText(t, filepath.Join(to, "inside"), "kept")
}

func TestReplacingMoveOfAFolderIsRenameOwn(t *testing.T) {
	folder := t.TempDir()
	from, to := filepath.Join(folder, "dir"), filepath.Join(folder, "file")
	if err := os.Mkdir(from, 0o750); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(from, "inside"), "x")
	writeText(t, to, "a file")
	err := renameReplacing(from, to)
	if !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("moving a folder onto a file: %v, want ENOTDIR as rename gives", err)
	}
	assertText(t, to, "a file")
}
