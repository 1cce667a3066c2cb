package main

// The executor's side of its file worker: started with the executor, so that it
// is usually up by a new sandbox's first file request, and again whenever it has ended. Requests are
// passed on as they came and answers passed back unchanged. A request the worker had not answered when
// it ended is sent once more to the next worker if doing it twice changes nothing; otherwise, or if
// that one ends too, it fails with UNAVAILABLE_CODE: its outcome is unknown, which is not the same as
// a file that is missing or unreadable.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Requests that end the same done once or twice: safe to send again to a new worker. Not deleteFile,
// moveFile or appendFile: done once already, the second attempt would fail (ENOENT, EOFFSET).
var repeatableOps = map[string]bool{
	"readFile": true, "readFiles": true, "listFiles": true, "stat": true, "walk": true, "usage": true,
	"readFileChunk": true, "writeFile": true,
}

// The executor's own requests count down from here; the server's count up from 1, so the two never meet.
const firstOwnID = maxSafeInteger

type forwardedRequest struct {
	id      int64
	op      string
	header  []byte
	body    []byte
	retried bool
	// Where the answer goes instead of out to the server: the executor's own request (an exec's reads),
	// or a server's request whose answer waits for the files read after it (forwardAnswering).
	reply func(header []byte, body []byte)
}

type workerProcess struct {
	command *exec.Cmd
	stdin   *FrameWriter
	pipe    io.WriteCloser
}

// FileWorkerLink starts, feeds and restarts the file worker.
type FileWorkerLink struct {
	actingAs   string
	identities map[string]*Identity
	answer     func(header []byte, body []byte)

	lock      sync.Mutex
	worker    *workerProcess
	pending   map[int64]*forwardedRequest
	closed    bool
	nextOwnID int64
}

func newFileWorkerLink(actingAs string, identities map[string]*Identity, answer func(header []byte, body []byte)) *FileWorkerLink {
	return &FileWorkerLink{actingAs: actingAs, identities: identities, answer: answer, pending: map[int64]*forwardedRequest{}, nextOwnID: firstOwnID}
}

func (link *FileWorkerLink) warmUp() {
	link.lock.Lock()
	link.ensureWorker()
	link.lock.Unlock()
}

// forward passes the server's request on, as it came.
func (link *FileWorkerLink) forward(id int64, op string, header []byte, body []byte) {
	link.send(&forwardedRequest{id: id, op: op, header: header, body: body})
}

// forwardAnswering passes a server's request on as forward does, but hands the worker's answer to
// `answered` instead of writing it out (a file operation with reads after it sends those first). The
// answer's bytes are the caller's: never reused.
func (link *FileWorkerLink) forwardAnswering(id int64, op string, header []byte, body []byte, answered func(header []byte, body []byte)) {
	link.send(&forwardedRequest{id: id, op: op, header: header, body: body, reply: answered})
}

// ask has the worker do a request of the executor's own; it returns the answer's header and body.
func (link *FileWorkerLink) ask(request map[string]any) ([]byte, []byte) {
	link.lock.Lock()
	id := link.nextOwnID
	link.nextOwnID--
	link.lock.Unlock()
	request["id"] = id
	answered := make(chan [2][]byte, 1)
	link.send(&forwardedRequest{id: id, op: request["op"].(string), header: encodeHeader(request), reply: func(header, body []byte) {
		answered <- [2][]byte{header, body}
	}})
	answer := <-answered
	return answer[0], answer[1]
}

// deliver hands an answer on; true when its bytes are kept (a reply to the executor's own request),
// false when they were written out before it returned.
func (link *FileWorkerLink) deliver(forwarded *forwardedRequest, header []byte, body []byte) bool {
	if forwarded.reply != nil {
		forwarded.reply(header, body)
		return true
	}
	link.answer(header, body)
	return false
}

func unavailable(forwarded *forwardedRequest, message string) []byte {
	return encodeHeader(ErrorMessage{Type: "error", Id: forwarded.id, Code: UnavailableCode, Message: message})
}

func (link *FileWorkerLink) send(forwarded *forwardedRequest) {
	link.lock.Lock()
	worker := link.ensureWorker()
	if worker == nil {
		link.lock.Unlock()
		link.deliver(forwarded, unavailable(forwarded, forwarded.op+": the file worker could not be started"), nil)
		return
	}
	link.pending[forwarded.id] = forwarded
	link.lock.Unlock()
	// A failed write means the worker ended: its exit hands the request on.
	_ = worker.stdin.WriteRaw(forwarded.header, forwarded.body)
}

// close ends the worker with the executor: its stdin closes, and it is killed if it lingers.
func (link *FileWorkerLink) close() {
	link.lock.Lock()
	link.closed = true
	worker := link.worker
	link.lock.Unlock()
	if worker == nil {
		return
	}
	worker.pipe.Close()
	time.AfterFunc(time.Second, func() { _ = worker.command.Process.Kill() })
}

