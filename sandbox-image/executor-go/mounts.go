package main

// Whether a path lies on a read-only mount, from /proc/self/mountinfo. Read afresh on every
// call: it is a few dozen short lines, and on a host (the local executor) mounts can change.

import (
	"os"
	"regexp"
	"strconv"
	"strings"
)

func isOnReadOnlyMount(realPath string) bool {
	table, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	return isReadOnlyIn(string(table), realPath)
}

var octalEscape = regexp.MustCompile(`\\([0-7]{3})`)

func isReadOnlyIn(table, realPath string) bool {
	bestLength := -1
	readOnly := false
	for _, line := range strings.Split(table, "\n") {
		// "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": field 5 is the mount point, 6 its options.
		fields := strings.Split(line, " ")
		if len(fields) < 6 {
			continue
		}
		point := octalEscape.ReplaceAllStringFunc(fields[4], func(escape string) string {
			value, _ := strconv.ParseInt(escape[1:], 8, 32)
			return string(rune(value))
		})
		if !(point == "/" || realPath == point || strings.HasPrefix(realPath, point+"/")) {
			continue
		}
		// The deepest mount point wins; among mounts on one point, the later one (mounted on top).
		if len(point) >= bestLength {
			bestLength = len(point)
			readOnly = contains(strings.Split(fields[5], ","), "ro")
		}
	}
	return readOnly
}
