package main

// The executor: requests arrive as frames on stdin and are handled concurrently; each is
// answered on stdout with exactly one terminal message. Commands run as the identity their request
// names; file operations run here (no identities: the local executor) or in the file worker.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

const mib = 1024 * 1024

// File operations that add bytes: refused while the sandbox's files are past its disk limit.
var growingOps = map[string]bool{"writeFile": true, "appendFile": true}

// File operations after which the disk guard measures again.
var changingOps = map[string]bool{"writeFile": true, "appendFile": true, "moveFile": true, "deleteFile": true}

type waitingExec struct{ cancelled bool }

// Executor holds what one channel's requests share.
type Executor struct {
	identities map[string]*Identity
	out        *FrameWriter
	lock       sync.Mutex
	running    map[int64]*RunningCommand
	// Execs not started yet (reading their readBefore files, or waiting for the disk guard).
	waiting      map[int64]*waitingExec
	stoppingAll  chan struct{}
	shuttingDown bool
	egress       *EgressListener
	fileWorker   *FileWorkerLink
	oomScore     *OomScore
	diskGuard    *DiskGuard
	// Execs whose reads wait until the frames that arrived with them were handled (held): the main
	// loop's own state, touched by it alone.
	held held
}

// held are the execs waiting for the frames read with them. A caller whose signal was aborted
// before it sent sends the exec and its cancel in one write (server/sandbox/executor-client.ts); the
// reads of hooks.json take microseconds here, so started at once they could end, and the command
// start, before the loop got to the cancel. They start once the loop has consumed every byte that
// was already buffered when the exec was read.
type held struct {
	starts []func()
	until  int64
}

func runExecutor(identities map[string]*Identity, diskLimitMb int64) {
	// A broken stdout pipe must come back as EPIPE (the server stopped listening), not kill us with
	// SIGPIPE; notifying (rather than ignoring) keeps commands' own SIGPIPE at its default.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	executor := &Executor{
		identities: identities,
		out:        newFrameWriter(pollableFile(1, "stdout")),
		running:    map[int64]*RunningCommand{},
		waiting:    map[int64]*waitingExec{},
	}
	executor.egress = newEgressListener(executor.send, identities)
	isolated := len(identities) > 0
	if isolated {
		// With identities, file operations are the sandbox user's, done by a worker acting as that user.
		executor.fileWorker = newFileWorkerLink("sandbox", identities, executor.sendRaw)
		executor.fileWorker.warmUp()
		executor.oomScore = newOomScore()
		if !executor.oomScore.enabled() {
			logDiagnostic("commands cannot be put first in line for the OOM killer")
		}
		if diskLimitMb != 0 {
			var guarded []*Identity
			for _, name := range IdentityNames {
				guarded = append(guarded, identities[name])
			}
			executor.diskGuard = newDiskGuard(diskLimitMb*mib, guarded, executor.stopEverything)
			executor.diskGuard.start()
		}
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		if received := <-signals; received == syscall.SIGTERM {
			executor.shutdown(143, "SIGTERM")
		} else {
			executor.shutdown(130, "SIGINT")
		}
	}()
	reader := bufio.NewReaderSize(pollableFile(0, "stdin"), 256*1024)
	var consumed int64
	for {
		// A chunk-sized frame (an upload's 1 MiB append) in a pooled buffer: the file worker link hands
		// it back once the worker answered; a frame kept elsewhere (a command's input) is simply not.
		frame, err := readFrameInto(reader, takeBuffer)
		consumed += int64(8 + len(frame.Header) + len(frame.Body))
		if err == io.EOF {
			executor.shutdown(0, "stdin closed")
		}
		if err != nil {
			// Framing is lost: nothing after this point can be trusted to be a request.
			executor.shutdown(2, fmt.Sprintf("corrupt request stream: %v", err))
		}
		header, err := decodeJSON(frame.Header)
		if err != nil {
			executor.shutdown(2, fmt.Sprintf("corrupt request stream: the frame header is not JSON (%v)", err))
		}
		executor.handleFrame(header, frame, consumed+int64(reader.Buffered()))
		if len(executor.held.starts) > 0 && consumed >= executor.held.until {
			for _, start := range executor.held.starts {
				go start()
			}
			executor.held = held{}
		}
	}
}

