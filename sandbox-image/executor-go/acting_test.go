package main

// actingFullyAs (the exec's reads of hooks.json): the thread takes the file worker's credentials for
// the work alone and returns to root after, while the rest of the process never leaves root. Needs
// root with CAP_SETUID and CAP_SETGID (CI runs as root); skipped elsewhere.

import (
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

func threadCredentials(t *testing.T) (uids, gids, groups string) {
	t.Helper()
	status, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Fatalf("reading this thread's status: %v", err)
	}
	field := func(name string) string {
		match := regexp.MustCompile(`(?m)^` + name + `:\s*(.*)$`).FindSubmatch(status)
		if match == nil {
			t.Fatalf("no %s line in /proc/thread-self/status", name)
		}
		return strings.TrimSpace(regexp.MustCompile(`\s+`).ReplaceAllString(string(match[1]), " "))
	}
	return field("Uid"), field("Gid"), field("Groups")
}

func TestActingFullyAsTakesTheWorkersCredentialsForTheWorkAlone(t *testing.T) {
	if why := whyIdentitiesCannotBeUsed(); why != "" {
		t.Skip(why)
	}
	identity := &Identity{Name: "sandbox", UID: 65534, GID: 65533}
	private, err := os.CreateTemp("", "acting-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(private.Name())
	private.Close()
	if err := os.Chmod(private.Name(), 0o600); err != nil {
		t.Fatal(err)
	}
	uidsBefore, gidsBefore, groupsBefore := threadCredentials(t)
	var uids, gids, groups string
	var openErr error
	ran := actingFullyAs(identity, func() {
		uids, gids, groups = threadCredentials(t)
		_, openErr = syscall.Open(private.Name(), syscall.O_RDONLY, 0)
	})
	if !ran {
		t.Fatal("the thread could not take the credentials")
	}
	if uids != "0 65534 0 65534" || gids != "0 65533 0 65533" || groups != "65533" {
		t.Errorf("during the work: Uid %q, Gid %q, Groups %q; want the worker's (real and saved 0)", uids, gids, groups)
	}
	if openErr != syscall.EACCES {
		t.Errorf("opening root's 0600 file during the work: %v, want EACCES (no capability in effect)", openErr)
	}
	uidsAfter, gidsAfter, groupsAfter := threadCredentials(t)
	if uidsAfter != uidsBefore || gidsAfter != gidsBefore || groupsAfter != groupsBefore {
		t.Errorf("after: Uid %q Gid %q Groups %q, want root's again: %q %q %q", uidsAfter, gidsAfter, groupsAfter, uidsBefore, gidsBefore, groupsBefore)
	}
	if fd, err := syscall.Open(private.Name(), syscall.O_RDONLY, 0); err != nil {
		t.Errorf("root's file after the work: %v", err)
	} else {
		syscall.Close(fd)
	}
}
