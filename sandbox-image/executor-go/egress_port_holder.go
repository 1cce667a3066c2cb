package main

// The container's keep-alive (`sandbox-executor --hold-port 127.0.0.1:3128`, its main process under
// tini, root's): it binds the egress port at the container's start, before any sandbox code runs, and
// keeps it bound until the container stops, without listening (connections go to the executor's
// listener alone). It binds with SO_REUSEPORT and without SO_REUSEADDR, so the kernel lets another
// socket bind the same address only when it also asks for SO_REUSEPORT and is owned by the same uid:
// each executor (root) joins, and no process of the sandbox or hooks user can bind the address (nor
// the wildcard address on that port) at any moment, between two executors included. Before, a process
// of the sandbox user's that bound 127.0.0.1:3128 while the executor was being replaced left every
// later executor without its listener.

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

// soReusePort is SO_REUSEPORT (asm-generic/socket.h: 15 on x86, arm and the other generic ABIs), which
// Go's syscall package does not name.
const soReusePort = 15

func holdPort(address string, channelPort int) {
	// First, from the main goroutine before any other: every thread of the keep-alive, and so every
	// executor and command started under it, from now on (network_isolation.go).
	var privilegeGains error
	if channelPort != 0 {
		privilegeGains = forbidPrivilegeGains()
	}
	if err := bindHeld(address); err != nil {
		// Still the keep-alive: the container must stay up; the executor then reports the port taken.
		logDiagnostic("cannot hold the egress port %s: %v", address, err)
	}
	go serveChannel(ChannelFolder)
	if channelPort != 0 {
		go serveNetworkChannel(channelPort, ChannelNetworkSecretPath, privilegeGains)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	os.Exit(0)
}

// bindHeld binds a socket to address and leaves it open (it is never closed: it is what holds the port).
func bindHeld(address string) error {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(portText)
	ip := net.ParseIP(host)
	if err != nil || port < 1 || port > 65535 || ip == nil {
		return fmt.Errorf("expected a numeric host:port, not %s", jsonText(address))
	}
	family, socketAddress := syscall.AF_INET6, syscall.Sockaddr(nil)
	if ip4 := ip.To4(); ip4 != nil {
		family = syscall.AF_INET
		inet4 := &syscall.SockaddrInet4{Port: port}
		copy(inet4.Addr[:], ip4)
		socketAddress = inet4
	} else {
		inet6 := &syscall.SockaddrInet6{Port: port}
		copy(inet6.Addr[:], ip.To16())
		socketAddress = inet6
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, soReusePort, 1); err != nil {
		syscall.Close(fd)
		return fmt.Errorf("SO_REUSEPORT: %w", err)
	}
	if err := syscall.Bind(fd, socketAddress); err != nil {
		syscall.Close(fd)
		return fmt.Errorf("bind: %w", err)
	}
	return nil
}
