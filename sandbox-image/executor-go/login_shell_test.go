package main

// How the executor reads login shells from a passwd file (login_shell.go). That a tool call's bash
// gets SHELL in a real sandbox is checked against the engine in test/docker/docker-sandbox.test.ts.

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadLoginShells(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passwd")
	content := "root:x:0:0:root:/root:/bin/bash\n" +
		"sandbox:x:1000:1000::/home/sandbox:/bin/bash\n" +
		"hooks:x:1001:1001::/home/hooks:/bin/sh\n" +
		"again:x:1000:1000::/home/again:/bin/zsh\n" +
		"empty:x:1002:1002::/home/empty:\n" +
		"relative:x:1003:1003::/home/relative:bash\n" +
		"control:x:1004:1004::/home/control:/bin/ba\x1bsh\n" +
		"short:x:1005:1005:/bin/sh\n" +
		"notanumber:x:abc:1006::/home/x:/bin/sh\n" +
		"\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	shells := readLoginShells(path)
	want := map[int]string{0: "/bin/bash", 1000: "/bin/bash", 1001: "/bin/sh"}
	if len(shells) != len(want) {
		t.Fatalf("got %v, want %v", shells, want)
	}
	for uid, shell := range want {
		if shells[uid] != shell {
			t.Errorf("uid %d: got %q, want %q (the first entry wins; empty, relative and control characters are left out)", uid, shells[uid], shell)
		}
	}
}

func TestReadLoginShellsWithoutAFile(t *testing.T) {
	if shells := readLoginShells(filepath.Join(t.TempDir(), "missing")); len(shells) != 0 {
		t.Fatalf("got %v from a missing file, want nothing", shells)
	}
}
