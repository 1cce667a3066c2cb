package main

// A command's exit, waited for by the runtime's poller (a pidfd turns readable when its process exits)
// rather than by a thread blocked in wait4 for the command's whole life (pollable_files.go says why that
// costs). Where the kernel has no pidfd_open (before Linux 5.3; Debian's gVisor answers ENOSYS) or a
// seccomp profile refuses it, the wait falls back to os/exec's blocking one.

import (
	"os/exec"
	"syscall"
)

// The same number on every architecture (the syscall table unified after 5.1).
const sysPidfdOpen = 434

// pidfdOpen is a descriptor of the process `pid` that turns readable once it exits; an error where the
// kernel has none or the seccomp profile refuses it. Only for a child not yet reaped: then `pid` is
// surely that child.
func pidfdOpen(pid int) (int, error) {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// watchExit calls onExit once with the child's wait status, after reaping it.
func watchExit(child *exec.Cmd, onExit func(status syscall.WaitStatus)) {
	pid := child.Process.Pid
	fd, err := pidfdOpen(pid)
	if err != nil {
		go blockingWait(child, onExit)
		return
	}
	file := pollableFile(fd, "pidfd")
	raw, err := file.SyscallConn()
	if err != nil {
		file.Close()
		go blockingWait(child, onExit)
		return
	}
	go func() {
		defer file.Close()
		var status syscall.WaitStatus
		reaped := false
		// Read calls the function again each time the poller finds the pidfd readable: until the
		// process can be reaped without waiting.
		readErr := raw.Read(func(uintptr) bool {
			for {
				got, err := syscall.Wait4(pid, &status, syscall.WNOHANG, nil)
				if err == syscall.EINTR {
					continue
				}
				reaped = got == pid || err != nil
				return reaped
			}
		})
		if readErr != nil || !reaped {
			// The poller could not wait on it after all (never on Linux): wait the old way.
			for {
				_, err := syscall.Wait4(pid, &status, 0, nil)
				if err != syscall.EINTR {
					break
				}
			}
		}
		onExit(status)
	}()
}

func blockingWait(child *exec.Cmd, onExit func(status syscall.WaitStatus)) {
	_ = child.Wait()
	status, _ := child.ProcessState.Sys().(syscall.WaitStatus)
	onExit(status)
}
