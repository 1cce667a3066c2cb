package main

// Descriptors the Go runtime's poller waits on, rather than a thread blocked in read(2) for each.
//
// A read on a blocking descriptor holds a thread in the kernel, and its P with it: with two cores, the
// channel's reader and the file worker's answer reader blocked in read leave no P free, so every
// command's own wait hands its P on (sysmon takes it back after 20 µs and starts another thread),
// and each step of a tool call became a wake-up of one thread by another. A non-blocking descriptor
// registered with the poller parks its goroutine instead, and costs no thread while it waits.

import (
	"os"
	"syscall"
)

// pollableFile wraps fd for the poller: it is made non-blocking first (os.NewFile registers only
// those). A descriptor the poller cannot wait on (a regular file, /dev/null) is read as before.
// Only for descriptors this process alone reads and writes: O_NONBLOCK belongs to the open file, so
// any other process sharing it would see EAGAIN where it expects to wait.
func pollableFile(fd int, name string) *os.File {
	_ = syscall.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), name)
}