func (executor *Executor) isShuttingDown() bool {
	executor.lock.Lock()
	defer executor.lock.Unlock()
	return executor.shuttingDown
}

func (executor *Executor) send(message any, body []byte) {
	if executor.isShuttingDown() {
		return
	}
	executor.afterWrite(executor.out.Write(message, body))
}

func (executor *Executor) sendRaw(header []byte, body []byte) {
	if executor.isShuttingDown() {
		return
	}
	executor.afterWrite(executor.out.WriteRaw(header, body))
}

func (executor *Executor) afterWrite(err error) {
	if err == nil {
		return
	}
	// EPIPE: the server stopped listening, which is one way of closing the channel.
	if errnoOf(err) == syscall.EPIPE {
		go executor.shutdown(0, "stdout closed")
	} else {
		go executor.shutdown(1, fmt.Sprintf("stdout: %v", err))
	}
}

func (executor *Executor) sendResult(id int64, result any, body []byte) {
	executor.send(ResultMessage{Type: "result", Id: id, Result: result}, body)
}

func (executor *Executor) sendError(id int64, code, message string) {
	executor.send(ErrorMessage{Type: "error", Id: id, Code: code, Message: message}, nil)
}

// handleFrame handles one request; `buffered` is where the bytes already read with it end, in the
// count of bytes the loop consumed.
func (executor *Executor) handleFrame(header any, frame Frame, buffered int64) {
	if object, ok := header.(map[string]any); ok {
		if _, isEgress := object["egress"]; isEgress {
			executor.egress.receive(header, frame.Body)
			return
		}
	}
	request, id, problem := parseRequest(header)
	if problem != "" {
		if id < 0 {
			logDiagnostic("ignoring frame without a usable id: %s", problem)
		} else {
			executor.sendError(id, BadRequestCode, problem)
		}
		return
	}
	switch request := request.(type) {
	case *ExecRequest:
		executor.startCommand(request, frame.Body, buffered)
	case *CancelRequest:
		executor.lock.Lock()
		wait := executor.waiting[request.Target]
		if wait != nil {
			wait.cancelled = true
		}
		command := executor.running[request.Target]
		executor.lock.Unlock()
		found := wait != nil || (command != nil && command.cancel())
		executor.sendResult(request.Id, CancelResult{Op: "cancel", Found: found}, nil)
	case *PingRequest:
		executor.sendResult(request.Id, PingResult{Op: "ping", Version: ProtocolVersion, Pid: int64(os.Getpid()), Uid: int64(os.Getuid())}, nil)
	case *EgressListenRequest:
		go func() {
			port, failure := executor.egress.listen(request.Host, int(request.Port))
			if failure != nil {
				executor.sendError(request.Id, failure.Code, "egressListen: "+failure.Message)
			} else {
				executor.sendResult(request.Id, EgressListenResult{Op: "egressListen", Port: int64(port)}, nil)
			}
		}()
	case *ExportTreeRequest:
		go func() {
			tar, entries, failure := exportTree(request.Paths, request.MaxBytes)
			if failure != nil {
				executor.sendError(request.Id, failure.Code, failure.Message)
			} else {
				executor.sendResult(request.Id, ExportTreeResult{Op: "exportTree", Entries: entries}, tar)
			}
		}()
	case *ExtractTreeRequest:
		go func() {
			entries, failure := extractTree(frame.Body)
			if failure != nil {
				executor.sendError(request.Id, failure.Code, failure.Message)
			} else {
				executor.sendResult(request.Id, ExtractTreeResult{Op: "extractTree", Entries: entries}, nil)
			}
		}()
	default:
		executor.handleFileRequest(id, requestOp(request), request, frame)
	}
}

func (executor *Executor) handleFileRequest(id int64, op string, request any, frame Frame) {
	before, after := fileOperationReads(request)
	if before == nil {
		executor.doFileRequest(id, op, request, frame, after)
		return
	}
	// Confirmed first, off this loop as an exec's files are (a read the thread cannot make waits for the
	// worker): files that changed stop everything else, the disk guard's refusal included, as a pre hook
	// that now denies the call would.
	go func() {
		if executor.confirmBefore(id, op, before) {
			executor.doFileRequest(id, op, request, frame, after)
		}
	}()
}

