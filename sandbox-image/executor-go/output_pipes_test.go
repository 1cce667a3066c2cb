package main

// The one loop that reads a command's stdout and stderr: what was written in order arrives in order
// (stdout first when both pipes are ready), every byte of each stream arrives, and abandon ends the loop
// while a writer still holds a pipe. The executor end to end is in test/docker/docker-sandbox.test.ts.

import (
	"bytes"
	"sync"
	"syscall"
	"testing"
	"time"
)

type recordedChunk struct {
	stream string
	data   string
}

type recorder struct {
	lock   sync.Mutex
	chunks []recordedChunk
}

func (record *recorder) forward(stream string, chunk []byte) {
	record.lock.Lock()
	defer record.lock.Unlock()
	record.chunks = append(record.chunks, recordedChunk{stream, string(chunk)})
}

func (record *recorder) joined(stream string) string {
	record.lock.Lock()
	defer record.lock.Unlock()
	var text bytes.Buffer
	for _, chunk := range record.chunks {
		if chunk.stream == stream {
			text.WriteString(chunk.data)
		}
	}
	return text.String()
}

func mustPipes(t *testing.T) (*OutputPipes, int, int) {
	t.Helper()
	pipes, stdoutWrite, stderrWrite, err := newOutputPipes()
	if err != nil {
		t.Fatal(err)
	}
	return pipes, stdoutWrite, stderrWrite
}

func writeAll(t *testing.T, fd int, data []byte) {
	for len(data) > 0 {
		count, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			t.Errorf("write: %v", err)
			return
		}
		data = data[count:]
	}
}

func TestStdoutWrittenFirstArrivesFirst(t *testing.T) {
	// Both pipes already hold data and are closed when the loop starts: the order must not depend on
	// which pipe the scheduler looks at first.
	for round := 0; round < 200; round++ {
		pipes, stdoutWrite, stderrWrite := mustPipes(t)
		writeAll(t, stdoutWrite, []byte("out\n"))
		writeAll(t, stderrWrite, []byte("oops\n"))
		syscall.Close(stdoutWrite)
		syscall.Close(stderrWrite)
		record := &recorder{}
		pipes.pump(record.forward)
		want := []recordedChunk{{"stdout", "out\n"}, {"stderr", "oops\n"}}
		if len(record.chunks) != 2 || record.chunks[0] != want[0] || record.chunks[1] != want[1] {
			t.Fatalf("round %d: got %v, want %v", round, record.chunks, want)
		}
	}
}

func TestEveryByteOfBothStreamsArrives(t *testing.T) {
	pipes, stdoutWrite, stderrWrite := mustPipes(t)
	stdoutData := bytes.Repeat([]byte("0123456789abcdef"), 128*1024) // 2 MiB, many times a pipe's buffer
	stderrData := bytes.Repeat([]byte("e"), 300*1024)
	var writers sync.WaitGroup
	for _, job := range []struct {
		fd   int
		data []byte
	}{{stdoutWrite, stdoutData}, {stderrWrite, stderrData}} {
		writers.Add(1)
		go func(fd int, data []byte) {
			defer writers.Done()
			writeAll(t, fd, data)
			syscall.Close(fd)
		}(job.fd, job.data)
	}
	record := &recorder{}
	pipes.pump(record.forward)
	writers.Wait()
	if got := record.joined("stdout"); got != string(stdoutData) {
		t.Fatalf("stdout: got %d bytes, want %d", len(got), len(stdoutData))
	}
	if got := record.joined("stderr"); got != string(stderrData) {
		t.Fatalf("stderr: got %d bytes, want %d", len(got), len(stderrData))
	}
}

func TestAbandonEndsTheLoopWhileAWriterHoldsAPipe(t *testing.T) {
	pipes, stdoutWrite, stderrWrite := mustPipes(t)
	defer syscall.Close(stdoutWrite)
	syscall.Close(stderrWrite)
	writeAll(t, stdoutWrite, []byte("before\n"))
	done := make(chan struct{})
	record := &recorder{}
	go func() {
		pipes.pump(record.forward)
		close(done)
	}()
	// The loop keeps waiting on the open stdout until abandoned.
	select {
	case <-done:
		t.Fatal("the loop ended while stdout was still open")
	case <-time.After(50 * time.Millisecond):
	}
	pipes.abandon()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("abandon did not end the loop")
	}
	if got := record.joined("stdout"); got != "before\n" {
		t.Fatalf("stdout: got %q", got)
	}
	// The read end is closed: the writer that outlived its parent gets EPIPE, not a blocked write.
	if _, err := syscall.Write(stdoutWrite, []byte("after\n")); err != syscall.EPIPE {
		t.Fatalf("write after abandon: got %v, want EPIPE", err)
	}
	// Abandoning a finished loop again touches no descriptor.
	pipes.abandon()
}

func TestAbandonedBeforeTheLoopRanStillForwardsWhatThePipesHold(t *testing.T) {
	// The command wrote and exited, and the grace ran out before the loop got the cores: a writer (a
	// backgrounded grandchild) still holds both pipes. What they hold must arrive, stdout first; what is
	// written later must not keep the loop going.
	pipes, stdoutWrite, stderrWrite := mustPipes(t)
	defer syscall.Close(stdoutWrite)
	defer syscall.Close(stderrWrite)
	stdoutData := bytes.Repeat([]byte("o"), 48*1024)
	writeAll(t, stdoutWrite, stdoutData)
	writeAll(t, stderrWrite, []byte("oops\n"))
	pipes.abandon()
	record := &recorder{}
	done := make(chan struct{})
	go func() {
		pipes.pump(record.forward)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the abandoned loop did not end")
	}
	if got := record.joined("stdout"); got != string(stdoutData) {
		t.Fatalf("stdout: got %d bytes, want %d", len(got), len(stdoutData))
	}
	if got := record.joined("stderr"); got != "oops\n" {
		t.Fatalf("stderr: got %q", got)
	}
	if record.chunks[0].stream != "stdout" {
		t.Fatalf("stderr came first: %v", record.chunks[0])
	}
}

func TestCloseBeforeAnyPumpReleasesEveryDescriptor(t *testing.T) {
	pipes, stdoutWrite, stderrWrite := mustPipes(t)
	pipes.close()
	pipes.close()
	pipes.abandon()
	for _, fd := range []int{stdoutWrite, stderrWrite} {
		if _, err := syscall.Write(fd, []byte("x")); err != syscall.EPIPE {
			t.Fatalf("write to a pipe whose reader closed: got %v, want EPIPE", err)
		}
		syscall.Close(fd)
	}
}
