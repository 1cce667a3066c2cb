package main

// Who the executor acts as. In a sandbox container the executor runs as root with only
// CAP_SETUID and CAP_SETGID, so that the code it serves (uid 1000) can neither signal nor trace it; it
// starts each command as the identity the request names and does file operations through a worker
// that acts as the sandbox user (file_worker.go). The identities come from the command line:
//
//	sandbox-executor --identity sandbox=1000:1000:/home/sandbox --identity hooks=1001:1001:/home/hooks
//
// Without them (the local executor, for tests and debugging on a host) everything runs as the executor
// itself: there is nothing to separate from.

import (
	"fmt"
	"math/big"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Identity is one user the executor acts as.
type Identity struct {
	Name string
	UID  int
	GID  int
	// HOME for the commands it runs: a user's own, never one another identity can write to.
	Home string
}

// ExecutorArguments is what the command line asked for.
type ExecutorArguments struct {
	Identities    map[string]*Identity
	FileWorkerFor string
	DiskLimitMb   int64
	// The address the keep-alive holds (egress_port_holder.go); nothing else may be asked with it but
	// ChannelPort.
	HoldPort string
	// The keep-alive's: the TCP port it also serves the channel on (channel_server.go); 0 for none.
	ChannelPort int
}

var identityPattern = regexp.MustCompile(`^([a-z]+)=(\d+):(\d+):(/.*)$`)
var diskLimitPattern = regexp.MustCompile(`^[1-9]\d{0,8}$`)

func parseExecutorArguments(argv []string) (*ExecutorArguments, error) {
	parsed := &ExecutorArguments{Identities: map[string]*Identity{}}
	for index := 0; index < len(argv); index += 2 {
		flag := argv[index]
		if index+1 >= len(argv) {
			return nil, fmt.Errorf("%s needs a value", flag)
		}
		value := argv[index+1]
		switch flag {
		case IdentityFlag:
			identity, err := parseIdentity(value)
			if err != nil {
				return nil, err
			}
			parsed.Identities[identity.Name] = identity
		case FileWorkerFlag:
			name, err := identityName(value)
			if err != nil {
				return nil, err
			}
			parsed.FileWorkerFor = name
		case HoldPortFlag:
			parsed.HoldPort = value
		case ChannelPortFlag:
			port, err := strconv.Atoi(value)
			if err != nil || port < 1 || port > 65535 || strconv.Itoa(port) != value {
				return nil, fmt.Errorf("%s %s: expected a port number", ChannelPortFlag, value)
			}
			parsed.ChannelPort = port
		case DiskLimitFlag:
			if !diskLimitPattern.MatchString(value) {
				return nil, fmt.Errorf("%s %s: expected a whole number of MiB", DiskLimitFlag, value)
			}
			parsed.DiskLimitMb, _ = strconv.ParseInt(value, 10, 64)
		default:
			return nil, fmt.Errorf("unknown argument %s", flag)
		}
	}
	keepAliveArguments := 2
	if parsed.ChannelPort != 0 {
		keepAliveArguments = 4
	}
	if parsed.HoldPort != "" && len(argv) != keepAliveArguments {
		return nil, fmt.Errorf("%s takes no other argument but %s: the keep-alive only holds the port and serves the channel", HoldPortFlag, ChannelPortFlag)
	}
	if parsed.ChannelPort != 0 && parsed.HoldPort == "" {
		return nil, fmt.Errorf("%s is the keep-alive's: it needs %s", ChannelPortFlag, HoldPortFlag)
	}
	if len(parsed.Identities) > 0 {
		var missing []string
		for _, name := range IdentityNames {
			if parsed.Identities[name] == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s is missing for %s", IdentityFlag, strings.Join(missing, ", "))
		}
	}
	if parsed.FileWorkerFor != "" && parsed.Identities[parsed.FileWorkerFor] == nil {
		return nil, fmt.Errorf("%s %s has no %s", FileWorkerFlag, parsed.FileWorkerFor, IdentityFlag)
	}
	if parsed.DiskLimitMb != 0 && len(parsed.Identities) == 0 {
		return nil, fmt.Errorf("%s needs identities: the guard measures what they hold", DiskLimitFlag)
	}
	return parsed, nil
}

// identityArguments are the flags that give a child executor process (the file worker) the same identities.
func identityArguments(identities map[string]*Identity) []string {
	var arguments []string
	for _, name := range IdentityNames {
		if identity := identities[name]; identity != nil {
			arguments = append(arguments, IdentityFlag, fmt.Sprintf("%s=%d:%d:%s", identity.Name, identity.UID, identity.GID, identity.Home))
		}
	}
	return arguments
}

func parseIdentity(text string) (*Identity, error) {
	match := identityPattern.FindStringSubmatch(text)
	if match == nil {
		return nil, fmt.Errorf("%s %s: expected name=uid:gid:/home", IdentityFlag, text)
	}
	uid, uidErr := strconv.Atoi(match[2])
	gid, gidErr := strconv.Atoi(match[3])
	if uidErr != nil || gidErr != nil {
		return nil, fmt.Errorf("%s %s: expected name=uid:gid:/home", IdentityFlag, text)
	}
	// Root as a target would undo the whole point; a typo must not silently run sandbox code as root.
	if uid == 0 || gid == 0 {
		return nil, fmt.Errorf("%s %s: an identity must not be root", IdentityFlag, text)
	}
	name, err := identityName(match[1])
	if err != nil {
		return nil, err
	}
	return &Identity{Name: name, UID: uid, GID: gid, Home: match[4]}, nil
}

func identityName(text string) (string, error) {
	if contains(IdentityNames, text) {
		return text, nil
	}
	quoted := jsonText(text)
	return "", fmt.Errorf("unknown identity %s; expected one of %s", quoted, strings.Join(IdentityNames, ", "))
}

const keepID = ^uintptr(0) // -1: leave that id as it is

// actingAs runs work with the effective uid and gid of identity on this OS thread alone, then returns
// to root (onThreadAs). Used to look at and signal a command's processes: root without CAP_SYS_PTRACE
// may not read another user's /proc/<pid>/environ, and without CAP_KILL may not signal it.
func actingAs(identity *Identity, work func()) {
	if identity == nil {
		work()
		return
	}
	if err := onThreadAs(identity, false, work); err != nil {
		logDiagnostic("%v", err)
	}
}

// rootGroups are the executor's own supplementary groups, put back after actingFullyAs.
var rootGroups = func() []uint32 {
	groups, err := syscall.Getgroups()
	if err != nil {
		return nil
	}
	kept := make([]uint32, len(groups))
	for index, group := range groups {
		kept[index] = uint32(group)
	}
	return kept
}()

// setThreadGroups sets this thread's supplementary groups alone (glibc's setgroups, and Go's, change
// every thread's). gid_t is 32 bits wide on the 64-bit architectures the executor is built for.
func setThreadGroups(groups []uint32) syscall.Errno {
	var first uintptr
	if len(groups) > 0 {
		first = uintptr(unsafe.Pointer(&groups[0]))
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_SETGROUPS, uintptr(len(groups)), first, 0)
	return errno
}

// actingFullyAs runs work on this OS thread alone with the credentials the file worker holds for its
// whole process: identity's effective uid and gid and its gid as the only supplementary group, real and
// saved uids 0 (so sandbox code can neither signal nor trace us), no capability in effect (the kernel
// clears them as the effective uid leaves 0). Every access work makes is checked as that user's. false
// when the thread could not take them: work did not run.
func actingFullyAs(identity *Identity, work func()) bool {
	return rootGroups != nil && onThreadAs(identity, true, work) == nil
}

// onThreadAs runs work with the effective uid and gid of identity (and, with `groups`, its gid as the
// only supplementary group) on this OS thread alone, then returns to root; an error when the thread
// could not take them, and work did not run. The kernel keeps credentials per thread; the raw system
// calls (not syscall.Setresuid, which Go applies to every thread) change only the one this goroutine is
// locked to, so nothing else the executor does meanwhile runs as that user. The real and saved uids
// stay 0, so sandbox code can still not signal us. A thread that could not return to root must never
// run anything else: it is never unlocked, and ends with its goroutine.
func onThreadAs(identity *Identity, groups bool, work func()) error {
	runtime.LockOSThread()
	restored := false
	defer func() {
		if restored {
			runtime.UnlockOSThread()
		}
	}()
	rootGroupsBack := func() bool { return !groups || setThreadGroups(rootGroups) == 0 }
	// Groups and gid first: once the uid is not 0, CAP_SETGID is no longer effective.
	if groups {
		if errno := setThreadGroups([]uint32{uint32(identity.GID)}); errno != 0 {
			restored = true
			return fmt.Errorf("setgroups(%d): %v", identity.GID, errno)
		}
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SETRESGID, keepID, uintptr(identity.GID), keepID); errno != 0 {
		restored = rootGroupsBack()
		return fmt.Errorf("setegid(%d): %v", identity.GID, errno)
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SETRESUID, keepID, uintptr(identity.UID), keepID); errno != 0 {
		_, _, gidErr := syscall.RawSyscall(syscall.SYS_SETRESGID, keepID, 0, keepID)
		restored = gidErr == 0 && rootGroupsBack()
		return fmt.Errorf("seteuid(%d): %v", identity.UID, errno)
	}
	defer func() {
		// Back to uid 0 first: that restores the effective capabilities needed for the groups and gid.
		_, _, uidErr := syscall.RawSyscall(syscall.SYS_SETRESUID, keepID, 0, keepID)
		groupsBack := rootGroupsBack()
		_, _, gidErr := syscall.RawSyscall(syscall.SYS_SETRESGID, keepID, 0, keepID)
		restored = uidErr == 0 && groupsBack && gidErr == 0
	}()
	work()
	return nil
}

// becomeFileWorker makes this whole process act as identity for good (every thread: Go's own
// syscall.Setegid and friends apply to all of them). Real and saved uids stay 0, so the user's own
// processes cannot signal or trace it; the effective capabilities go as the effective uid leaves 0.
func becomeFileWorker(identity *Identity) error {
	if err := syscall.Setgroups([]int{identity.GID}); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setegid(identity.GID); err != nil {
		return fmt.Errorf("setegid: %w", err)
	}
	if err := syscall.Seteuid(identity.UID); err != nil {
		return fmt.Errorf("seteuid: %w", err)
	}
	if os.Geteuid() != identity.UID {
		return fmt.Errorf("could not act as uid %d", identity.UID)
	}
	return nil
}

// linux/capability.h
const (
	capSetgid = 6
	capSetuid = 7
)

// whyIdentitiesCannotBeUsed: "" when this process can switch identities (root with CAP_SETUID and CAP_SETGID).
func whyIdentitiesCannotBeUsed() string {
	if os.Geteuid() != 0 {
		return "the executor does not run as root"
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "/proc/self/status cannot be read, so the executor's capabilities are unknown"
	}
	effective := regexp.MustCompile(`(?m)^CapEff:\s*([0-9a-f]+)$`).FindSubmatch(status)
	has := func(bit uint) bool {
		if effective == nil {
			return false
		}
		value, ok := new(big.Int).SetString(string(effective[1]), 16)
		return ok && value.Bit(int(bit)) == 1
	}
	var missing []string
	if !has(capSetuid) {
		missing = append(missing, "CAP_SETUID")
	}
	if !has(capSetgid) {
		missing = append(missing, "CAP_SETGID")
	}
	if len(missing) == 0 {
		return ""
	}
	return "the executor lacks " + strings.Join(missing, " and ")
}
