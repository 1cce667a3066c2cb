package main

// Who made the other end of an accepted loopback connection, asked of the kernel by its exact address
// pair (sock_diag, as `ss` asks it): one hash look-up, where reading /proc/net/tcp costs a walk of every
// socket and would make each accepted connection slower as the sandbox holds more. Kernels without
// sock_diag (gVisor's) answer from the table instead (loopback_sockets.go).

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
	family := byte(syscall.AF_INET)
	source, destination := peer.IP.To4(), local.IP.To4()
	if source == nil || destination == nil {
		family = syscall.AF_INET6
		source, destination = peer.IP.To16(), local.IP.To16()
		if source == nil || destination == nil {
			return -1, false
		}
	}
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return -1, false
	}
	defer syscall.Close(fd)
	request := make([]byte, syscall.NLMSG_HDRLEN+inetDiagRequestSize)
	binary.LittleEndian.PutUint32(request[0:], uint32(len(request)))
	// Native byte order, as netlink wants: little-endian on every machine the sandbox image is built for.
	binary.LittleEndian.PutUint16(request[4:], sockDiagByFamily)
	binary.LittleEndian.PutUint16(request[6:], syscall.NLM_F_REQUEST)
	body := request[syscall.NLMSG_HDRLEN:]
	body[0] = family
	body[1] = syscall.IPPROTO_TCP
	binary.LittleEndian.PutUint32(body[4:], 0xFFFFFFFF) // every state
	id := body[8:]
	binary.BigEndian.PutUint16(id[0:], uint16(peer.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(local.Port))
	copy(id[4:20], source)
	copy(id[20:36], destination)
	// id[36:40] is the interface (any); the cookie is INET_DIAG_NOCOOKIE: match on the addresses alone.
	binary.LittleEndian.PutUint32(id[40:], 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(id[44:], 0xFFFFFFFF)
	if err := syscall.Sendto(fd, request, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return -1, false
	}
	answer := make([]byte, 4096)
	count, _, err := syscall.Recvfrom(fd, answer, 0)
	if err != nil {
		return -1, false
	}
	messages, err := syscall.ParseNetlinkMessage(answer[:count])
	if err != nil || len(messages) == 0 {
		return -1, false
	}
	message := messages[0]
	switch message.Header.Type {
	case syscall.NLMSG_ERROR:
		if len(message.Data) >= 4 && int32(binary.LittleEndian.Uint32(message.Data)) == -int32(syscall.ENOENT) {
			return -1, true
		}
		return -1, false
	case sockDiagByFamily:
		if len(message.Data) < inetDiagUIDOffset+4 {
			return -1, false
		}
		return int(binary.LittleEndian.Uint32(message.Data[inetDiagUIDOffset:])), true
	}
	return -1, false
}
