package main

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func threadTimerSlack(t *testing.T) uintptr {
	t.Helper()
	slack, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
	if errno != 0 {
		t.Skipf("PR_GET_TIMERSLACK: %v", errno)
	}
	return slack
}

func TestWithTimerSlackStartsTheProcessWithItAndPutsTheThreadsBack(t *testing.T) {
	if _, err := os.Stat("/proc/self/timerslack_ns"); err != nil {
		t.Skip("no /proc/self/timerslack_ns")
	}
	// Locked here too, so the thread checked after is the one withTimerSlack changed (locks nest).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	own := threadTimerSlack(t)
	for _, slack := range []uintptr{executorTimerSlackNs, defaultTimerSlackNs, 2_000_000} {
		command := exec.Command("cat", "/proc/self/timerslack_ns")
		var out bytes.Buffer
		command.Stdout = &out
		if err := withTimerSlack(slack, command.Start); err != nil {
			t.Fatal(err)
		}
		if err := command.Wait(); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.TrimSpace(out.String()), strconv.FormatUint(uint64(slack), 10); got != want {
			t.Errorf("started with a slack of %d ns, the process has %s", slack, got)
		}
		if got := threadTimerSlack(t); got != own {
			t.Errorf("the thread's slack is %d ns after the start, %d before", got, own)
		}
	}
}
