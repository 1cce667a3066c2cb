package main

// The kernel's table of the container's TCP sockets (/proc/net/tcp, /proc/net/tcp6: the network
// namespace's, so every socket of the sandbox), read for two facts about the egress port:
//   - whether some socket is already listening on an address (a previous executor still exiting);
//   - who made the other end of an accepted connection;
// both only where the kernel has no sock_diag (socket_owner.go asks it first). Each row carries the uid
// its socket was created with, which no process can choose (only the hooks user can make a socket of
// the hooks user's).
// TCP has no SO_PEERCRED; the table is the kernel's own answer, read without any capability.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// tcpListenState is TCP_LISTEN as the table prints it ("0A").
const tcpListenState = "0A"

type socketRow struct {
	local  string
	remote string
	state  string
	uid    int
}

// socketTableKey is an address as the table prints it: each 32-bit word of the address as the kernel
// stores it (network order) printed as a number of this machine's byte order, then the port.
func socketTableKey(address *net.TCPAddr) (key string, table string) {
	ip := address.IP
	if ip4 := ip.To4(); ip4 != nil {
		return fmt.Sprintf("%08X:%04X", nativeWord(ip4), address.Port), "/proc/net/tcp"
	}
	var words strings.Builder
	ip16 := ip.To16()
	for index := 0; index < 16 && ip16 != nil; index += 4 {
		fmt.Fprintf(&words, "%08X", nativeWord(ip16[index:index+4]))
	}
	return fmt.Sprintf("%s:%04X", words.String(), address.Port), "/proc/net/tcp6"
}

func nativeWord(four []byte) uint32 {
	var word [4]byte
	copy(word[:], four)
	return *(*uint32)(unsafe.Pointer(&word[0]))
}

// scanSocketTable calls visit for each row of table until it returns true; false if the table cannot be read.
func scanSocketTable(table string, visit func(row socketRow) bool) bool {
	file, err := os.Open(table)
	if err != nil {
		return false
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Scan() // the heading
	for scanner.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
		fields := strings.Fields(scanner.Text())
		if len(fields) < 8 {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			continue
		}
		if visit(socketRow{local: fields[1], remote: fields[2], state: fields[3], uid: uid}) {
			return true
		}
	}
	return true
}

// connectionOwnerFromTable is connectionOwner read from the table: -1 when it has no such socket or
// cannot be read.
func connectionOwnerFromTable(peer, local *net.TCPAddr) int {
	peerKey, table := socketTableKey(peer)
	localKey, _ := socketTableKey(local)
	owner := -1
	scanSocketTable(table, func(row socketRow) bool {
		if row.local == peerKey && row.remote == localKey && row.state != tcpListenState {
			owner = row.uid
			return true
		}
		return false
	})
	return owner
}

// listeningAt tells whether some socket listens on exactly `address`; false when the kernel cannot say.
func listeningAt(address *net.TCPAddr) bool {
	if found, answered := askListeningAt(address); answered {
		return found
	}
	return listeningAtFromTable(address)
}

// listeningAtFromTable is listeningAt read from the table; false when it cannot be read.
func listeningAtFromTable(address *net.TCPAddr) bool {
	key, table := socketTableKey(address)
	found := false
	scanSocketTable(table, func(row socketRow) bool {
		found = row.local == key && row.state == tcpListenState
		return found
	})
	return found
}