func (executor *Executor) doFileRequest(id int64, op string, request any, frame Frame, after *ReadAfter) {
	// With reads after, the answer waits for them, off this loop: the files are read once the operation
	// has ended, done or failed, and go first.
	answer := func(send func()) { send() }
	if after != nil {
		answer = func(send func()) {
			go func() {
				executor.sendReadsAfter(id, after)
				send()
			}()
		}
	}
	if growingOps[op] && executor.diskGuard != nil {
		if over := executor.diskGuard.overLimit(); over != nil {
			answer(func() {
				executor.sendError(id, "ENOSPC", fmt.Sprintf("the sandbox's files take %s; delete files to make room", describeReading(*over)))
			})
			return
		}
	}
	if changingOps[op] && executor.diskGuard != nil {
		executor.diskGuard.noteActivity()
	}
	if executor.fileWorker != nil {
		// Passed on as it came: the worker checks it again, as itself (and ignores the reads around it).
		if after == nil {
			executor.fileWorker.forward(id, op, frame.Header, frame.Body)
		} else {
			executor.fileWorker.forwardAnswering(id, op, frame.Header, frame.Body, func(header []byte, body []byte) {
				answer(func() {
					executor.sendRaw(header, body)
					// Written, and the request answered: neither buffer is referred to any more.
					releaseBuffer(header)
					releaseBuffer(frame.Header)
				})
			})
		}
		return
	}
	go func() {
		result, body, failure := answerFileRequest(request, frame.Body)
		if after != nil {
			executor.sendReadsAfter(id, after)
		}
		if failure != nil {
			executor.sendError(id, failure.Code, failure.Message)
		} else {
			executor.sendResult(id, result, body)
		}
		if _, chunk := request.(*ReadFileChunkRequest); chunk {
			releaseBuffer(body) // written: nothing refers to it any more
		}
	}()
}

func (executor *Executor) startCommand(request *ExecRequest, stdin []byte, buffered int64) {
	executor.lock.Lock()
	// Cancel addresses commands by id, so two live commands must never share one.
	if executor.running[request.Id] != nil || executor.waiting[request.Id] != nil {
		executor.lock.Unlock()
		executor.sendError(request.Id, BadRequestCode, fmt.Sprintf("exec: id %d is already running", request.Id))
		return
	}
	if request.ReadBefore == nil && executor.stoppingAll == nil {
		executor.lock.Unlock()
		executor.spawnCommand(request, stdin)
		return
	}
	wait := &waitingExec{}
	executor.waiting[request.Id] = wait
	executor.lock.Unlock()
	executor.held.until = buffered
	executor.held.starts = append(executor.held.starts, func() {
		for {
			executor.lock.Lock()
			stopping := executor.stoppingAll
			executor.lock.Unlock()
			if stopping == nil {
				break
			}
			<-stopping
		}
		var read filesRead
		before := request.ReadBefore
		if before != nil {
			read = readForExec(before.Paths, before.MaxBytes, optionalStrings(before.Since), executor.identities["sandbox"], executor.fileWorker)
		}
		executor.lock.Lock()
		delete(executor.waiting, request.Id)
		cancelled := wait.cancelled
		shuttingDown := executor.shuttingDown
		executor.lock.Unlock()
		if shuttingDown {
			return
		}
		// Cancelled before it started: it ends as a command killed at once would.
		if cancelled {
			executor.send(notStartedExit(request.Id), nil)
			return
		}
		if before != nil {
			if changed := whyChanged(read, before.Paths, before.Since); changed != "" {
				executor.sendError(request.Id, ChangedCode, "exec: not started, "+changed)
				return
			}
			executor.send(StartedMessage{Type: "started", Id: request.Id}, nil)
		}
		executor.spawnCommand(request, stdin)
	})
}

