package main

// The egress listener: the sandbox has no network, so programs reach the egress proxy by connecting
// here (HTTP_PROXY=http://127.0.0.1:3128) and each accepted connection travels over the channel as an
// egress stream. One listener per executor; everything is torn down when the executor exits.
//
// Two things sandbox code must not be able to do with it:
//   - use up the hooks' way out: connections are counted per owner (the uid that made the socket, from
//     the kernel's table: loopback_sockets.go), the hooks user's against EgressMaxHookStreams and
//     everyone else's against EgressMaxStreams, so idle connections held by sandbox code never stop a
//     read-only hook's request;
//   - take the port: the container's keep-alive holds it bound as root with SO_REUSEPORT
//     (egress_port_holder.go), which only root may join, and the listener joins it; no other user can
//     bind the address while the container lives, between two executors included.

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const listenRetryInterval = 100 * time.Millisecond

// EgressListener accepts the sandbox's connections and routes the server's stream frames to them.
type EgressListener struct {
	send func(frame any, body []byte)
	// The hooks user's uid, whose connections have a budget of their own; -1 without identities.
	hooksUID     int
	lock         sync.Mutex
	listener     net.Listener
	starting     bool
	stopped      bool
	nextStreamID int64
	connections  map[int64]*EgressConnection
	// Open connections per budget: "hooks" and "" (everyone else).
	open map[string]int
}

func newEgressListener(send func(frame any, body []byte), identities map[string]*Identity) *EgressListener {
	hooksUID := -1
	if hooks := identities["hooks"]; hooks != nil {
		hooksUID = hooks.UID
	}
	return &EgressListener{send: send, hooksUID: hooksUID, nextStreamID: 1, connections: map[int64]*EgressConnection{}, open: map[string]int{}}
}

// listenConfig binds with SO_REUSEPORT: the way to join the keep-alive's hold on the port, which the
// kernel grants to sockets of the same uid (root) only. Used only where the keep-alive holds the port:
// gVisor's kernel grants SO_REUSEPORT to any user, so there (the keep-alive is a plain sleep) a listener
// with it could be joined by sandbox code, and one without it cannot.
var listenConfig = net.ListenConfig{Control: func(network, address string, raw syscall.RawConn) error {
	var optionErr error
	err := raw.Control(func(fd uintptr) {
		optionErr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1)
	})
	if err != nil {
		return err
	}
	return optionErr
}}

// listen returns the port bound; it retries while the port is in use, or while another socket listens on
// the address (a previous executor still exiting, which SO_REUSEPORT would otherwise let us join).
func (egress *EgressListener) listen(host string, port int) (int, *FileOpError) {
	egress.lock.Lock()
	if egress.listener != nil || egress.starting {
		egress.lock.Unlock()
		return 0, &FileOpError{"EALREADY", "this executor already has an egress listener"}
	}
	egress.starting = true
	egress.lock.Unlock()
	defer func() {
		egress.lock.Lock()
		egress.starting = false
		egress.lock.Unlock()
	}()
	deadline := time.Now().Add(EgressListenRetryMs * time.Millisecond)
	address := net.JoinHostPort(host, strconv.Itoa(port))
	for {
		if egress.isStopped() {
			return 0, &FileOpError{"ECANCELED", "the executor is shutting down"}
		}
		// Joining a listener that is still there would split the sandbox's connections between us and an
		// executor that is ending: wait for it as for a port in use, and give up the same way.
		if resolved, err := net.ResolveTCPAddr("tcp", address); err == nil && port != 0 && listeningAt(resolved) {
			if time.Now().After(deadline) {
				return 0, &FileOpError{"EADDRINUSE", "listen EADDRINUSE: another process still listens on " + address}
			}
			time.Sleep(listenRetryInterval)
			continue
		}
		joining := net.ListenConfig{}
		if keepAliveHoldsPort() {
			joining = listenConfig
		}
		listener, err := joining.Listen(context.Background(), "tcp", address)
		if err == nil {
			egress.lock.Lock()
			if egress.stopped {
				egress.lock.Unlock()
				listener.Close()
				return 0, &FileOpError{"ECANCELED", "the executor is shutting down"}
			}
			egress.listener = listener
			egress.lock.Unlock()
			go egress.acceptLoop(listener)
			return listener.Addr().(*net.TCPAddr).Port, nil
		}
		errno := errnoOf(err)
		if errno != syscall.EADDRINUSE || time.Now().After(deadline) {
			code := codeOf(err)
			if errno == 0 {
				code = "EINVAL"
				var dnsError *net.DNSError
				if errors.As(err, &dnsError) {
					code = "ENOTFOUND"
				}
			}
			return 0, &FileOpError{code, "listen " + code + ": " + err.Error()}
		}
		time.Sleep(listenRetryInterval)
	}
}

