package main

// The executor's channel over a Unix socket, served by the container's keep-alive (root's, started with
// --hold-port): the emulator connects to CHANNEL_SOCKET_FILE in a folder of its data folder that is
// bind-mounted at ChannelFolder, so the bytes of a tool call never ride the engine's exec stream.
//
// At its start the keep-alive serves only when the emulator placed CHANNEL_SECRET_FILE in that folder
// (older emulators, and engines where the mount cannot hold a socket, use `docker exec` as before). It
// first makes the folder above the mount root's alone (0700): no process of the sandbox or hooks user can
// reach the socket or read the secret (they are not root, and the container grants no CAP_DAC_*
// capability that would let them past). Each connection must open with a preamble carrying the secret
// (never on a command line or in an environment: /proc/<pid>/cmdline is world-readable) and the
// executor's arguments; one that does not is closed. Then an executor starts with the connection as its
// stdin and stdout (as `docker exec` gave it before): the same frames, flow windows and egress streams.
//
// The keep-alive keeps its own copy of the connection, out of the Go runtime's poller (which would wake
// it at every frame), and watches it for the peer's hang-up (epoll, EPOLLRDHUP: nothing is read from
// it). An executor still running 2 s after the emulator closed its end (a clean close ends it at once:
// its stdin ends) is taken for wedged: SIGCONT, SIGTERM (it kills its commands' process trees and
// exits), SIGKILL 2 s later. This is what reapExecutor did through the engine before.

