package main

// The egress port's two guards that can be checked without root: the kernel's socket table tells who
// made the other end of an accepted connection, and a port held by the keep-alive can be joined by a
// socket of the same uid with SO_REUSEPORT, by nothing without it. What another uid meets (the sandbox
// user) is shown in test/docker/isolation.test.ts.

import (
	"context"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
)

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := listener.Addr().(*net.TCPAddr).Port
	listener.Close()
	return port
}

func TestFindsWhoMadeTheOtherEndOfAnAcceptedConnection(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	if !listeningAt(listener.Addr().(*net.TCPAddr)) {
		t.Errorf("listeningAt(%v): false for a listening socket", listener.Addr())
	}
	// Both ways of asking agree, and neither counts a port nothing listens on.
	if found, answered := askListeningAt(listener.Addr().(*net.TCPAddr)); !answered || !found {
		t.Errorf("sock_diag, a listening socket: got %v (answered: %v)", found, answered)
	}
	if !listeningAtFromTable(listener.Addr().(*net.TCPAddr)) {
		t.Errorf("the table: false for a listening socket")
	}
	free := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: freeLoopbackPort(t)}
	if found, answered := askListeningAt(free); !answered || found {
		t.Errorf("sock_diag, a free port: got %v (answered: %v)", found, answered)
	}
	// The same port on another address is not the address.
	other := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: listener.Addr().(*net.TCPAddr).Port}
	if found, answered := askListeningAt(other); !answered || found {
		t.Errorf("sock_diag, the port on another address: got %v (answered: %v)", found, answered)
	}
	client, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	accepted, err := listener.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	peer, local := accepted.RemoteAddr().(*net.TCPAddr), accepted.LocalAddr().(*net.TCPAddr)
	if owner := connectionOwner(peer, local); owner != os.Geteuid() {
		t.Errorf("owner: got %d, want %d", owner, os.Geteuid())
	}
	// Both ways of asking agree (sock_diag where the kernel has it, as here; the table otherwise).
	if owner, answered := askSockDiag(peer, local); !answered || owner != os.Geteuid() {
		t.Errorf("sock_diag: got %d (answered: %v), want %d", owner, answered, os.Geteuid())
	}
	if owner := connectionOwnerFromTable(peer, local); owner != os.Geteuid() {
		t.Errorf("the table: got %d, want %d", owner, os.Geteuid())
	}
	// A connection nobody made has no owner.
	stranger := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	if owner, answered := askSockDiag(stranger, local); !answered || owner != -1 {
		t.Errorf("sock_diag, a connection that does not exist: got %d (answered: %v), want -1", owner, answered)
	}
	if owner := connectionOwnerFromTable(stranger, local); owner != -1 {
		t.Errorf("the table, a connection that does not exist: got %d, want -1", owner)
	}
}

func TestAHeldPortIsJoinedWithSoReusePortAndByNothingElse(t *testing.T) {
	address := "127.0.0.1:" + strconv.Itoa(freeLoopbackPort(t))
	if err := bindHeld(address); err != nil {
		t.Fatal(err)
	}
	resolved, _ := net.ResolveTCPAddr("tcp", address)
	if listeningAt(resolved) || listeningAtFromTable(resolved) {
		t.Errorf("the held port counts as listened on: the keep-alive must only bind it")
	}
	// What sandbox code would try: a plain listener (SO_REUSEADDR, as Go, Python and Node set it), on
	// the address and on the wildcard address.
	for _, attempt := range []string{address, "0.0.0.0:" + strconv.Itoa(resolved.Port)} {
		if listener, err := net.Listen("tcp", attempt); err == nil {
			listener.Close()
			t.Errorf("%s was bound beside the held port", attempt)
		} else if errnoOf(err) != syscall.EADDRINUSE {
			t.Errorf("%s: %v, want EADDRINUSE", attempt, err)
		}
	}
	listener, err := listenConfig.Listen(context.Background(), "tcp", address)
	if err != nil {
		t.Fatalf("the executor's listener could not join the held port: %v", err)
	}
	defer listener.Close()
	if !listeningAt(resolved) || !listeningAtFromTable(resolved) {
		t.Errorf("listeningAt(%s): false with the executor's listener on it", address)
	}
}

func TestTheKeepAliveTakesOnlyItsAddress(t *testing.T) {
	if parsed := mustParse(t, "--hold-port", "127.0.0.1:3128"); parsed.HoldPort != "127.0.0.1:3128" {
		t.Errorf("hold port: got %q", parsed.HoldPort)
	}
	if _, err := parseExecutorArguments([]string{"--hold-port", "127.0.0.1:3128", "--identity", sandboxArgument}); err == nil {
		t.Errorf("--hold-port with identities was accepted")
	}
	if err := bindHeld("localhost:3128"); err == nil {
		t.Errorf("a host name was accepted: the keep-alive resolves nothing")
	}
}

func TestKeepAliveChannelPort(t *testing.T) {
	parsed := mustParse(t, "--hold-port", "127.0.0.1:3128", "--channel-port", "7070")
	if parsed.HoldPort != "127.0.0.1:3128" || parsed.ChannelPort != 7070 {
		t.Errorf("parsed %+v", parsed)
	}
	for _, argv := range [][]string{
		{"--channel-port", "7070"},
		{"--hold-port", "127.0.0.1:3128", "--channel-port", "0"},
		{"--hold-port", "127.0.0.1:3128", "--channel-port", "07070"},
		{"--hold-port", "127.0.0.1:3128", "--channel-port", "65536"},
		{"--hold-port", "127.0.0.1:3128", "--channel-port", "7070", "--identity", sandboxArgument},
	} {
		if _, err := parseExecutorArguments(argv); err == nil {
			t.Errorf("%v was accepted", argv)
		}
	}
}
