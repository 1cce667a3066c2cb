package main

// Two facts about the egress port asked of the kernel as `ss` asks them (sock_diag): who made the other
// end of an accepted loopback connection, by its exact address pair (one hash look-up), and whether a
// socket already listens on an address (a walk of the listening sockets of one port). Reading
// /proc/net/tcp instead costs a walk of the kernel's whole connection table, every bucket of it, which
// is sized by the machine's memory, not by the sandbox's sockets: about 4 ms on a 24 GiB machine.
// Kernels without sock_diag (gVisor's) answer from the table instead (loopback_sockets.go).

import (
	"encoding/binary"
	"net"
	"syscall"
)

// linux/sock_diag.h, linux/inet_diag.h
const (
	netlinkSockDiag     = 4
	sockDiagByFamily    = 20
	inetDiagRequestSize = 56
	// Offset of idiag_uid in struct inet_diag_msg: four bytes, the 48-byte socket id, expires, rqueue, wqueue.
	inetDiagUIDOffset = 4 + 48 + 12
)

// connectionOwner is the uid of the socket at `peer` connected to `local` (the far end of a connection
// accepted on `local`), or -1 when there is no such socket (it closed meanwhile) or it cannot be found.
func connectionOwner(peer, local *net.TCPAddr) int {
	if owner, answered := askSockDiag(peer, local); answered {
		return owner
	}
	return connectionOwnerFromTable(peer, local)
}

// askSockDiag: the owner (or -1 if the kernel knows no such socket), and whether the kernel answered at all.
func askSockDiag(peer, local *net.TCPAddr) (int, bool) {
	family, source, destination, ok := diagAddresses(peer.IP, local.IP)
	if !ok {
		return -1, false
	}
	request := sockDiagRequest(family, syscall.NLM_F_REQUEST, 0xFFFFFFFF) // every state
	id := request[syscall.NLMSG_HDRLEN+8:]
	binary.BigEndian.PutUint16(id[0:], uint16(peer.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(local.Port))
	copy(id[4:20], source)
	copy(id[20:36], destination)
	// id[36:40] is the interface (any); the cookie is INET_DIAG_NOCOOKIE: match on the addresses alone.
	binary.LittleEndian.PutUint32(id[40:], 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(id[44:], 0xFFFFFFFF)
	owner, answered := -1, false
	exchangeSockDiag(request, func(message syscall.NetlinkMessage) bool {
		switch message.Header.Type {
		case syscall.NLMSG_ERROR:
			if len(message.Data) >= 4 && int32(binary.LittleEndian.Uint32(message.Data)) == -int32(syscall.ENOENT) {
				answered = true
			}
		case sockDiagByFamily:
			if len(message.Data) >= inetDiagUIDOffset+4 {
				owner, answered = int(binary.LittleEndian.Uint32(message.Data[inetDiagUIDOffset:])), true
			}
		}
		return true
	})
	return owner, answered
}

// askListeningAt: whether a socket listens on exactly `address`, and whether the kernel answered. A dump
// of listening sockets on the address's port only: the kernel walks its listening table for it, never
// the table of every connection, which /proc/net/tcp prints in full (milliseconds on a machine with much
// memory, whose connection table is sized by it, however few sockets the sandbox holds).
func askListeningAt(address *net.TCPAddr) (bool, bool) {
	family, local, _, ok := diagAddresses(address.IP, address.IP)
	if !ok {
		return false, false
	}
	request := sockDiagRequest(family, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP, 1<<tcpListen)
	binary.BigEndian.PutUint16(request[syscall.NLMSG_HDRLEN+8:], uint16(address.Port))
	found, answered := false, false
	exchangeSockDiag(request, func(message syscall.NetlinkMessage) bool {
		switch message.Header.Type {
		case syscall.NLMSG_DONE:
			answered = true
			return true
		case sockDiagByFamily:
			// struct inet_diag_msg: family, state, timer, retrans, then the socket id (ports, source address).
			data := message.Data
			if len(data) >= 24 && data[1] == tcpListen && binary.BigEndian.Uint16(data[4:]) == uint16(address.Port) &&
				net.IP(data[8:8+len(local)]).Equal(local) {
				found, answered = true, true
				return true
			}
			return false
		}
		return true // an error: not answered
	})
	return found, answered
}

// TCP_LISTEN in the kernel's numbering of states.
const tcpListen = 10

// diagAddresses: the family both addresses are in, and each as that family's bytes; false when they differ.
func diagAddresses(first, second net.IP) (byte, net.IP, net.IP, bool) {
	if a, b := first.To4(), second.To4(); a != nil && b != nil {
		return syscall.AF_INET, a, b, true
	}
	if a, b := first.To16(), second.To16(); a != nil && b != nil {
		return syscall.AF_INET6, a, b, true
	}
	return 0, nil, nil, false
}

// sockDiagRequest: a SOCK_DIAG_BY_FAMILY request for TCP sockets of family in `states` (a bit per state),
// its socket id left zero for the caller to fill in.
func sockDiagRequest(family byte, flags uint16, states uint32) []byte {
	request := make([]byte, syscall.NLMSG_HDRLEN+inetDiagRequestSize)
	binary.LittleEndian.PutUint32(request[0:], uint32(len(request)))
	// Native byte order, as netlink wants: little-endian on every machine the sandbox image is built for.
	binary.LittleEndian.PutUint16(request[4:], sockDiagByFamily)
	binary.LittleEndian.PutUint16(request[6:], flags)
	body := request[syscall.NLMSG_HDRLEN:]
	body[0] = family
	body[1] = syscall.IPPROTO_TCP
	binary.LittleEndian.PutUint32(body[4:], states)
	return request
}

// exchangeSockDiag sends request and hands each message of the answer to visit until it returns true,
// the answer ends, or it takes too long (a second: the kernel answers at once or not at all).
func exchangeSockDiag(request []byte, visit func(message syscall.NetlinkMessage) bool) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return
	}
	defer syscall.Close(fd)
	timeout := syscall.Timeval{Sec: 1}
	if syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &timeout) != nil {
		return
	}
	if err := syscall.Sendto(fd, request, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return
	}
	answer := make([]byte, 16384)
	// A dump comes in datagrams of many messages each; one of a port's listening sockets fits in a few.
	for datagrams := 0; datagrams < 64; datagrams++ {
		count, _, err := syscall.Recvfrom(fd, answer, 0)
		if err != nil {
			return
		}
		messages, err := syscall.ParseNetlinkMessage(answer[:count])
		if err != nil || len(messages) == 0 {
			return
		}
		for _, message := range messages {
			if visit(message) {
				return
			}
		}
	}
}
