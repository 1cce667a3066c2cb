package main

// One exec request: start argv without a shell, stream capped output, enforce the
// deadline, and report exactly one exit once the process is gone.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// How long to keep reading after the spawned process exited while something still holds its
// stdout/stderr (a backgrounded grandchild inherited them): what the process wrote before exiting is
// already in the pipe; a process still holding the pipe after that has outlived its parent, and we stop
// listening to it (its next write gets SIGPIPE, as a background job does when its terminal goes away).
const pipeGrace = 100 * time.Millisecond

// Node's timers treat larger delays as 1 ms; kept as the protocol's own bound on a deadline.
const maxTimerDelayMs = 2_147_483_647

// spawnLock serializes starting processes: the OOM adjustment the executor takes on for a spawn must
// reach only that child.
var spawnLock sync.Mutex

// CommandEvents receives a command's output and its one exit.
type CommandEvents struct {
	// chunk is a view of the output reader's buffer, valid only until output returns: the reader reuses
	// it for the next read (output writes it to the channel before returning).
	output func(stream string, chunk []byte)
	exit   func(report ExitMessage)
}

// RunningCommand is one exec, from spawn to exit.
type RunningCommand struct {
	request     *ExecRequest
	events      CommandEvents
	identity    *Identity
	oomScore    *OomScore
	startedAt   time.Time
	markerEntry string

	lock          sync.Mutex
	process       *os.Process
	forwarded     map[string]int64
	written       map[string]int64
	timedOut      bool
	cancelled     bool
	overDiskLimit bool
	exitStatus    *ExitMessage
	outputOpen    bool
	output        *OutputPipes
	killing       chan struct{}
	killDone      bool
	finished      bool
	deadline      *time.Timer
	// Abandons the output pipes pipeGrace after the exit; stopped when they reached end of file first.
	grace *time.Timer
}

// devNull is what a command without input reads: end of file at once, with no pipe and no writer.
var devNull = func() *os.File {
	file, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return file
}()

func notStartedExit(id int64) ExitMessage {
	signal := "SIGKILL"
	return ExitMessage{Type: "exit", Id: id, Signal: &signal, Cancelled: true}
}

func newRunningCommand(request *ExecRequest, events CommandEvents, identity *Identity, oomScore *OomScore) *RunningCommand {
	random := make([]byte, 16)
	_, _ = rand.Read(random)
	return &RunningCommand{
		request:     request,
		events:      events,
		identity:    identity,
		oomScore:    oomScore,
		startedAt:   time.Now(),
		markerEntry: ExecMarkerVariable + "=" + hex.EncodeToString(random),
		forwarded:   map[string]int64{},
		written:     map[string]int64{},
	}
}

func (command *RunningCommand) environment() []string {
	merged := map[string]string{}
	var order []string
	set := func(name, value string) {
		if _, known := merged[name]; !known {
			order = append(order, name)
		}
		merged[name] = value
	}
	for _, entry := range os.Environ() {
		if name, value, found := strings.Cut(entry, "="); found {
			set(name, value)
		}
	}
	if command.request.Env != nil {
		for name, value := range *command.request.Env {
			set(name, value)
		}
	}
	set(ExecMarkerVariable, command.markerEntry[len(ExecMarkerVariable)+1:])
	// As a login sets it (login_shell.go), where neither the sandbox nor the request named one.
	if _, named := merged["SHELL"]; !named {
		if shell := loginShellOf(command.identity); shell != "" {
			set("SHELL", shell)
		}
	}
	// The hooks user's own HOME, whatever the environment's variables say: a HOME the sandbox user can
	// write to would let sandbox code plant startup files in the hooks' programs.
	if command.identity != nil && command.identity.Name != "sandbox" {
		set("HOME", command.identity.Home)
	}
	env := make([]string, 0, len(order))
	for _, name := range order {
		env = append(env, name+"="+merged[name])
	}
	return env
}

// lookPath finds argv[0] as execvp would, on the PATH the command itself gets.
func lookPath(program string, env []string) (string, error) {
	if strings.Contains(program, "/") {
		return program, nil
	}
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, entry := range env {
		if strings.HasPrefix(entry, "PATH=") {
			path = entry[len("PATH="):]
		}
	}
	denied := false
	for _, folder := range filepath.SplitList(path) {
		if folder == "" {
			folder = "."
		}
		candidate := filepath.Join(folder, program)
		info, err := os.Stat(candidate)
		if err != nil || info.IsDir() {
			continue
		}
		if info.Mode()&0o111 == 0 {
			denied = true
			continue
		}
		return candidate, nil
	}
	if denied {
		return "", syscall.EACCES
	}
	return "", syscall.ENOENT
}

