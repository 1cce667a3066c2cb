package main

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startWatched starts argv with a connection (one end of a socket pair) watched for it; returns the
// watch, the command and the peer's end (closing it is the emulator's hang-up).
func startWatched(t *testing.T, argv ...string) (*channelWatch, *exec.Cmd, int) {
	t.Helper()
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(pair[0]) })
	command := exec.Command(argv[0], argv[1:]...)
	if err := command.Start(); err != nil {
		t.Fatal(err)
	}
	watch, err := newChannelWatch(pair[0], command.Process.Pid)
	if err != nil {
		_ = command.Process.Kill()
		_ = command.Wait()
		syscall.Close(pair[1])
		t.Skipf("no pidfd for the poller here: %v", err)
	}
	return watch, command, pair[1]
}

func TestChannelWatchReturnsAsTheExecutorExits(t *testing.T) {
	watch, command, peer := startWatched(t, "sleep", "0.2")
	defer syscall.Close(peer)
	started := time.Now()
	watch.supervise(command.Process)
	watch.close()
	if err := command.Wait(); err != nil {
		t.Fatalf("the process did not end by itself: %v", err)
	}
	if elapsed := time.Since(started); elapsed > time.Second {
		t.Fatalf("returned %v after an exit at 0.2 s", elapsed)
	}
}

func TestChannelWatchEndsAnExecutorThatOutlivesTheHangup(t *testing.T) {
	watch, command, peer := startWatched(t, "sleep", "60")
	started := time.Now()
	syscall.Close(peer)
	watch.supervise(command.Process)
	watch.close()
	_ = command.Wait()
	status := command.ProcessState.Sys().(syscall.WaitStatus)
	if !status.Signaled() || status.Signal() != syscall.SIGTERM {
		t.Fatalf("ended with %v, not by SIGTERM", status)
	}
	if elapsed := time.Since(started); elapsed < channelHangupGrace || elapsed > channelHangupGrace+2*time.Second {
		t.Fatalf("ended %v after the hang-up; the grace is %v", elapsed, channelHangupGrace)
	}
}
