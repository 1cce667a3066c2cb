package main

// The file worker: this same binary, started by the executor with --file-worker, doing
// the file operations of one identity (the sandbox user). It keeps uid 0 as its real and saved uid, so
// that user's processes can neither signal nor trace it, and acts with that user's effective uid, gid
// and groups, so that every access is checked exactly as for the user and what it creates belongs to
// the user. The executor forwards file requests to it over its stdin and passes its answers on
// (file_worker_link.go).

import (
	"bufio"
	"io"
	"os"
)

func runFileWorker(identity *Identity) {
	// Before reading a single request: nothing is ever done as root here.
	if err := becomeFileWorker(identity); err != nil {
		logDiagnostic("file worker: cannot act as %s: %v", identity.Name, err)
		os.Exit(exitRefused)
	}
	out := newFrameWriter(pollableFile(1, "stdout"))
	reader := bufio.NewReaderSize(pollableFile(0, "stdin"), 256*1024)
	for {
		// Pooled (an upload's 1 MiB appends): handed back once answered, since nothing keeps a request.
		frame, err := readFrameInto(reader, takeBuffer)
		if err == io.EOF {
			os.Exit(0) // the executor closing our stdin (or dying) is the end of our work
		}
		if err != nil {
			logDiagnostic("file worker: corrupt request stream: %v", err)
			os.Exit(2)
		}
		header, err := decodeJSON(frame.Header)
		if err != nil {
			logDiagnostic("file worker: corrupt request stream: %v", err)
			os.Exit(2)
		}
		request, id, problem := parseRequest(header)
		if problem != "" {
			if id < 0 {
				logDiagnostic("file worker: ignoring a frame without a usable id: %s", problem)
			} else {
				_ = out.Write(ErrorMessage{Type: "error", Id: id, Code: BadRequestCode, Message: problem}, nil)
			}
			continue
		}
		if op := requestOp(request); !isFileRequest(op) {
			_ = out.Write(ErrorMessage{Type: "error", Id: id, Code: BadRequestCode, Message: op + " is not a file operation"}, nil)
			continue
		}
		// One at a time, in order: the effective uid is the process's, and the reads are short.
		result, body, failure := answerFileRequest(request, frame.Body)
		if failure != nil {
			err = out.Write(ErrorMessage{Type: "error", Id: id, Code: failure.Code, Message: failure.Message}, nil)
		} else {
			err = out.Write(ResultMessage{Type: "result", Id: id, Result: result}, body)
		}
		if _, chunk := request.(*ReadFileChunkRequest); chunk {
			releaseBuffer(body) // written: nothing refers to it any more
		}
		releaseBuffer(frame.Header)
		if err != nil {
			os.Exit(0)
		}
	}
}
