package main

// Under memory pressure the kernel's OOM killer takes the process with the highest badness in the
// container's cgroup: its memory plus oom_score_adj scaled to the cgroup's limit. Left alone, a few
// sandbox processes filling the memory could take the executor down, and the tool call with it
// (docs/security.md#memory). The sandbox user's commands start at the highest
// adjustment, 1000: a child inherits its parent's adjustment, and its floor (the lowest value it may set
// again without CAP_SYS_RESOURCE, which is whatever a writer holding that capability last set). So
// around the spawn the executor (which holds it) sets its own adjustment to 1000, pinning the floor
// there for the child, and sets it back right after. Spawns are serialized (spawnLock), so no other
// command starts while the executor stands at 1000.

import (
	"os"
	"strconv"
	"strings"
)

const oomScoreAdjPath = "/proc/self/oom_score_adj"
const sandboxOomScoreAdj = 1000

// OomScore keeps the file open: a write through it costs a few microseconds.
type OomScore struct {
	file *os.File
	base int
	ok   bool
}

func newOomScore() *OomScore {
	score := &OomScore{}
	file, err := os.OpenFile(oomScoreAdjPath, os.O_WRONLY, 0)
	if err != nil {
		return score // no /proc
	}
	score.file = file
	text, err := os.ReadFile(oomScoreAdjPath)
	if err != nil {
		return score
	}
	base, err := strconv.Atoi(strings.TrimSpace(string(text)))
	if err != nil || base >= sandboxOomScoreAdj {
		return score
	}
	// One step up and back: if lowering is refused, we are left one point higher, which changes nothing.
	if !score.write(base + 1) {
		return score
	}
	if !score.write(base) {
		logDiagnostic("oom_score_adj cannot be lowered back to %d; commands keep the executor's adjustment", base)
		return score
	}
	score.base = base
	score.ok = true
	return score
}

func (score *OomScore) enabled() bool { return score != nil && score.ok }

// raisedFor runs spawn with our adjustment at sandboxOomScoreAdj, so the child starts there.
func (score *OomScore) raisedFor(spawn func() error) error {
	if !score.enabled() {
		return spawn()
	}
	raised := score.write(sandboxOomScoreAdj)
	defer func() {
		if raised && !score.write(score.base) {
			logDiagnostic("could not lower oom_score_adj back to %d", score.base)
		}
	}()
	return spawn()
}

// The kernel reads each write whole, whatever the file offset.
func (score *OomScore) write(value int) bool {
	_, err := score.file.Write([]byte(strconv.Itoa(value)))
	return err == nil
}