// keepAliveHoldsPort tells whether a root process started with HoldPortFlag runs in the container (sandbox
// code can start no root process).
func keepAliveHoldsPort() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, entry := range entries {
		pid := entry.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		info, err := os.Stat("/proc/" + pid)
		if err != nil {
			continue
		}
		if stat, ok := info.Sys().(*syscall.Stat_t); !ok || stat.Uid != 0 {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			continue
		}
		if argv := strings.Split(string(cmdline), "\x00"); len(argv) > 1 && argv[1] == HoldPortFlag {
			return true
		}
	}
	return false
}

func (egress *EgressListener) isStopped() bool {
	egress.lock.Lock()
	defer egress.lock.Unlock()
	return egress.stopped
}

func (egress *EgressListener) acceptLoop(listener net.Listener) {
	for {
		socket, err := listener.Accept()
		if err != nil {
			if egress.isStopped() {
				return
			}
			var temporary interface{ Temporary() bool }
			if errors.As(err, &temporary) && temporary.Temporary() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			logDiagnostic("egress listener: %v", err)
			return
		}
		egress.accept(socket.(*net.TCPConn))
	}
}

// budgetOf names the budget a connection counts against: "hooks" when the hooks user made its other
// end, "" otherwise (a connection whose owner cannot be found counts as everyone else's).
func (egress *EgressListener) budgetOf(socket *net.TCPConn) string {
	if egress.hooksUID < 0 {
		return ""
	}
	peer, peerOk := socket.RemoteAddr().(*net.TCPAddr)
	local, localOk := socket.LocalAddr().(*net.TCPAddr)
	if peerOk && localOk && connectionOwner(peer, local) == egress.hooksUID {
		return "hooks"
	}
	return ""
}

func (egress *EgressListener) accept(socket *net.TCPConn) {
	budget := egress.budgetOf(socket)
	limit := EgressMaxStreams
	if budget == "hooks" {
		limit = EgressMaxHookStreams
	}
	egress.lock.Lock()
	// Connections past the limit are closed as soon as they are accepted: a flood of opens cannot pile
	// up sockets here, nor streams on the server.
	if egress.stopped || egress.open[budget] >= limit {
		egress.lock.Unlock()
		socket.Close()
		return
	}
	streamID := egress.nextStreamID
	egress.nextStreamID++
	forget := func(streamID int64) { egress.forget(streamID, budget) }
	connection := newEgressConnection(streamID, socket, egress.send, forget)
	egress.connections[streamID] = connection
	egress.open[budget]++
	egress.lock.Unlock()
	open := EgressOpenFrame{Egress: "open", Stream: streamID}
	if budget == "hooks" {
		open.Identity = &budget
	}
	connection.run(open)
}

func (egress *EgressListener) forget(streamID int64, budget string) {
	egress.lock.Lock()
	if _, known := egress.connections[streamID]; known {
		delete(egress.connections, streamID)
		egress.open[budget]--
	}
	egress.lock.Unlock()
}

// receive routes a frame from the server; frames for connections that are gone (or never were) are
// dropped, and a malformed one (a server bug: it has no request id to answer to) is logged and dropped.
func (egress *EgressListener) receive(header any, body []byte) {
	clean, problem := checkValue(egressFrameDescriptor, header, "egress frame")
	if problem != "" || clean.(map[string]any)["egress"] == "open" {
		logDiagnostic("ignoring a malformed egress frame")
		return
	}
	frame := clean.(map[string]any)
	streamID := frame["stream"].(int64)
	egress.lock.Lock()
	connection := egress.connections[streamID]
	egress.lock.Unlock()
	if connection == nil {
		return
	}
	var failure *EgressStreamError
	if closing, ok := frame["error"].(map[string]any); ok {
		encoded, _ := json.Marshal(closing)
		failure = &EgressStreamError{}
		_ = json.Unmarshal(encoded, failure)
	}
	bytes, _ := frame["bytes"].(int64)
	connection.receive(frame["egress"].(string), bytes, failure, body)
}

// closeAll stops listening and resets every connection; nothing is sent (the channel is closing).
func (egress *EgressListener) closeAll() {
	egress.lock.Lock()
	egress.stopped = true
	listener := egress.listener
	connections := make([]*EgressConnection, 0, len(egress.connections))
	for _, connection := range egress.connections {
		connections = append(connections, connection)
	}
	egress.lock.Unlock()
	if listener != nil {
		listener.Close()
	}
	for _, connection := range connections {
		connection.reset()
	}
}
