package main

// A command's stdout and stderr, read by one loop. Two readers (a goroutine per pipe) race to send
// their frames, so `echo out; echo oops >&2` could reach the caller as "oops" then "out"; the protocol's
// callers (and Node's single poll loop before this executor) see stdout first when both pipes are ready.
// One ppoll over both raw descriptors, stdout checked first, keeps what was written in order in order.

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

const (
	pollIn   = 0x1
	pollErr  = 0x8
	pollHup  = 0x10
	pollNval = 0x20
)

// pollFd is struct pollfd, the same layout on every Linux architecture.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

type outputStream struct {
	name string
	fd   int // the read end; -1 once it reached end of file
}

// OutputPipes holds the read ends of a command's stdout and stderr, and a wake-up pipe through which
// abandon ends the loop: a raw descriptor must never be closed under a ppoll blocked on it (the number
// could be reused by the next open before the poll returns), so only the loop itself closes them.
type OutputPipes struct {
	streams   [2]outputStream
	wakeRead  int
	wakeWrite int

	lock   sync.Mutex
	closed bool
}

// newOutputPipes makes the two pipes and returns their write ends for the child.
func newOutputPipes() (pipes *OutputPipes, stdoutWrite, stderrWrite int, err error) {
	var made []int
	pipe := func() (int, int, error) {
		var ends [2]int
		if err := syscall.Pipe2(ends[:], syscall.O_CLOEXEC); err != nil {
			return -1, -1, err
		}
		made = append(made, ends[0], ends[1])
		return ends[0], ends[1], nil
	}
	fail := func(err error) (*OutputPipes, int, int, error) {
		for _, fd := range made {
			syscall.Close(fd)
		}
		return nil, -1, -1, err
	}
	stdoutRead, stdoutWrite, err := pipe()
	if err != nil {
		return fail(err)
	}
	stderrRead, stderrWrite, err := pipe()
	if err != nil {
		return fail(err)
	}
	wakeRead, wakeWrite, err := pipe()
	if err != nil {
		return fail(err)
	}
	pipes = &OutputPipes{
		streams:   [2]outputStream{{"stdout", stdoutRead}, {"stderr", stderrRead}},
		wakeRead:  wakeRead,
		wakeWrite: wakeWrite,
	}
	return pipes, stdoutWrite, stderrWrite, nil
}

// outputBufferBytes is what one read of a pipe takes at most: a pipe's default capacity.
const outputBufferBytes = 64 * 1024

// outputBuffers are the pumps' read buffers, kept between commands: one made and zeroed for each
// command was the largest allocation of a tool call, and the garbage collector's work that goes with
// it (docs/benchmarks.md#the-executors-output-buffer).
var outputBuffers = sync.Pool{New: func() any { return new([outputBufferBytes]byte) }}

// pump forwards output until both pipes reach end of file or abandon is called, then closes every
// descriptor it holds. Each turn reads at most one chunk per ready pipe, stdout first. The pipes are
// watched by an epoll instance of their own, which the runtime's poller waits on in turn: no thread is
// held in ppoll for the command's life (pollable_files.go says why that costs). Where that cannot be
// set up, one thread waits in ppoll as before.
func (pipes *OutputPipes) pump(forward func(stream string, chunk []byte)) {
	defer pipes.close()
	buffer := outputBuffers.Get().(*[outputBufferBytes]byte)[:]
	// forward has written each chunk before it returns: nothing refers to the buffer once pump ends.
	defer outputBuffers.Put((*[outputBufferBytes]byte)(buffer))
	if watch := pipes.pollerWatch(); watch != nil {
		defer watch.Close()
		if raw, err := watch.SyscallConn(); err == nil {
			done := false
			// Read calls the function again each time the poller finds the epoll instance readable.
			_ = raw.Read(func(uintptr) bool {
				done = pipes.turns(buffer, forward, false)
				return done
			})
			if done {
				return
			}
		}
	}
	pipes.turns(buffer, forward, true)
}

// pollerWatch is an epoll instance (level-triggered) over the two pipes and the wake-up pipe, made
// for the runtime's poller; nil when one cannot be made.
func (pipes *OutputPipes) pollerWatch() *os.File {
	epoll, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	for _, fd := range []int{pipes.streams[0].fd, pipes.streams[1].fd, pipes.wakeRead} {
		event := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
		if syscall.EpollCtl(epoll, syscall.EPOLL_CTL_ADD, fd, &event) != nil {
			syscall.Close(epoll)
			return nil
		}
	}
	return pollableFile(epoll, "output pipes")
}

