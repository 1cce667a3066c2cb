package main

// Every process of one sandbox identity, wherever it came from: a command's tree, a job it left running
// in the background, a daemon that left its session. The disk guard stops them all when the sandbox's
// files pass its limit (disk_guard.go).

import (
	"os"
	"regexp"
	"strconv"
	"syscall"
	"time"
)

var statusUID = regexp.MustCompile(`(?m)^Uid:\s+(\d+)`)
var statusState = regexp.MustCompile(`(?m)^State:\s+(\S)`)

// processesOf: the live processes whose real uid is the identity's (zombies, which hold nothing, left out).
func processesOf(identity *Identity) []int {
	var pids []int
	for _, pid := range procPids() {
		status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			continue // exited since readdir
		}
		uid := statusUID.FindSubmatch(status)
		state := statusState.FindSubmatch(status)
		if uid == nil || string(uid[1]) != strconv.Itoa(identity.UID) {
			continue
		}
		if state != nil && (string(state[1]) == "Z" || string(state[1]) == "X") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// killAllOf stops, then kills, every process of identity, round after round until none is left, as
// that user (who may signal its own processes; root without CAP_KILL may not).
func killAllOf(identity *Identity) {
	for round := 0; round < maxKillRounds; round++ {
		found := 0
		actingAs(identity, func() {
			pids := processesOf(identity)
			for _, pid := range pids {
				sendSignal(pid, syscall.SIGSTOP)
			}
			for _, pid := range pids {
				sendSignal(pid, syscall.SIGKILL)
			}
			found = len(pids)
		})
		if found == 0 {
			return
		}
		time.Sleep(killRoundPause)
	}
	logDiagnostic("processes of uid %d survived %d kill rounds", identity.UID, maxKillRounds)
}
