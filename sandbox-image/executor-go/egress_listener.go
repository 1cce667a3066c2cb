package main

// The egress listener: the sandbox has no network, so programs reach the egress
// proxy by connecting here (HTTP_PROXY=http://127.0.0.1:3128) and each accepted connection travels
// over the channel as an egress stream. One listener per executor; everything is torn down when the
// executor exits.

import (
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
)

const listenRetryInterval = 100 * time.Millisecond

// EgressListener accepts the sandbox's connections and routes the server's stream frames to them.
type EgressListener struct {
	send         func(frame any, body []byte)
	lock         sync.Mutex
	listener     net.Listener
	starting     bool
	stopped      bool
	nextStreamID int64
	connections  map[int64]*EgressConnection
}

func newEgressListener(send func(frame any, body []byte)) *EgressListener {
	return &EgressListener{send: send, nextStreamID: 1, connections: map[int64]*EgressConnection{}}
}

// listen returns the port bound; it retries while the port is in use (a previous executor still exiting).
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
		listener, err := net.Listen("tcp", address)
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

func (egress *EgressListener) accept(socket *net.TCPConn) {
	egress.lock.Lock()
	// Connections past the limit are closed as soon as they are accepted: a flood of opens cannot pile
	// up sockets here, nor streams on the server.
	if egress.stopped || len(egress.connections) >= EgressMaxStreams {
		egress.lock.Unlock()
		socket.Close()
		return
	}
	streamID := egress.nextStreamID
	egress.nextStreamID++
	connection := newEgressConnection(streamID, socket, egress.send, egress.forget)
	egress.connections[streamID] = connection
	egress.lock.Unlock()
	connection.run()
}

func (egress *EgressListener) forget(streamID int64) {
	egress.lock.Lock()
	delete(egress.connections, streamID)
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
