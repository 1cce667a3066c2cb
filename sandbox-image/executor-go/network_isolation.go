package main

// Takes the network from every user of the container but root, for a sandbox whose container has one
// (the channel over TCP: CHANNEL_PORT_FLAG). A routing rule, as `ip rule add uidrange 1-4294967294
// unreachable` would add, for IPv4 and IPv6: a socket of any other user finds no route to any address
// that is not the container's own (the `local` table is looked up before it), so sandbox and hooks code
// reach the loopback egress port and nothing else: not the other sandboxes on the same network, not the
// emulator. A server of theirs cannot answer from outside either: its replies are routed as its user.
// Root's processes (the keep-alive, executors) keep the network; nothing of the sandbox user's is root.
//
// It needs CAP_NET_ADMIN, which the container is given only for this; the rule cannot be undone without
// it, which no process of the sandbox user's has (the kernel clears capabilities as the uid leaves 0, and
// no-new-privileges keeps them from coming back). The keep-alive sets no-new-privileges itself
// (forbidPrivilegeGains) rather than trust the engine to: a Swarm service on Docker 20.10 (API 1.41)
// cannot ask for it, and the image's setuid-root programs (su, mount, passwd) would otherwise run with
// every capability the container holds, CAP_NET_ADMIN included.

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"unsafe"
)

const (
	// linux/fib_rules.h
	fibRuleActionUnreachable = 7
	fibRuleAttrPriority      = 6
	fibRuleAttrUidRange      = 20
	// Before `main` (32766): only `local` (0) is looked up first.
	isolationRulePriority = 100
	firstNonRootUid       = 1
	lastUid               = 4294967294
)

// isolateNonRootUsers adds the rule for IPv4 and IPv6. IPv6 may be missing from the kernel or the
// container; IPv4 may not.
// Netlink speaks the machine's own byte order.
var nativeEndian binary.ByteOrder = func() binary.ByteOrder {
	probe := uint16(1)
	if *(*byte)(unsafe.Pointer(&probe)) == 1 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}()

func isolateNonRootUsers() error {
	if err := addUnreachableUidRule(syscall.AF_INET); err != nil {
		return fmt.Errorf("IPv4 routing rule: %v", err)
	}
	if err := addUnreachableUidRule(syscall.AF_INET6); err != nil && err != syscall.EAFNOSUPPORT {
		return fmt.Errorf("IPv6 routing rule: %v", err)
	}
	return nil
}

func addUnreachableUidRule(family int) error {
	socket, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer syscall.Close(socket)
	if err := syscall.Bind(socket, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	message := uidRuleMessage(family)
	if err := syscall.Sendto(socket, message, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	answer := make([]byte, 4096)
	count, _, err := syscall.Recvfrom(socket, answer, 0)
	if err != nil {
		return err
	}
	return netlinkAck(answer[:count])
}

// uidRuleMessage is an RTM_NEWRULE request: a fib_rule_hdr (family, action unreachable) and the
// priority and uid range as attributes.
func uidRuleMessage(family int) []byte {
	header := []byte{byte(family), 0, 0, 0, 0, 0, 0, fibRuleActionUnreachable, 0, 0, 0, 0}
	priority := netlinkAttribute(fibRuleAttrPriority, uint32Bytes(isolationRulePriority))
	uidRange := netlinkAttribute(fibRuleAttrUidRange, append(uint32Bytes(firstNonRootUid), uint32Bytes(lastUid)...))
	body := append(append(header, priority...), uidRange...)
	message := make([]byte, syscall.NLMSG_HDRLEN, syscall.NLMSG_HDRLEN+len(body))
	nativeEndian.PutUint32(message[0:4], uint32(syscall.NLMSG_HDRLEN+len(body)))
	nativeEndian.PutUint16(message[4:6], syscall.RTM_NEWRULE)
	nativeEndian.PutUint16(message[6:8], syscall.NLM_F_REQUEST|syscall.NLM_F_ACK|syscall.NLM_F_CREATE|syscall.NLM_F_EXCL)
	nativeEndian.PutUint32(message[8:12], 1)
	return append(message, body...)
}

func netlinkAttribute(kind uint16, value []byte) []byte {
	length := syscall.SizeofRtAttr + len(value)
	attribute := make([]byte, syscall.SizeofRtAttr, (length+3)&^3)
	nativeEndian.PutUint16(attribute[0:2], uint16(length))
	nativeEndian.PutUint16(attribute[2:4], kind)
	attribute = append(attribute, value...)
	return append(attribute, make([]byte, cap(attribute)-len(attribute))...)
}

func uint32Bytes(value uint32) []byte {
	bytes := make([]byte, 4)
	nativeEndian.PutUint32(bytes, value)
	return bytes
}

// netlinkAck reads the kernel's answer: an NLMSG_ERROR whose error is 0 is the acknowledgement. A rule
// already there (the container's network namespace outlived a restart of the keep-alive) is as good.
func netlinkAck(answer []byte) error {
	messages, err := syscall.ParseNetlinkMessage(answer)
	if err != nil {
		return err
	}
	for _, message := range messages {
		if message.Header.Type != syscall.NLMSG_ERROR || len(message.Data) < 4 {
			continue
		}
		code := *(*int32)(unsafe.Pointer(&message.Data[0]))
		if code == 0 || syscall.Errno(-code) == syscall.EEXIST {
			return nil
		}
		return syscall.Errno(-code)
	}
	return errorText("no acknowledgement from the kernel")
}

// prctl(2)'s PR_SET_NO_NEW_PRIVS (linux/prctl.h).
const prSetNoNewPrivs = 38

// forbidPrivilegeGains sets no_new_privs on every thread of this process: what it starts from now on
// (executors, the sandbox's commands) can never gain privileges by exec, as with the engine's
// no-new-privileges; setuid() by a holder of CAP_SETUID (how commands become their user) still works.
func forbidPrivilegeGains() error {
	if _, _, errno := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", errno)
	}
	return nil
}
