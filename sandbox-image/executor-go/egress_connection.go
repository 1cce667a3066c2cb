package main

// One sandbox program's connection to the egress listener, carried to the server as one egress stream
//. The program's bytes are read only as far as the stream's send window allows,
// and bytes from the server are acknowledged only once the kernel took them, so a fast peer never
// makes us buffer more than a window.

import (
	"errors"
	"io"
	"net"
	"sync"
)

type pendingWrite struct {
	data []byte
	end  bool
}

// EgressConnection is one stream.
type EgressConnection struct {
	streamID int64
	socket   *net.TCPConn
	send     func(frame any, body []byte)
	forget   func(streamID int64)

	lock          sync.Mutex
	credit        *sync.Cond
	sendWindow    SendWindow
	receiveWindow *ReceiveWindow
	// The server's bytes (and its end) not yet written; never more than a window of data.
	writes         []pendingWrite
	wake           chan struct{}
	done           chan struct{}
	readDone       bool
	writeDone      bool
	endSent        bool
	serverEnded    bool
	closedByServer bool
	destroyed      bool
	failure        *EgressStreamError
}

func newEgressConnection(streamID int64, socket *net.TCPConn, send func(frame any, body []byte), forget func(int64)) *EgressConnection {
	connection := &EgressConnection{
		streamID:      streamID,
		socket:        socket,
		send:          send,
		forget:        forget,
		sendWindow:    SendWindow{size: EgressWindowBytes},
		receiveWindow: newReceiveWindow(EgressWindowBytes),
		wake:          make(chan struct{}, 1),
		done:          make(chan struct{}),
	}
	connection.credit = sync.NewCond(&connection.lock)
	return connection
}

func (connection *EgressConnection) run(open EgressOpenFrame) {
	connection.send(open, nil)
	go connection.readProgram()
	go connection.writeProgram()
}

func errorInfo(err error) *EgressStreamError {
	code := codeOf(err)
	if errnoOf(err) == 0 {
		code = "EIO"
	}
	return &EgressStreamError{Code: code, Message: err.Error()}
}

// readProgram forwards what the program writes, as far as the window allows.
func (connection *EgressConnection) readProgram() {
	buffer := make([]byte, EgressMaxDataFrameBytes)
	for {
		connection.lock.Lock()
		for connection.sendWindow.available() <= 0 && !connection.closedByServer && !connection.destroyed {
			connection.credit.Wait()
		}
		if connection.destroyed {
			connection.lock.Unlock()
			return
		}
		// After the server's close its further bytes are read and dropped (unread bytes at close would
		// turn the FIN into a reset).
		want := int64(len(buffer))
		if !connection.closedByServer && connection.sendWindow.available() < want {
			want = connection.sendWindow.available()
		}
		connection.lock.Unlock()
		count, err := connection.socket.Read(buffer[:want])
		connection.lock.Lock()
		if count > 0 && !connection.closedByServer && !connection.destroyed {
			connection.send(EgressDataFrame{Egress: "data", Stream: connection.streamID}, append([]byte(nil), buffer[:count]...))
			connection.sendWindow.spend(int64(count))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				connection.readDone = true
				if !connection.endSent && !connection.closedByServer && !connection.destroyed {
					connection.endSent = true
					connection.send(EgressEndFrame{Egress: "end", Stream: connection.streamID}, nil)
				}
				finished := connection.writeDone
				connection.lock.Unlock()
				if finished {
					connection.destroy(false)
				}
				return
			}
			if connection.failure == nil && !connection.destroyed {
				connection.failure = errorInfo(err)
			}
			connection.lock.Unlock()
			connection.destroy(false)
			return
		}
		connection.lock.Unlock()
	}
}

