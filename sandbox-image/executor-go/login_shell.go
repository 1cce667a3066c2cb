package main

// SHELL for the commands the executor starts, as a login (login, su -, sshd) sets it: the user's
// shell from /etc/passwd, unless the environment names one already. Without it every bash looks the
// user up at start (bash sets its SHELL variable from the passwd entry when the environment has none):
// /etc/nsswitch.conf and /etc/passwd opened and parsed again by each `bash -c` a tool call or a hook
// runs, 60–80 µs of a 1.1 ms start on the 2-core machine (docs/benchmarks.md#shell-as-a-login-sets-it).

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

const passwdPath = "/etc/passwd"

// loginShells maps a uid to its shell, read from /etc/passwd once, when the first command starts.
var loginShells struct {
	once   sync.Once
	byUser map[int]string
}

// readLoginShells reads the shells of a passwd file; empty when it cannot be read.
func readLoginShells(path string) map[int]string {
	shells := map[int]string{}
	text, err := os.ReadFile(path)
	if err != nil {
		return shells
	}
	for _, line := range strings.Split(string(text), "\n") {
		// name:password:uid:gid:gecos:home:shell
		fields := strings.Split(line, ":")
		if len(fields) != 7 {
			continue
		}
		uid, err := strconv.Atoi(fields[2])
		if err != nil || !usableShell(fields[6]) {
			continue
		}
		// The first entry for a uid is the one getpwuid returns.
		if _, seen := shells[uid]; !seen {
			shells[uid] = fields[6]
		}
	}
	return shells
}

// usableShell: an absolute path of printable characters; an empty field (which means /bin/sh to
// login) or anything else is left for bash to work out as it would.
func usableShell(shell string) bool {
	if !strings.HasPrefix(shell, "/") {
		return false
	}
	for _, character := range shell {
		if character < 0x20 || character == 0x7f {
			return false
		}
	}
	return true
}

// loginShellOf is the shell of the user a command runs as: the identity's, or the executor's own
// (the local executor, which has no identities); "" when its passwd entry has none.
func loginShellOf(identity *Identity) string {
	uid := os.Getuid()
	if identity != nil {
		uid = identity.UID
	}
	loginShells.once.Do(func() { loginShells.byUser = readLoginShells(passwdPath) })
	return loginShells.byUser[uid]
}