import (
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

const (
	// How long a new connection may take to send its preamble.
	channelPreambleDeadline = 5 * time.Second
	// After the peer hung up: how long the executor may take to end by itself, then after SIGTERM.
	channelHangupGrace = 2 * time.Second
)

type channelPreamble struct {
	Secret string   `json:"secret"`
	Argv   []string `json:"argv"`
}

// serveChannel listens for the emulator's connections for the container's life; it returns (leaving
// the keep-alive to hold the port alone) when the emulator asked for no socket or it cannot be served.
func serveChannel(folder string) {
	secretPath := filepath.Join(folder, ChannelSecretFile)
	if _, err := os.Stat(secretPath); err != nil {
		return
	}
	if err := lockChannelParent(filepath.Dir(folder)); err != nil {
		logDiagnostic("not serving the channel socket: %v", err)
		return
	}
	socketPath := filepath.Join(folder, ChannelSocketFile)
	// One left by the container's previous run (a restart) would make the bind fail.
	_ = os.Remove(socketPath)
	listener, err := net.ListenUnix("unix", &net.UnixAddr{Name: socketPath, Net: "unix"})
	if err != nil {
		logDiagnostic("not serving the channel socket: %v", err)
		return
	}
	// The emulator may run as another user than the container's root: the folder above (0700, root's)
	// is what keeps everyone in the container out, the data folder's own mode everyone on the host.
	if err := os.Chmod(socketPath, 0o666); err != nil {
		logDiagnostic("channel socket: %v", err)
	}
	for {
		conn, err := listener.AcceptUnix()
		if err != nil {
			logDiagnostic("channel socket: %v", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go serveChannelConnection(conn, secretPath)
	}
}

// lockChannelParent makes the folder holding the mount root's with mode 0700, and checks it is.
func lockChannelParent(parent string) error {
	if err := os.Chmod(parent, 0o700); err != nil {
		return err
	}
	info, err := os.Lstat(parent)
	if err != nil {
		return err
	}
	stat, ok := info.Sys().(*syscall.Stat_t)
	if !info.IsDir() || !ok || stat.Uid != 0 || info.Mode().Perm() != 0o700 {
		return fmt.Errorf("%s is not a folder of root's with mode 0700", parent)
	}
	return nil
}

// channelConn is a connection of either channel: the Unix socket's or the network's.
type channelConn interface {
	net.Conn
	File() (*os.File, error)
	SyscallConn() (syscall.RawConn, error)
}

func serveChannelConnection(conn channelConn, secretPath string) {
	preamble, err := readChannelPreamble(conn, secretPath)
	if err != nil {
		logDiagnostic("channel connection refused: %v", err)
		conn.Close()
		return
	}
	file, err := conn.File()
	if err != nil {
		logDiagnostic("channel connection: %v", err)
		conn.Close()
		return
	}
	watch, err := unpolledCopy(conn)
	// The connection itself goes now (the socket stays open in the executor's copy and in `watch`): the
	// runtime's poller watched it, edge-triggered, so every frame the emulator sent and every write the
	// executor made woke this process too, for nothing (two or three wake-ups a tool call).
	conn.Close()
	if err != nil {
		logDiagnostic("channel connection: %v", err)
		file.Close()
		return
	}
	// The keep-alive's own path (the container's command names it in full): where an executor installed
	// over an older one (the upgrade path) lies, so the next connection starts the new one.
	command := exec.Command(os.Args[0], preamble.Argv...)
	command.Stdin, command.Stdout, command.Stderr = file, file, os.Stderr
	// Its threads wake for their timers at most about once a millisecond (timer_slack.go).
	err = withTimerSlack(executorTimerSlackNs, command.Start)
	file.Close()
	if err != nil {
		logDiagnostic("channel connection: cannot start the executor: %v", err)
		syscall.Close(watch)
		return
	}
	// Made before Wait can reap the executor (channel_watch.go).
	if supervisor, err := newChannelWatch(watch, command.Process.Pid); err == nil {
		supervisor.supervise(command.Process)
		supervisor.close()
		// At once: the executor has exited (or the watch failed, and this waits as the fallback does).
		_ = command.Wait()
	} else {
		exited := make(chan struct{})
		go endWhenHungUp(watch, command.Process, exited)
		_ = command.Wait()
		close(exited)
	}
	// Only now does the emulator see the connection end: the executor's copy is closed, and this one.
	syscall.Close(watch)
}

// unpolledCopy is a copy of the connection's descriptor that the runtime's poller does not watch, closed
// on exec (no executor or command may inherit it): what the keep-alive keeps to watch for the hang-up.
func unpolledCopy(conn channelConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	copied := -1
	var dupErr error
	if err := raw.Control(func(fd uintptr) {
		copied, dupErr = fcntlDupCloseOnExec(int(fd))
	}); err != nil {
		return -1, err
	}
	return copied, dupErr
}

func fcntlDupCloseOnExec(fd int) (int, error) {
	copied, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(copied), nil
}

func readChannelPreamble(conn channelConn, secretPath string) (*channelPreamble, error) {
	_ = conn.SetReadDeadline(time.Now().Add(channelPreambleDeadline))
	defer conn.SetReadDeadline(time.Time{})
	var length [4]byte
	if _, err := io.ReadFull(conn, length[:]); err != nil {
		return nil, fmt.Errorf("no preamble: %v", err)
	}
	size := binary.BigEndian.Uint32(length[:])
	if size == 0 || size > ChannelPreambleMaxBytes {
		return nil, fmt.Errorf("a preamble of %d bytes", size)
	}
	// Exactly the preamble: the frames that follow are the executor's to read.
	body := make([]byte, size)
	if _, err := io.ReadFull(conn, body); err != nil {
		return nil, fmt.Errorf("preamble cut short: %v", err)
	}
	var preamble channelPreamble
	if err := json.Unmarshal(body, &preamble); err != nil {
		return nil, fmt.Errorf("the preamble is not JSON: %v", err)
	}
	expected, err := os.ReadFile(secretPath)
	if err != nil {
		return nil, err
	}
	given, err := hex.DecodeString(preamble.Secret)
	wanted, wantedErr := hex.DecodeString(string(expected))
	if err != nil || wantedErr != nil || len(wanted) < 16 || subtle.ConstantTimeCompare(given, wanted) != 1 {
		return nil, errorText("wrong secret")
	}
	parsed, err := parseExecutorArguments(preamble.Argv)
	if err != nil {
		return nil, err
	}
	if len(parsed.Identities) == 0 || parsed.HoldPort != "" || parsed.FileWorkerFor != "" {
		return nil, errorText("the preamble's arguments are not an executor's")
	}
	return &preamble, nil
}

// endWhenHungUp is the watch where the kernel has no pidfd (channel_watch.go is the other): it waits for
// the emulator to close its end (or for the executor to exit first), then gives the executor
// channelHangupGrace to end by itself before ending it.
func endWhenHungUp(fd int, process *os.Process, exited <-chan struct{}) {
	if !waitForHangup(fd, exited) {
		return
	}
	endAfterHangup(process, func(grace time.Duration) bool { return exitedWithin(exited, grace) })
}

// endAfterHangup gives an executor whose channel the emulator closed channelHangupGrace to end by itself
// (a clean close ends it at once: its stdin ends), then SIGCONT and SIGTERM (a wedged or stopped one),
// then SIGKILL after the grace again. exitedWithin says whether it exited within the time given.
func endAfterHangup(process *os.Process, exitedWithin func(grace time.Duration) bool) {
	if exitedWithin(channelHangupGrace) {
		return
	}
	_ = process.Signal(syscall.SIGCONT)
	_ = process.Signal(syscall.SIGTERM)
	if !exitedWithin(channelHangupGrace) {
		_ = process.Signal(syscall.SIGKILL)
	}
}

// exitedWithin waits for `exited` at most `grace`; its timer is stopped when `exited` comes first, so
// nothing is left to wake the keep-alive once the executor is gone.
func exitedWithin(exited <-chan struct{}, grace time.Duration) bool {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-exited:
		return true
	case <-timer.C:
		return false
	}
}

// waitForHangup blocks until the peer shut its end of the connection (fd) down (true) or the executor
// exited (false), looking at `exited` every 500 ms.
func waitForHangup(fd int, exited <-chan struct{}) bool {
	epoll, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		logDiagnostic("channel connection: epoll: %v", err)
		<-exited
		return false
	}
	defer syscall.Close(epoll)
	event := syscall.EpollEvent{Events: syscall.EPOLLRDHUP, Fd: int32(fd)}
	err = syscall.EpollCtl(epoll, syscall.EPOLL_CTL_ADD, fd, &event)
	if err != nil {
		logDiagnostic("channel connection: watching for hang-up: %v", err)
		<-exited
		return false
	}
	events := make([]syscall.EpollEvent, 1)
	for {
		select {
		case <-exited:
			return false
		default:
		}
		count, err := syscall.EpollWait(epoll, events, 500)
		if err != nil && err != syscall.EINTR {
			<-exited
			return false
		}
		if count > 0 {
			return true
		}
	}
}