// ensureWorker starts a worker when there is none; called with the lock held.
func (link *FileWorkerLink) ensureWorker() *workerProcess {
	if link.worker != nil || link.closed {
		return link.worker
	}
	self, err := os.Executable()
	if err != nil {
		logDiagnostic("starting the file worker failed: %v", err)
		return nil
	}
	// As root like us: it changes its effective identity itself, keeping a real uid of 0 (file_worker.go).
	command := exec.Command(self, append([]string{FileWorkerFlag, link.actingAs}, identityArguments(link.identities)...)...)
	command.Stderr = os.Stderr
	stdin, workerStdin, err := oneWaySocket("file worker requests", "file worker stdin", 0)
	if err != nil {
		logDiagnostic("starting the file worker failed: %v", err)
		return nil
	}
	workerEnd, stdout, err := oneWaySocket("file worker stdout", "file worker answers", 1)
	if err != nil {
		stdin.Close()
		workerStdin.Close()
		logDiagnostic("starting the file worker failed: %v", err)
		return nil
	}
	command.Stdin = workerStdin
	command.Stdout = workerEnd
	spawnLock.Lock()
	err = command.Start()
	spawnLock.Unlock()
	workerStdin.Close()
	workerEnd.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		logDiagnostic("starting the file worker failed: %v", err)
		return nil
	}
	worker := &workerProcess{command: command, stdin: newFrameWriter(stdin), pipe: stdin}
	link.worker = worker
	go link.readAnswers(worker, stdout)
	return worker
}

// oneWaySocket is what requests travel to the worker through, and its answers back: a Unix socket pair
// per direction rather than a pipe. A pipe holds 64 KiB, so a 1 MiB read (or a 1 MiB append of an
// upload) crossed it in sixteen turns of the two processes, each a wait for the cores on a busy
// machine; the socket holds what the kernel's socket buffer does (about 200 KiB by default), and unlike
// a bigger pipe (F_SETPIPE_SZ) it is not counted in the pipe pages that all of root's processes share
// across the machine (fs.pipe-user-pages-soft), past which every container's root gets two-page pipes.
// The first end only writes, the second only reads; the end named by `ours` (0 or 1) stays in this
// process and is waited on by the poller (pollable_files.go), the other goes to the worker as it is.
func oneWaySocket(writerName, readerName string, ours int) (writer *os.File, reader *os.File, err error) {
	ends, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	_ = syscall.Shutdown(ends[0], syscall.SHUT_RD)
	_ = syscall.Shutdown(ends[1], syscall.SHUT_WR)
	files := [2]*os.File{}
	for index, name := range [2]string{writerName, readerName} {
		if index == ours {
			files[index] = pollableFile(ends[index], name)
		} else {
			files[index] = os.NewFile(uintptr(ends[index]), name)
		}
	}
	return files[0], files[1], nil
}

func (link *FileWorkerLink) readAnswers(worker *workerProcess, stdout io.ReadCloser) {
	defer stdout.Close()
	reader := bufio.NewReaderSize(stdout, 256*1024)
	for {
		frame, err := readFrameInto(reader, takeBuffer)
		if err != nil {
			if err != io.EOF {
				logDiagnostic("file worker sent a corrupt frame (%v); restarting it", err)
				_ = worker.command.Process.Kill()
			}
			break
		}
		// Header and body share one buffer (the header's capacity reaches over the body): free again
		// once the answer was written to the channel, but not when the executor's own request keeps it.
		if !link.passOn(frame) {
			releaseBuffer(frame.Header)
		}
	}
	// By now every answer it wrote has been read, so none is taken for lost.
	_ = worker.command.Wait()
	link.onWorkerExit(worker)
}

// passOn delivers a frame of the worker's; true when its bytes are kept (see deliver).
func (link *FileWorkerLink) passOn(frame Frame) bool {
	var head struct {
		ID *int64 `json:"id"`
	}
	_ = json.Unmarshal(frame.Header, &head)
	link.lock.Lock()
	var forwarded *forwardedRequest
	if head.ID != nil {
		forwarded = link.pending[*head.ID]
		delete(link.pending, *head.ID)
	}
	link.lock.Unlock()
	// Our own worker answers only what it was asked; anything else would be a bug of ours, dropped here.
	if forwarded == nil {
		text := string(frame.Header)
		if len(text) > 200 {
			text = text[:200]
		}
		logDiagnostic("file worker answered a request it was not given: %s", text)
		return false
	}
	kept := link.deliver(forwarded, frame.Header, frame.Body)
	// Answered: a server's request (read with its body into one buffer from takeBuffer, the header
	// first) was written to the worker before it could answer, and is not sent again.
	if forwarded.reply == nil {
		releaseBuffer(forwarded.header)
	}
	return kept
}

func (link *FileWorkerLink) onWorkerExit(worker *workerProcess) {
	link.lock.Lock()
	if link.worker != worker {
		link.lock.Unlock()
		return
	}
	link.worker = nil
	how := "exited"
	if state := worker.command.ProcessState; state != nil {
		if status, ok := state.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			how = "was killed by " + signalName(status.Signal())
		} else {
			how = fmt.Sprintf("exited with %d", state.ExitCode())
		}
	}
	closed := link.closed
	if !closed {
		logDiagnostic("file worker %s; a new one starts with the next file request", how)
	}
	interrupted := make([]*forwardedRequest, 0, len(link.pending))
	for id, forwarded := range link.pending {
		interrupted = append(interrupted, forwarded)
		delete(link.pending, id)
	}
	link.lock.Unlock()
	for _, forwarded := range interrupted {
		if !closed && !forwarded.retried && repeatableOps[forwarded.op] {
			forwarded.retried = true
			link.send(forwarded)
			continue
		}
		link.deliver(forwarded, unavailable(forwarded, fmt.Sprintf("%s: not done, the sandbox's file worker %s", forwarded.op, how)), nil)
	}
}