// writeProgram writes the server's bytes in order, acknowledging each once the kernel took it.
func (connection *EgressConnection) writeProgram() {
	for {
		connection.lock.Lock()
		if len(connection.writes) == 0 {
			connection.lock.Unlock()
			select {
			case <-connection.wake:
				continue
			case <-connection.done:
				return
			}
		}
		item := connection.writes[0]
		connection.writes = connection.writes[1:]
		connection.lock.Unlock()
		if item.end {
			_ = connection.socket.CloseWrite()
			connection.lock.Lock()
			connection.writeDone = true
			finished := connection.readDone || connection.closedByServer
			connection.lock.Unlock()
			if finished {
				connection.destroy(false)
			}
			continue
		}
		if _, err := connection.socket.Write(item.data); err != nil {
			connection.lock.Lock()
			if connection.failure == nil && !connection.destroyed {
				connection.failure = errorInfo(err)
			}
			connection.lock.Unlock()
			connection.destroy(false)
			return
		}
		connection.lock.Lock()
		if !connection.destroyed && !connection.closedByServer {
			if acknowledged := connection.receiveWindow.consume(int64(len(item.data))); acknowledged > 0 {
				connection.send(EgressAckFrame{Egress: "ack", Stream: connection.streamID, Bytes: acknowledged}, nil)
			}
		}
		connection.lock.Unlock()
	}
}

func (connection *EgressConnection) receive(kind string, bytes int64, failure *EgressStreamError, body []byte) {
	connection.lock.Lock()
	if connection.destroyed {
		connection.lock.Unlock()
		return
	}
	switch kind {
	case "data":
		if connection.serverEnded {
			connection.lock.Unlock()
			connection.abort("data after end")
			return
		}
		if !connection.receiveWindow.receive(int64(len(body))) {
			connection.lock.Unlock()
			connection.abort("the server overran the flow-control window")
			return
		}
		connection.queue(pendingWrite{data: body})
	case "ack":
		if !connection.sendWindow.credit(bytes) {
			connection.lock.Unlock()
			connection.abort("acknowledgement of bytes never sent")
			return
		}
		connection.credit.Broadcast()
	case "end":
		if !connection.serverEnded {
			connection.serverEnded = true
			connection.queue(pendingWrite{end: true})
		}
	case "close":
		connection.closedByServer = true
		connection.credit.Broadcast()
		if connection.serverEnded && failure == nil {
			// Like close() after shutdown(SHUT_WR): what the server wrote is still delivered, then the
			// socket closes normally (writeProgram, once it has written the end).
			finished := connection.writeDone
			connection.lock.Unlock()
			if finished {
				connection.destroy(false)
			}
			return
		}
		// The server gave up on the connection: the program must see a reset, not a clean end of data.
		connection.lock.Unlock()
		connection.destroy(true)
		return
	}
	connection.lock.Unlock()
}

// queue hands an item to writeProgram; called with the lock held.
func (connection *EgressConnection) queue(item pendingWrite) {
	connection.writes = append(connection.writes, item)
	select {
	case connection.wake <- struct{}{}:
	default:
	}
}

// reset drops the connection hard, telling nobody (the executor is exiting: the channel is gone).
func (connection *EgressConnection) reset() {
	connection.lock.Lock()
	connection.closedByServer = true
	connection.lock.Unlock()
	connection.destroy(true)
}

func (connection *EgressConnection) abort(reason string) {
	connection.lock.Lock()
	if connection.failure == nil {
		connection.failure = &EgressStreamError{Code: "EPROTO", Message: reason}
	}
	connection.lock.Unlock()
	connection.destroy(true)
}

// destroy closes the socket (with a reset when asked) and, unless the server closed the stream, tells
// it how the stream ended: a socket gone before both ends were exchanged is an abort even without an error.
func (connection *EgressConnection) destroy(resetSocket bool) {
	connection.lock.Lock()
	if connection.destroyed {
		connection.lock.Unlock()
		return
	}
	connection.destroyed = true
	close(connection.done)
	connection.credit.Broadcast()
	if resetSocket {
		_ = connection.socket.SetLinger(0)
	}
	_ = connection.socket.Close()
	if !connection.closedByServer {
		failure := connection.failure
		if failure == nil && !(connection.endSent && connection.serverEnded) {
			failure = &EgressStreamError{Code: "ECONNRESET", Message: "the connection was reset"}
		}
		connection.send(EgressCloseFrame{Egress: "close", Stream: connection.streamID, Error: failure}, nil)
	}
	connection.lock.Unlock()
	connection.forget(connection.streamID)
}
