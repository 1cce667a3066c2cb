package main

// Killing everything an exec started, not just the process we spawned.
//
// A command can outlive its deadline through children that background themselves (`sleep 100 &`),
// start a new process group, or call setsid() and leave our session. Killing the spawned pid's group
// is not enough, and walking the ppid tree is not enough either: once a parent dies its children are
// reparented to init and the link is gone. So every exec carries a random marker in its environment
// (inherited by everything it starts, and visible in /proc/<pid>/environ even after the process
// changes its own variables), and a kill gathers, from /proc:
//   - members of the spawned process's group and session (it was spawned with setsid: pgid = sid = pid),
//   - processes whose initial environment carries the marker,
//   - descendants of any of those through the ppid links.
// Matches are first SIGSTOPped, round after round until a scan finds nothing new: a stopped process
// cannot fork, so the tree holds still while we look. Then all get SIGKILL.
//
// What still escapes: a process started with a scrubbed environment (`env -i`) that also left the
// session and whose parent died before the kill. Only the container boundary catches that one.

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// Bounds the freeze loop against a fork bomb outrunning our scans.
	maxFreezeRounds = 20
	maxKillRounds   = 5
	// Lets SIGKILLed processes die (and stopped ones finish a pending fork) before looking again.
	killRoundPause = 10 * time.Millisecond
)

type processInfo struct {
	pid, ppid, pgid, sid int
	zombie, marked       bool
}

func killProcessTree(rootPid int, markerEntry string, owner *Identity) {
	marker := []byte(markerEntry + "\x00")
	// As the tree's owner: root without CAP_SYS_PTRACE and CAP_KILL can neither read another user's
	// /proc/<pid>/environ nor signal its processes.
	actingAs(owner, func() { freezeThenKill(rootPid, marker) })
	// A process that was inside fork() when stopped completes that fork; its new child is caught here.
	for round := 0; round < maxKillRounds; round++ {
		time.Sleep(killRoundPause)
		survivors := 0
		actingAs(owner, func() {
			found := findTreeMembers(rootPid, marker)
			for _, pid := range found {
				sendSignal(pid, syscall.SIGKILL)
			}
			survivors = len(found)
		})
		if survivors == 0 {
			return
		}
	}
	logDiagnostic("process tree of %d survived %d kill rounds", rootPid, maxKillRounds)
}

func freezeThenKill(rootPid int, marker []byte) {
	frozen := map[int]bool{}
	defer func() {
		// Even if a scan failed, nothing we stopped may be left stopped.
		sendSignal(-rootPid, syscall.SIGKILL)
		for pid := range frozen {
			sendSignal(pid, syscall.SIGKILL)
		}
	}()
	sendSignal(-rootPid, syscall.SIGSTOP)
	for round := 0; round < maxFreezeRounds; round++ {
		added := 0
		for _, pid := range findTreeMembers(rootPid, marker) {
			if frozen[pid] {
				continue
			}
			frozen[pid] = true
			sendSignal(pid, syscall.SIGSTOP)
			added++
		}
		if added == 0 {
			break
		}
		if round == maxFreezeRounds-1 {
			logDiagnostic("process tree of %d still growing; killing what was found", rootPid)
		}
	}
}

func findTreeMembers(rootPid int, marker []byte) []int {
	processes := scanProcesses(marker)
	members := map[int]bool{}
	for _, info := range processes {
		if info.pid == rootPid || info.pgid == rootPid || info.sid == rootPid || info.marked {
			members[info.pid] = true
		}
	}
	// Descendants through ppid links, to a fixed point (the scan order says nothing about tree order).
	for grew := true; grew; {
		grew = false
		for _, info := range processes {
			if !members[info.pid] && members[info.ppid] {
				members[info.pid] = true
				grew = true
			}
		}
	}
	delete(members, os.Getpid())
	var found []int
	for _, info := range processes {
		if members[info.pid] && !info.zombie {
			found = append(found, info.pid)
		}
	}
	return found
}

func procPids() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, entry := range entries {
		if pid, err := strconv.Atoi(entry.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

func scanProcesses(marker []byte) []processInfo {
	var infos []processInfo
	for _, pid := range procPids() {
		if info, ok := readProcess(pid, marker); ok {
			infos = append(infos, info)
		}
	}
	return infos
}

func readProcess(pid int, marker []byte) (processInfo, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return processInfo{}, false // exited since readdir
	}
	// "pid (comm) state ppid pgrp session ..." where comm may itself contain spaces and parentheses.
	text := string(stat)
	closing := strings.LastIndex(text, ")")
	if closing < 0 || closing+2 > len(text) {
		return processInfo{}, false
	}
	fields := strings.Split(text[closing+2:], " ")
	if len(fields) < 4 {
		return processInfo{}, false
	}
	number := func(text string) int { value, _ := strconv.Atoi(text); return value }
	info := processInfo{
		pid:    pid,
		ppid:   number(fields[1]),
		pgid:   number(fields[2]),
		sid:    number(fields[3]),
		zombie: fields[0] == "Z" || fields[0] == "X",
	}
	// Another user's process (EACCES) or gone: not ours either way.
	if environ, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil {
		info.marked = bytes.Contains(environ, marker)
	}
	return info, true
}

// sendSignal sends a signal, ignoring a process that is gone or not ours to signal. Raw, so that it is
// sent with this thread's credentials (actingAs).
func sendSignal(pid int, which syscall.Signal) {
	_, _, errno := syscall.RawSyscall(syscall.SYS_KILL, uintptr(pid), uintptr(which), 0)
	if errno != 0 && errno != syscall.ESRCH && errno != syscall.EPERM {
		logDiagnostic("kill(%d, %s) failed: %v", pid, signalName(which), errno)
	}
}
