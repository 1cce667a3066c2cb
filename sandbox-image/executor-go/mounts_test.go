package main

// Read-only mounts, from /proc/self/mountinfo: how the executor recognises that a hooks file lies on a
// read-only mount, so that sandbox code cannot have rewritten it.

import (
	"strings"
	"testing"
)

var mountTable = strings.Join([]string{
	"116 67 0:50 / / rw,relatime master:3 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w",
	"117 116 0:53 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
	"120 116 0:56 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro",
	"135 116 254:0 /volumes/a/_data /workspace/.agents ro,relatime master:1 - ext4 /dev/vda rw",
	`136 116 254:0 /volumes/b/_data /workspace/my\040repo ro,relatime - ext4 /dev/vda rw`,
	"137 116 254:0 /volumes/c/_data /workspace/stacked ro,relatime - ext4 /dev/vda rw",
	"138 137 254:0 /volumes/d/_data /workspace/stacked rw,relatime - ext4 /dev/vda rw",
	"",
}, "\n")

func TestReadOnlyMounts(t *testing.T) {
	cases := []struct {
		table, path string
		want        bool
		why         string
	}{
		{mountTable, "/workspace/.agents/hooks.json", true, "below a read-only mount"},
		{mountTable, "/workspace/.agents", true, "the mount point itself"},
		{mountTable, "/workspace/.agents-not/hooks.json", false, "a prefix of a name is not a folder"},
		{mountTable, "/workspace/hooks.json", false, "on the writable root"},
		{mountTable, "/workspace/stacked/hooks.json", false, "the writable mount on top counts"},
		{mountTable, "/sys/kernel/x", true, "the deepest mount holding the path"},
		{mountTable, "/workspace/my repo/hooks.json", true, "mount points with spaces, which the kernel writes as octal escapes"},
		{"", "/workspace/.agents/hooks.json", false, "nothing is read-only from an empty table"},
	}
	for _, c := range cases {
		if got := isReadOnlyIn(c.table, c.path); got != c.want {
			t.Errorf("%s: read-only %v, want %v (%s)", c.path, got, c.want, c.why)
		}
	}
}
