package main

// The channel over TCP (CHANNEL_PORT_FLAG), for a sandbox on another machine than the emulator's: the
// keep-alive listens on every address of the container and serves each connection as it serves the Unix
// socket's (channel_server.go: the preamble with the secret, then an executor on the connection). The
// secret is a file of root's alone (a Swarm secret at CHANNEL_NETWORK_SECRET_PATH). Before listening, the
// keep-alive takes the network from every user but root (network_isolation.go): without that, sandbox
// code could reach other sandboxes and the emulator over the same network, so nothing is served.

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

func serveNetworkChannel(port int, secretPath string, privilegeGains error) {
	if privilegeGains != nil {
		logDiagnostic("not serving the channel on port %d: a setuid program could give the sandbox's users back the capability to undo their network rule: %v", port, privilegeGains)
		return
	}
	if err := checkNetworkSecret(secretPath); err != nil {
		logDiagnostic("not serving the channel on port %d: %v", port, err)
		return
	}
	if err := isolateNonRootUsers(); err != nil {
		logDiagnostic("not serving the channel on port %d: the sandbox's users could reach the network: %v", port, err)
		return
	}
	listener, err := net.ListenTCP("tcp", &net.TCPAddr{Port: port})
	if err != nil {
		logDiagnostic("not serving the channel on port %d: %v", port, err)
		return
	}
	for {
		conn, err := listener.AcceptTCP()
		if err != nil {
			logDiagnostic("channel port: %v", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		// A peer that vanishes without closing (its machine lost) is found by keep-alive probes: its
		// executor then ends as after a hang-up.
		_ = conn.SetKeepAlive(true)
		_ = conn.SetKeepAlivePeriod(10 * time.Second)
		go serveChannelConnection(conn, secretPath)
	}
}

// checkNetworkSecret: root's, and readable by root alone; anything else is a mistake in how it was mounted.
func checkNetworkSecret(secretPath string) error {
	info, err := os.Stat(secretPath)
	if err != nil {
		return err
	}
	stat, ok := info.Sys().(*syscall.Stat_t)
	if !info.Mode().IsRegular() || !ok || stat.Uid != 0 || info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is not a file of root's that only root can read (uid 0, mode 0400)", secretPath)
	}
	return nil
}