// turns reads what is ready until both pipes are over (true) or, when `wait` is false, until nothing
// is ready (false: the caller waits for the next readiness). With `wait` it blocks in ppoll.
func (pipes *OutputPipes) turns(buffer []byte, forward func(stream string, chunk []byte), wait bool) bool {
	polled := make([]pollFd, 0, 3)
	var none syscall.Timespec
	timeout := uintptr(unsafe.Pointer(&none))
	if wait {
		timeout = 0
	}
	for {
		polled = polled[:0]
		for _, stream := range pipes.streams {
			if stream.fd >= 0 {
				polled = append(polled, pollFd{fd: int32(stream.fd), events: pollIn})
			}
		}
		if len(polled) == 0 {
			return true
		}
		polled = append(polled, pollFd{fd: int32(pipes.wakeRead), events: pollIn})
		ready, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&polled[0])), uintptr(len(polled)), timeout, 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return true
		}
		if ready == 0 {
			return false
		}
		if polled[len(polled)-1].revents != 0 {
			// Abandoned: what the command wrote before it exited is still taken, however late this loop
			// got to run (on busy cores it could be past the grace, and a `cat`'s whole output was lost).
			pipes.drain(buffer, forward)
			return true
		}
		next := 0
		for index := range pipes.streams {
			stream := &pipes.streams[index]
			if stream.fd < 0 {
				continue
			}
			ready := polled[next].revents
			next++
			if ready&(pollIn|pollHup|pollErr|pollNval) == 0 {
				continue
			}
			count, err := syscall.Read(stream.fd, buffer)
			if count > 0 {
				forward(stream.name, buffer[:count])
				continue
			}
			if err == syscall.EINTR || err == syscall.EAGAIN {
				continue
			}
			// End of file (count 0), or a pipe that can no longer be read: this stream is over.
			syscall.Close(stream.fd)
			stream.fd = -1
		}
	}
}

// drainBytes bounds what an abandoned loop still reads from each pipe: a grandchild that keeps writing
// must not keep it going (a pipe holds 64 KiB unless its writer enlarged it, at most 1 MiB by default).
const drainBytes = 1 << 20

// drain forwards what each pipe holds now, stdout first, without waiting for more: at most drainBytes
// of each, until it is empty or at end of file.
func (pipes *OutputPipes) drain(buffer []byte, forward func(stream string, chunk []byte)) {
	for index := range pipes.streams {
		stream := &pipes.streams[index]
		for taken := 0; stream.fd >= 0 && taken < drainBytes; {
			polled := []pollFd{{fd: int32(stream.fd), events: pollIn}}
			var none syscall.Timespec
			ready, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&polled[0])), 1, uintptr(unsafe.Pointer(&none)), 0, 0, 0)
			if errno == syscall.EINTR {
				continue
			}
			if errno != 0 || ready == 0 || polled[0].revents&(pollIn|pollHup|pollErr|pollNval) == 0 {
				break
			}
			want := len(buffer)
			if drainBytes-taken < want {
				want = drainBytes - taken
			}
			count, err := syscall.Read(stream.fd, buffer[:want])
			if count > 0 {
				forward(stream.name, buffer[:count])
				taken += count
				continue
			}
			if err == syscall.EINTR {
				continue
			}
			break
		}
	}
}

// abandon ends the loop while something still holds a pipe (a backgrounded grandchild); what the pipes
// hold then is still forwarded (drain), nothing written after. Safe to call at any time, any number of times.
func (pipes *OutputPipes) abandon() {
	pipes.lock.Lock()
	defer pipes.lock.Unlock()
	if !pipes.closed {
		_, _ = syscall.Write(pipes.wakeWrite, []byte{1})
	}
}

// close closes every descriptor still open; also for a command that never started.
func (pipes *OutputPipes) close() {
	pipes.lock.Lock()
	defer pipes.lock.Unlock()
	if pipes.closed {
		return
	}
	pipes.closed = true
	for index := range pipes.streams {
		if pipes.streams[index].fd >= 0 {
			syscall.Close(pipes.streams[index].fd)
			pipes.streams[index].fd = -1
		}
	}
	syscall.Close(pipes.wakeRead)
	syscall.Close(pipes.wakeWrite)
}
