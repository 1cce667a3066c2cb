package main

import (
	"syscall"
	"testing"
)

// The request's bytes as the kernel reads them (linux/netlink.h, linux/fib_rules.h): what `ip rule add
// uidrange 1-4294967294 unreachable priority 100` sends. The rule's effect is tested in a container
// (test/docker/executor-network-channel.test.ts).
func TestUidRuleMessage(t *testing.T) {
	message := uidRuleMessage(syscall.AF_INET)
	if len(message) != 16+12+8+12 {
		t.Fatalf("%d bytes", len(message))
	}
	if nativeEndian.Uint32(message[0:4]) != uint32(len(message)) || nativeEndian.Uint16(message[4:6]) != syscall.RTM_NEWRULE {
		t.Errorf("header %v", message[:16])
	}
	header := message[16:28]
	if header[0] != syscall.AF_INET || header[7] != fibRuleActionUnreachable || header[4] != 0 {
		t.Errorf("fib_rule_hdr %v", header)
	}
	priority := message[28:36]
	if nativeEndian.Uint16(priority[0:2]) != 8 || nativeEndian.Uint16(priority[2:4]) != fibRuleAttrPriority || nativeEndian.Uint32(priority[4:8]) != isolationRulePriority {
		t.Errorf("priority %v", priority)
	}
	uids := message[36:48]
	if nativeEndian.Uint16(uids[0:2]) != 12 || nativeEndian.Uint16(uids[2:4]) != fibRuleAttrUidRange || nativeEndian.Uint32(uids[4:8]) != 1 || nativeEndian.Uint32(uids[8:12]) != 4294967294 {
		t.Errorf("uid range %v", uids)
	}
}

func TestNetlinkAck(t *testing.T) {
	ack := func(code int32) []byte {
		message := make([]byte, 16+20)
		nativeEndian.PutUint32(message[0:4], uint32(len(message)))
		nativeEndian.PutUint16(message[4:6], syscall.NLMSG_ERROR)
		nativeEndian.PutUint32(message[16:20], uint32(code))
		return message
	}
	if err := netlinkAck(ack(0)); err != nil {
		t.Errorf("0: %v", err)
	}
	if err := netlinkAck(ack(-int32(syscall.EEXIST))); err != nil {
		t.Errorf("EEXIST: %v", err)
	}
	if err := netlinkAck(ack(-int32(syscall.EPERM))); err != syscall.EPERM {
		t.Errorf("EPERM: %v", err)
	}
}