func (command *RunningCommand) start(stdin []byte) {
	argv := command.request.Argv
	env := command.environment()
	program, err := lookPath(argv[0], env)
	if err != nil {
		command.failToStart(err)
		return
	}
	output, stdoutFd, stderrFd, err := newOutputPipes()
	if err != nil {
		command.failToStart(err)
		return
	}
	stdoutWrite := os.NewFile(uintptr(stdoutFd), "stdout")
	stderrWrite := os.NewFile(uintptr(stderrFd), "stderr")
	// Input through a pipe only when there is some: otherwise /dev/null, with no pipe and no writer.
	stdinRead, stdinWrite := devNull, (*os.File)(nil)
	if len(stdin) > 0 || devNull == nil {
		var ends [2]int
		if err := syscall.Pipe2(ends[:], syscall.O_CLOEXEC); err != nil {
			stdoutWrite.Close()
			stderrWrite.Close()
			output.close()
			command.failToStart(err)
			return
		}
		stdinRead, stdinWrite = os.NewFile(uintptr(ends[0]), "stdin"), pollableFile(ends[1], "stdin")
	}
	child := &exec.Cmd{Path: program, Args: argv, Env: env, Stdin: stdinRead, Stdout: stdoutWrite, Stderr: stderrWrite}
	if command.request.Cwd != nil {
		child.Dir = *command.request.Cwd
	}
	// Own session and process group (pgid = pid), so the group can be signalled as a whole.
	attributes := &syscall.SysProcAttr{Setsid: true}
	if command.identity != nil {
		// The child drops its supplementary groups, then sets gid and uid before exec: a process of that
		// user with no capabilities left (the kernel clears them as the uid leaves 0).
		attributes.Credential = &syscall.Credential{Uid: uint32(command.identity.UID), Gid: uint32(command.identity.GID), Groups: []uint32{}}
	}
	child.SysProcAttr = attributes
	spawnLock.Lock()
	// The command gets the kernel's default timer slack, not the executor's (timer_slack.go).
	err = withTimerSlack(defaultTimerSlackNs, func() error { return command.oomScore.raisedFor(child.Start) })
	spawnLock.Unlock()
	if stdinWrite != nil {
		stdinRead.Close()
	}
	stdoutWrite.Close()
	stderrWrite.Close()
	if err != nil {
		output.close()
		if stdinWrite != nil {
			stdinWrite.Close()
		}
		command.failToStart(err)
		return
	}
	command.lock.Lock()
	command.process = child.Process
	command.outputOpen = true
	command.output = output
	delay := math.Min(float64(command.request.TimeoutMs), maxTimerDelayMs)
	command.deadline = time.AfterFunc(time.Duration(delay)*time.Millisecond, func() {
		command.lock.Lock()
		if command.killing != nil || command.finished {
			command.lock.Unlock()
			return
		}
		command.timedOut = true
		command.lock.Unlock()
		command.kill()
	})
	command.lock.Unlock()
	if stdinWrite != nil {
		go func() {
			// EPIPE when the program exits without reading its stdin: not the caller's problem.
			_, _ = stdinWrite.Write(stdin)
			stdinWrite.Close()
		}()
	}
	go command.pump(output)
	watchExit(child, command.onExit)
}

func (command *RunningCommand) pump(output *OutputPipes) {
	output.pump(command.forward)
	command.lock.Lock()
	command.outputOpen = false
	if command.grace != nil {
		command.grace.Stop()
	}
	command.lock.Unlock()
	command.finishIfDone()
}

// forward counts everything and passes on what the cap allows; past it we keep reading so a chatty
// child never blocks on a full pipe.
func (command *RunningCommand) forward(stream string, chunk []byte) {
	command.lock.Lock()
	command.written[stream] += int64(len(chunk))
	room := command.request.MaxOutputBytes - command.forwarded[stream]
	if room <= 0 {
		command.lock.Unlock()
		return
	}
	kept := chunk
	if int64(len(kept)) > room {
		kept = kept[:room]
	}
	command.forwarded[stream] += int64(len(kept))
	command.lock.Unlock()
	// Not copied: output has written it before the pump reads into the buffer again.
	command.events.output(stream, kept)
}

