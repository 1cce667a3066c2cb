package main

// The frame format of protocol-frames.ts: u32 BE header length | u32 BE body length | header (UTF-8
// JSON) | body (raw bytes). One writer per stream, behind a lock: frames from many goroutines (output,
// results, egress) must never interleave.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Frame is one decoded frame: the header still as JSON text, and the body.
type Frame struct {
	Header json.RawMessage
	Body   []byte
}

// Buffers of chunk size (a readFileChunk answer of the files API's 1 MiB, with its header) are kept for
// the next one: without them each chunk cost two fresh megabytes (the file worker's read, the executor's
// copy of its answer), and with a few MiB of live heap Go collected every other chunk, its background
// sweeper then spinning on the runtime's locks (a sixth of the executor's CPU in a loop of chunk reads).
// A sync.Pool gives the buffers back to the collector when they go unused.
const (
	pooledBufferMin = 64 * 1024
	pooledBufferCap = mib + 64*1024
)

var chunkBuffers = sync.Pool{}

// takeBuffer is make([]byte, size), from the pool when the size is of a chunk's class. Its content is
// not zeroed: the caller overwrites what it uses.
func takeBuffer(size int) []byte {
	if size < pooledBufferMin || size > pooledBufferCap {
		return make([]byte, size)
	}
	if pooled, ok := chunkBuffers.Get().(*[]byte); ok {
		return (*pooled)[:size]
	}
	return make([]byte, size, pooledBufferCap)
}

// releaseBuffer hands a buffer from takeBuffer back once nothing refers to it any more.
func releaseBuffer(buffer []byte) {
	if cap(buffer) == pooledBufferCap {
		buffer = buffer[:0]
		chunkBuffers.Put(&buffer)
	}
}

// readFrame reads one frame; io.EOF at a frame boundary is the clean end of the stream.
func readFrame(reader *bufio.Reader) (Frame, error) {
	return readFrameInto(reader, func(size int) []byte { return make([]byte, size) })
}

// readFrameInto reads one frame into a buffer from `allocate` (header and body share it).
func readFrameInto(reader *bufio.Reader, allocate func(size int) []byte) (Frame, error) {
	var prefix [8]byte
	if _, err := io.ReadFull(reader, prefix[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return Frame{}, fmt.Errorf("stream ended inside a frame")
		}
		return Frame{}, err
	}
	headerLength := binary.BigEndian.Uint32(prefix[0:4])
	bodyLength := binary.BigEndian.Uint32(prefix[4:8])
	if headerLength > MaxFramePartBytes || bodyLength > MaxFramePartBytes {
		return Frame{}, fmt.Errorf("corrupt frame: header %d bytes, body %d bytes", headerLength, bodyLength)
	}
	whole := allocate(int(headerLength) + int(bodyLength))
	if _, err := io.ReadFull(reader, whole); err != nil {
		return Frame{}, fmt.Errorf("stream ended inside a frame")
	}
	return Frame{Header: whole[:headerLength], Body: whole[headerLength:]}, nil
}

// FrameWriter writes whole frames to one stream, one at a time.
type FrameWriter struct {
	lock   sync.Mutex
	out    io.Writer
	failed error
}

func newFrameWriter(out io.Writer) *FrameWriter {
	return &FrameWriter{out: out}
}

func encodeHeader(header any) []byte {
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(header); err != nil {
		panic(fmt.Sprintf("encoding a frame header: %v", err))
	}
	return bytes.TrimSuffix(buffer.Bytes(), []byte("\n"))
}

// Write sends one frame; the header is marshalled as JSON. The first write error is kept and returned.
func (writer *FrameWriter) Write(header any, body []byte) error {
	return writer.WriteRaw(encodeHeader(header), body)
}

// A body this large is written after its header as it is, rather than copied into one buffer with it.
const copyBelowBytes = 16 * 1024

// WriteRaw sends a frame whose header is already JSON (a file worker's answer, passed on unchanged).
func (writer *FrameWriter) WriteRaw(header []byte, body []byte) error {
	size := 8 + len(header)
	if len(body) < copyBelowBytes {
		size += len(body)
	}
	frame := make([]byte, 8, size)
	binary.BigEndian.PutUint32(frame[0:4], uint32(len(header)))
	binary.BigEndian.PutUint32(frame[4:8], uint32(len(body)))
	frame = append(frame, header...)
	large := len(body) >= copyBelowBytes
	if !large {
		frame = append(frame, body...)
	}
	writer.lock.Lock()
	defer writer.lock.Unlock()
	if writer.failed != nil {
		return writer.failed
	}
	if _, err := writer.out.Write(frame); err != nil {
		writer.failed = err
	} else if large {
		if _, err := writer.out.Write(body); err != nil {
			writer.failed = err
		}
	}
	return writer.failed
}
