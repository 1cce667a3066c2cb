package main

// A file operation's reads around it (readFile, writeFile, listFiles and deleteFile's readBefore and
// readAfter), as an exec's around its command (exec_reads.go): the hooks.json the server decided on
// confirmed in the operation's own request, right before it, and read again once it has ended, for the
// post hooks. Without them a file tool cost the server two readFiles round trips besides its own.

// fileOperationReads is the request's readBefore and readAfter; nil where it has none.
func fileOperationReads(request any) (*ReadBefore, *ReadAfter) {
	switch request := request.(type) {
	case *ReadFileRequest:
		return request.ReadBefore, request.ReadAfter
	case *WriteFileRequest:
		return request.ReadBefore, request.ReadAfter
	case *ListFilesRequest:
		return request.ReadBefore, request.ReadAfter
	case *DeleteFileRequest:
		return request.ReadBefore, request.ReadAfter
	}
	return nil, nil
}

// confirmBefore reads the readBefore files; false, the request ended with CHANGED_CODE, when they do not
// read as the request said.
func (executor *Executor) confirmBefore(id int64, op string, before *ReadBefore) bool {
	read := readForExec(before.Paths, before.MaxBytes, optionalStrings(before.Since), executor.identities["sandbox"], executor.fileWorker)
	if changed := whyChanged(read, before.Paths, before.Since); changed != "" {
		executor.sendError(id, ChangedCode, op+": not done, "+changed)
		return false
	}
	return true
}

// sendReadsAfter reads the readAfter files and sends them in a `reads` message; nothing when they could
// not be read (the server reads them itself then).
func (executor *Executor) sendReadsAfter(id int64, after *ReadAfter) {
	read := readForExec(after.Paths, after.MaxBytes, after.Since, executor.identities["sandbox"], executor.fileWorker)
	if !read.ok {
		logDiagnostic("request %d: its readAfter files could not be read (%s)", id, read.reason)
		return
	}
	executor.send(ReadsMessage{Type: "reads", Id: id, Reads: read.files}, read.body)
}