func (executor *Executor) spawnCommand(request *ExecRequest, stdin []byte) {
	identity, oomScore := executor.identityFor(request)
	command := newRunningCommand(request, CommandEvents{
		output: func(stream string, chunk []byte) {
			if stream == "stdout" {
				executor.send(StdoutMessage{Type: stream, Id: request.Id}, chunk)
			} else {
				executor.send(StderrMessage{Type: stream, Id: request.Id}, chunk)
			}
		},
		exit: func(report ExitMessage) {
			executor.lock.Lock()
			delete(executor.running, request.Id)
			executor.lock.Unlock()
			if executor.diskGuard != nil {
				executor.diskGuard.noteActivity()
			}
			// After a cancel nobody runs post hooks: nothing to read for them.
			after := request.ReadAfter
			if report.Cancelled || after == nil {
				executor.send(report, nil)
				return
			}
			go func() {
				read := readForExec(after.Paths, after.MaxBytes, after.Since, executor.identities["sandbox"], executor.fileWorker)
				if read.ok {
					reads := read.files
					report.Reads = &reads
					executor.send(report, read.body)
				} else {
					executor.send(report, nil)
				}
			}()
		},
	}, identity, oomScore)
	executor.lock.Lock()
	executor.running[request.Id] = command
	executor.lock.Unlock()
	command.start(stdin)
	if executor.diskGuard != nil {
		executor.diskGuard.noteActivity()
	}
}

func (executor *Executor) identityFor(request *ExecRequest) (*Identity, *OomScore) {
	name := "sandbox"
	if request.RunAs != nil {
		name = *request.RunAs
	}
	// Only the sandbox user's commands go first to the OOM killer: hooks are guards, like us.
	if name == "sandbox" {
		return executor.identities[name], executor.oomScore
	}
	return executor.identities[name], nil
}

// stopEverything: every process of the sandbox's users goes, the running commands' exits saying why.
// Commands that arrive meanwhile wait until it is done (startCommand).
func (executor *Executor) stopEverything(reading DiskReading) {
	logDiagnostic("disk guard: the sandbox's files take %s; stopping every process of the sandbox's", describeReading(reading))
	stopping := make(chan struct{})
	executor.lock.Lock()
	for _, command := range executor.running {
		command.markOverDiskLimit()
	}
	executor.stoppingAll = stopping
	executor.lock.Unlock()
	for _, name := range IdentityNames {
		if identity := executor.identities[name]; identity != nil {
			killAllOf(identity)
		}
	}
	executor.lock.Lock()
	if executor.stoppingAll == stopping {
		executor.stoppingAll = nil
	}
	executor.lock.Unlock()
	close(stopping)
}

// shutdown: commands run in their own sessions, so they would outlive us: kill every tree before
// exiting. Bounded, because a wedged kill must not keep a dead channel's executor around forever.
func (executor *Executor) shutdown(exitCode int, reason string) {
	executor.lock.Lock()
	if executor.shuttingDown {
		executor.lock.Unlock()
		select {} // the first shutdown exits the process
	}
	executor.shuttingDown = true
	commands := make([]*RunningCommand, 0, len(executor.running))
	for _, command := range executor.running {
		commands = append(commands, command)
	}
	executor.lock.Unlock()
	if exitCode != 0 {
		logDiagnostic("%s", reason)
	}
	// First, so programs see their proxy connections reset at once and the port is free for the next executor.
	executor.egress.closeAll()
	if executor.diskGuard != nil {
		executor.diskGuard.stop()
	}
	if executor.fileWorker != nil {
		executor.fileWorker.close()
	}
	killed := make(chan struct{})
	go func() {
		for _, command := range commands {
			<-command.kill()
		}
		close(killed)
	}()
	select {
	case <-killed:
	case <-time.After(5 * time.Second):
	}
	os.Exit(exitCode)
}

func describeReading(reading DiskReading) string {
	inMib := func(bytes int64) string { return fmt.Sprintf("%.1f", float64(bytes)/mib) }
	return fmt.Sprintf("%s MiB, past the sandbox's disk limit of %s MiB in total", inMib(reading.bytes), inMib(reading.limitBytes))
}

var _ = json.Marshal
