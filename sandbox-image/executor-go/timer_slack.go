package main

// Go's monitor thread (sysmon) sleeps 20 µs at a time once the executor wakes from idle, and the
// executor goes idle between any two tool calls: a command of a millisecond or two woke it about ten
// times, each a timer's interrupt and a thread switched in and out, charged to the sandbox's one CPU
// (docs/benchmarks.md#a-threads-timer-slack). Go 1.19 has no setting for it. A thread's timer slack is
// how much later than asked the kernel may fire its timers (50 µs by default, so that they coalesce);
// a thread gets its creator's, and a process keeps it across exec. So the keep-alive starts each
// executor from a thread whose slack is executorTimerSlackNs: the executor's threads, its monitor among
// them, and its file worker sleep at least that long when they ask for less, and no timer of theirs
// needs better (a command's deadline, the hang-up's grace, the disk guard's pause are milliseconds to
// seconds). Every command and hook command the executor starts is given the kernel's default back
// first, so what runs in the sandbox sees the timers it would anywhere else.

import (
	"runtime"
	"syscall"
)

const (
	prSetTimerSlack = 29 // PR_SET_TIMERSLACK
	prGetTimerSlack = 30 // PR_GET_TIMERSLACK
	// [choice] A millisecond: the monitor wakes at most about once a millisecond while it polls, and no
	// timer of the executor's is that fine.
	executorTimerSlackNs = 1_000_000
	// The kernel's default for a normal thread (Documentation/timers/timers-howto): what a command gets.
	defaultTimerSlackNs = 50_000
)

// withTimerSlack runs start (a process's start) on one OS thread whose timer slack is slackNs meanwhile,
// so that the process starts with it; the thread's own slack is put back after. Where the kernel
// refuses, start runs as it would have.
func withTimerSlack(slackNs uintptr, start func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	previous, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
	if errno != 0 || previous == slackNs {
		return start()
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, slackNs, 0); errno != 0 {
		return start()
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, previous, 0)
	return start()
}
