package main

// Credit accounting for one direction of an egress stream (flow-window.ts): pure bookkeeping, the
// callers move the bytes. Each peer checks the other's numbers, because either side may be buggy.

// SendWindow is the sending half: how much may still be sent before the receiver acknowledges.
type SendWindow struct {
	size           int64
	unacknowledged int64
}

func (window *SendWindow) available() int64 { return window.size - window.unacknowledged }

func (window *SendWindow) spend(bytes int64) { window.unacknowledged += bytes }

// credit records an acknowledgement; false if it acknowledges bytes never sent.
func (window *SendWindow) credit(bytes int64) bool {
	if bytes <= 0 || bytes > window.unacknowledged {
		return false
	}
	window.unacknowledged -= bytes
	return true
}

// ReceiveWindow is the receiving half. Acknowledgements are batched, one per quarter window consumed:
// that cannot stall the sender, which only waits when the whole window is in flight.
type ReceiveWindow struct {
	size             int64
	unacknowledged   int64
	consumedSinceAck int64
	ackThreshold     int64
}

func newReceiveWindow(size int64) *ReceiveWindow {
	threshold := size / 4
	if threshold < 1 {
		threshold = 1
	}
	return &ReceiveWindow{size: size, ackThreshold: threshold}
}

// receive records bytes that arrived; false if they exceed what the sender was allowed to send.
func (window *ReceiveWindow) receive(bytes int64) bool {
	if window.unacknowledged+bytes > window.size {
		return false
	}
	window.unacknowledged += bytes
	return true
}

// consume records bytes that left our hands; returns how many to acknowledge now (0: not yet worth a frame).
func (window *ReceiveWindow) consume(bytes int64) int64 {
	window.consumedSinceAck += bytes
	if window.consumedSinceAck < window.ackThreshold {
		return 0
	}
	acknowledged := window.consumedSinceAck
	window.consumedSinceAck = 0
	window.unacknowledged -= acknowledged
	return acknowledged
}