func (command *RunningCommand) onExit(status syscall.WaitStatus) {
	exit := ExitMessage{Type: "exit", Id: command.request.Id}
	if status.Signaled() {
		name := signalName(status.Signal())
		exit.Signal = &name
	} else {
		code := int64(status.ExitStatus())
		exit.ExitCode = &code
	}
	command.lock.Lock()
	command.exitStatus = &exit
	command.stopDeadline()
	output := command.output
	command.lock.Unlock()
	// Abandon pipes a backgrounded grandchild still holds: the reading loop ends.
	command.lock.Lock()
	if command.outputOpen {
		command.grace = time.AfterFunc(pipeGrace, output.abandon)
	}
	command.lock.Unlock()
	command.finishIfDone()
}

// cancel kills on the caller's behalf; false when the command had already finished.
func (command *RunningCommand) cancel() bool {
	command.lock.Lock()
	if command.finished {
		command.lock.Unlock()
		return false
	}
	if command.killing == nil {
		command.cancelled = true
	}
	command.lock.Unlock()
	command.kill()
	return true
}

func (command *RunningCommand) markOverDiskLimit() {
	command.lock.Lock()
	if !command.finished {
		command.overDiskLimit = true
	}
	command.lock.Unlock()
}

// kill kills the whole process tree; returns a channel closed once the tree is gone.
func (command *RunningCommand) kill() chan struct{} {
	command.lock.Lock()
	if command.killing != nil {
		done := command.killing
		command.lock.Unlock()
		return done
	}
	done := make(chan struct{})
	command.killing = done
	command.stopDeadline()
	process := command.process
	command.lock.Unlock()
	go func() {
		if process != nil {
			killProcessTree(process.Pid, command.markerEntry, command.identity)
		}
		command.lock.Lock()
		command.killDone = true
		command.lock.Unlock()
		close(done)
		command.finishIfDone()
	}()
	return done
}

func (command *RunningCommand) finishIfDone() {
	command.lock.Lock()
	if command.finished || command.exitStatus == nil || command.outputOpen || (command.killing != nil && !command.killDone) {
		command.lock.Unlock()
		return
	}
	command.finished = true
	exit := *command.exitStatus
	command.lock.Unlock()
	command.finish(exit)
}

func (command *RunningCommand) finish(exit ExitMessage) {
	command.lock.Lock()
	exit.TimedOut = command.timedOut
	exit.Cancelled = command.cancelled
	exit.OverDiskLimit = command.overDiskLimit
	exit.StdoutBytes = command.written["stdout"]
	exit.StderrBytes = command.written["stderr"]
	exit.DurationMs = time.Since(command.startedAt).Round(time.Millisecond).Milliseconds()
	command.lock.Unlock()
	command.events.exit(exit)
}

func (command *RunningCommand) stopDeadline() {
	if command.deadline != nil {
		command.deadline.Stop()
	}
}

// failToStart reports like a shell would: the reason on stderr, 127 for a missing program, 126 otherwise.
func (command *RunningCommand) failToStart(err error) {
	code, text := describeStartFailure(err, command.request.Argv[0], command.request.Cwd)
	command.forward("stderr", []byte(text+"\n"))
	command.lock.Lock()
	command.finished = true
	command.lock.Unlock()
	exitCode := int64(code)
	command.finish(ExitMessage{Type: "exit", Id: command.request.Id, ExitCode: &exitCode})
}

func describeStartFailure(err error, program string, cwd *string) (int, string) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = 0
	}
	if cwd != nil && (errno == syscall.ENOENT || errno == syscall.ENOTDIR || errno == syscall.EACCES) {
		info, statErr := os.Stat(*cwd)
		switch {
		case statErr == nil && !info.IsDir():
			return 126, "cd: " + *cwd + ": Not a directory"
		case errors.Is(statErr, fs.ErrNotExist):
			return 126, "cd: " + *cwd + ": No such file or directory"
		case statErr != nil:
			return 126, "cd: " + *cwd + ": " + statErr.Error()
		}
	}
	switch errno {
	case syscall.ENOENT:
		if strings.Contains(program, "/") {
			return 127, program + ": No such file or directory"
		}
		return 127, program + ": command not found"
	case syscall.EACCES:
		return 126, program + ": Permission denied"
	}
	return 126, program + ": " + err.Error()
}
