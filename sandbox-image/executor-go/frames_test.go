package main

import (
	"bufio"
	"bytes"
	"testing"
)

func TestTakeBufferSizesAndPooling(t *testing.T) {
	small := takeBuffer(100)
	if len(small) != 100 || cap(small) != 100 {
		t.Fatalf("a small buffer is made to size: len %d cap %d", len(small), cap(small))
	}
	chunk := takeBuffer(mib + 100)
	if len(chunk) != mib+100 || cap(chunk) != pooledBufferCap {
		t.Fatalf("a chunk-class buffer has the class's capacity: len %d cap %d", len(chunk), cap(chunk))
	}
	large := takeBuffer(pooledBufferCap + 1)
	if cap(large) != pooledBufferCap+1 {
		t.Fatalf("a buffer past the class is made to size: cap %d", cap(large))
	}
	// Only the class's buffers go back to the pool; a reused one comes back at the size asked.
	releaseBuffer(small)
	releaseBuffer(large)
	releaseBuffer(chunk)
	again := takeBuffer(200 * 1024)
	if len(again) != 200*1024 || cap(again) != pooledBufferCap {
		t.Fatalf("a chunk-class buffer again: len %d cap %d", len(again), cap(again))
	}
}

func TestReadFrameIntoPooledBuffersKeepsFramesApart(t *testing.T) {
	var stream bytes.Buffer
	writer := newFrameWriter(&stream)
	bodies := [][]byte{bytes.Repeat([]byte{1}, 300*1024), bytes.Repeat([]byte{2}, 70*1024), []byte("small")}
	for index, body := range bodies {
		if err := writer.Write(map[string]any{"type": "result", "id": index + 1}, body); err != nil {
			t.Fatal(err)
		}
	}
	reader := bufio.NewReaderSize(&stream, 256*1024)
	for index, body := range bodies {
		frame, err := readFrameInto(reader, takeBuffer)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(frame.Body, body) {
			t.Fatalf("frame %d: body differs", index)
		}
		wantHeader := []byte(`{"id":` + string(rune('1'+index)) + `,"type":"result"}`)
		if !bytes.Equal(frame.Header, wantHeader) {
			t.Fatalf("frame %d: header %s", index, frame.Header)
		}
		// Released as readAnswers does once the answer was written: the next frame may reuse it.
		releaseBuffer(frame.Header)
	}
}
