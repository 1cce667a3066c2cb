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

// readFrame reads one frame; io.EOF at a frame boundary is the clean end of the stream.
func readFrame(reader *bufio.Reader) (Frame, error) {
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
	whole := make([]byte, int(headerLength)+int(bodyLength))
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
