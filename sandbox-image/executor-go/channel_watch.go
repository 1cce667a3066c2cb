package main

// What the keep-alive waits for while a channel's executor runs: the executor's exit (a pidfd, readable
// once it exits) and the emulator's hang-up (EPOLLRDHUP on the keep-alive's copy of the connection), in
// one epoll instance of their own that the runtime's poller waits on in turn. No thread is held for
// either: a thread blocked in wait4 for the executor's life and another in epoll_wait for the hang-up
// made two of the keep-alive's seven threads, and each thread is one of the kernel's tasks, whose limit
// is what bounds how many live environments one machine holds (docs/benchmarks.md#density).

import (
	"os"
	"syscall"
	"time"
)

type channelWatch struct {
	file   *os.File // the epoll instance, registered with the runtime's poller
	raw    syscall.RawConn
	epoll  int // file's descriptor
	conn   int // the keep-alive's copy of the connection (not owned)
	exitFd int // the executor's pidfd (owned)
}

// newChannelWatch watches the executor `pid` and the connection `conn`; an error where the kernel has
// no pidfd (before Linux 5.3) or the seccomp profile refuses it. It must be made before anything can
// reap the executor, so that the pidfd is surely this process's.
func newChannelWatch(conn int, pid int) (*channelWatch, error) {
	exitFd, err := pidfdOpen(pid)
	if err != nil {
		return nil, err
	}
	epoll, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		syscall.Close(exitFd)
		return nil, err
	}
	fail := func(err error) (*channelWatch, error) {
		syscall.Close(epoll)
		syscall.Close(exitFd)
		return nil, err
	}
	hangup := syscall.EpollEvent{Events: syscall.EPOLLRDHUP, Fd: int32(conn)}
	if err := syscall.EpollCtl(epoll, syscall.EPOLL_CTL_ADD, conn, &hangup); err != nil {
		return fail(err)
	}
	exit := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(exitFd)}
	if err := syscall.EpollCtl(epoll, syscall.EPOLL_CTL_ADD, exitFd, &exit); err != nil {
		return fail(err)
	}
	file := pollableFile(epoll, "channel watch")
	raw, err := file.SyscallConn()
	if err == nil {
		// Refused (os.ErrNoDeadline) where the poller did not take the epoll instance: then the timed
		// watch stands in, rather than a wait that no hang-up would end.
		err = file.SetReadDeadline(time.Time{})
	}
	if err != nil {
		file.Close()
		syscall.Close(exitFd)
		return nil, err
	}
	return &channelWatch{file: file, raw: raw, epoll: epoll, conn: conn, exitFd: exitFd}, nil
}

// supervise returns once the executor has exited: at once when it exits first; after the emulator hangs
// up, once endAfterHangup has ended it.
func (watch *channelWatch) supervise(process *os.Process) {
	exited, hungUp, err := watch.wait(time.Time{})
	if err != nil {
		logDiagnostic("channel connection: watching the executor: %v", err)
		return
	}
	if exited || !hungUp {
		return
	}
	// The hang-up stays ready (level-triggered): from now on only the exit is waited for.
	_ = syscall.EpollCtl(watch.epoll, syscall.EPOLL_CTL_DEL, watch.conn, nil)
	endAfterHangup(process, watch.exitedWithin)
}

func (watch *channelWatch) exitedWithin(grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	for {
		exited, _, err := watch.wait(deadline)
		if exited || err != nil {
			return exited
		}
	}
}

// wait parks until the executor exited or the connection was hung up (which of them is ready), or until
// the deadline (zero: none; then err is os.ErrDeadlineExceeded).
func (watch *channelWatch) wait(deadline time.Time) (exited, hungUp bool, err error) {
	if err := watch.file.SetReadDeadline(deadline); err != nil {
		return false, false, err
	}
	events := make([]syscall.EpollEvent, 2)
	var pollErr error
	// Read calls the function again each time the poller finds the epoll instance readable.
	readErr := watch.raw.Read(func(epoll uintptr) bool {
		for {
			count, err := syscall.EpollWait(int(epoll), events, 0)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				pollErr = err
				return true
			}
			for _, ready := range events[:count] {
				exited = exited || ready.Fd == int32(watch.exitFd)
				hungUp = hungUp || ready.Fd == int32(watch.conn)
			}
			return count > 0
		}
	})
	if readErr != nil {
		return false, false, readErr
	}
	return exited, hungUp, pollErr
}

// close closes the epoll instance and the pidfd (not the connection's copy).
func (watch *channelWatch) close() {
	watch.file.Close()
	syscall.Close(watch.exitFd)
}
