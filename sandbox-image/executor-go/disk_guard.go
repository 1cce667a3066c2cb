package main

// The sandbox's disk limit in total, on engines that cannot enforce one (docs/security.md#disk says
// why: overlay2 on ext4 bounds each file with RLIMIT_FSIZE but not their sum): it measures what the sandbox's users hold and, past the limit, stops
// every process of theirs and refuses writes through the executor until deleting brings the files back
// under it. It measures every second or so while something of the sandbox's runs (the pause is twenty
// times the last measurement), soon after each command and each write, and not at all while idle.

import (
	"sync"
	"time"
)

const (
	firstMeasurementDelay = time.Second
	minGuardPause         = time.Second
	maxGuardPause         = 30 * time.Second
	pausePerMeasuring     = 20
	// How far past the limit the files may go before the guard acts: the small files every sandbox has.
	diskGuardSlackBytes = 1024 * 1024
	activityDelay       = 200 * time.Millisecond
)

// DiskReading is what the sandbox's users hold, against the limit.
type DiskReading struct {
	bytes, limitBytes int64
}

// DiskGuard measures and acts.
type DiskGuard struct {
	limitBytes  int64
	identities  []*Identity
	overLimitFn func(DiskReading)

	lock      sync.Mutex
	roots     []string
	lastBytes int64
	measured  bool
	over      bool
	activity  bool
	measuring bool
	stopped   bool
	timer     *time.Timer
	nextAt    time.Time
	earliest  time.Time
}

func newDiskGuard(limitBytes int64, identities []*Identity, overLimit func(DiskReading)) *DiskGuard {
	return &DiskGuard{limitBytes: limitBytes, identities: identities, overLimitFn: overLimit}
}

func (guard *DiskGuard) start() {
	guard.lock.Lock()
	guard.schedule(firstMeasurementDelay)
	guard.lock.Unlock()
}

func (guard *DiskGuard) stop() {
	guard.lock.Lock()
	guard.stopped = true
	if guard.timer != nil {
		guard.timer.Stop()
	}
	guard.lock.Unlock()
}

// overLimit: the last reading when it found the files past the limit (what a refused write says).
func (guard *DiskGuard) overLimit() *DiskReading {
	guard.lock.Lock()
	defer guard.lock.Unlock()
	if !guard.over || !guard.measured {
		return nil
	}
	return &DiskReading{guard.lastBytes, guard.limitBytes}
}

// noteActivity: a command started or ended, or a file was written: measure soon.
func (guard *DiskGuard) noteActivity() {
	guard.lock.Lock()
	guard.activity = true
	if !guard.measuring {
		guard.schedule(activityDelay)
	}
	guard.lock.Unlock()
}

// schedule arms the timer for delay from now (or the end of the pause), unless it is due sooner; lock held.
func (guard *DiskGuard) schedule(delay time.Duration) {
	if guard.stopped {
		return
	}
	at := time.Now().Add(delay)
	if at.Before(guard.earliest) {
		at = guard.earliest
	}
	if guard.timer != nil && !guard.nextAt.After(at) {
		return
	}
	if guard.timer != nil {
		guard.timer.Stop()
	}
	guard.nextAt = at
	guard.timer = time.AfterFunc(time.Until(at), guard.tick)
}

func (guard *DiskGuard) tick() {
	guard.lock.Lock()
	guard.timer = nil
	activity := guard.activity
	guard.lock.Unlock()
	// Idle: nothing of the sandbox's runs and nothing was written, so nothing can have changed.
	running := false
	for _, identity := range guard.identities {
		if len(processesOf(identity)) > 0 {
			running = true
		}
	}
	if !activity && !running {
		return
	}
	guard.lock.Lock()
	guard.activity = false
	guard.measuring = true
	roots := guard.roots
	guard.lock.Unlock()
	if roots == nil {
		// Found once, before the first measurement; its cost is not one to pace the measurements by.
		roots = findWritableRoots(guard.identities)
		if roots == nil {
			roots = []string{}
		}
	}
	started := time.Now()
	guard.measure(roots)
	took := time.Since(started)
	guard.lock.Lock()
	guard.roots = roots
	guard.measuring = false
	pause := took * pausePerMeasuring
	if pause < minGuardPause {
		pause = minGuardPause
	}
	if pause > maxGuardPause {
		pause = maxGuardPause
	}
	guard.earliest = time.Now().Add(pause)
	// While the sandbox runs something, keep measuring; otherwise wait for the next activity.
	if guard.activity || running {
		guard.schedule(0)
	}
	guard.lock.Unlock()
}

func (guard *DiskGuard) measure(roots []string) {
	bytes := guard.total(roots)
	guard.lock.Lock()
	grew := !guard.measured || bytes > guard.lastBytes
	guard.lastBytes = bytes
	guard.measured = true
	guard.over = bytes > guard.limitBytes+diskGuardSlackBytes
	over := guard.over
	guard.lock.Unlock()
	if over && grew {
		guard.overLimitFn(DiskReading{bytes, guard.limitBytes})
		// What the stopped writers added while being stopped is the new baseline: otherwise the next
		// measurement would find the files "grown" and stop the user's next command (an `rm`) too.
		after := guard.total(roots)
		guard.lock.Lock()
		if after > guard.lastBytes {
			guard.lastBytes = after
		}
		guard.lock.Unlock()
	}
}

func (guard *DiskGuard) total(roots []string) int64 {
	trees := measureTrees(roots)
	if trees.unreadable > 0 {
		logDiagnostic("disk guard: %d folders could not be read and were not counted", trees.unreadable)
	}
	bytes := trees.bytes
	for _, identity := range guard.identities {
		bytes += openDeletedBytes(identity)
	}
	return bytes
}
