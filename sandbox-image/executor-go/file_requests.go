package main

// The file operations of the protocol, answered in this process: by the executor itself when it has no
// identities (the local executor), otherwise by its file worker, which acts as the sandbox user.

var fileOps = map[string]bool{
	"readFile": true, "readFiles": true, "writeFile": true, "listFiles": true, "deleteFile": true, "stat": true,
	"walk": true, "usage": true, "readFileChunk": true, "appendFile": true, "moveFile": true,
}

func isFileRequest(op string) bool { return fileOps[op] }

// answerFileRequest never fails: a failure is an answer with an errno-style code.
func answerFileRequest(request any, body []byte) (result any, resultBody []byte, failure *FileOpError) {
	result, resultBody, err := handleFileRequest(request, body)
	if err != nil {
		if known, ok := err.(*FileOpError); ok {
			return nil, nil, known
		}
		return nil, nil, &FileOpError{"EIO", requestOp(request) + ": " + err.Error()}
	}
	return result, resultBody, nil
}

func handleFileRequest(request any, body []byte) (any, []byte, error) {
	switch request := request.(type) {
	case *ReadFileRequest:
		head, err := readFileHead(request.Path, request.MaxBytes)
		if err != nil {
			return nil, nil, err
		}
		return ReadFileResult{Op: "readFile", Size: head.size, Truncated: head.truncated, RealPath: head.realPath, ReadOnlyMount: head.readOnlyMount}, head.content, nil
	case *ReadFilesRequest:
		result, content := readFiles(request.Paths, request.MaxBytes, request.Since)
		return result, content, nil
	case *WriteFileRequest:
		size, err := writeFileCreatingParents(request.Path, body, request.Mode)
		return WriteFileResult{Op: "writeFile", Size: size}, nil, err
	case *ListFilesRequest:
		entries, err := listDirectory(request.Path)
		return ListFilesResult{Op: "listFiles", Entries: entries}, nil, err
	case *DeleteFileRequest:
		return DeleteFileResult{Op: "deleteFile"}, nil, deletePath(request.Path, request.Recursive)
	case *StatRequest:
		result, err := statPath(request.Path)
		return result, nil, err
	case *WalkRequest:
		result, err := walkTree(request)
		return result, nil, err
	case *UsageRequest:
		var exclude []string
		if request.Exclude != nil {
			exclude = *request.Exclude
		}
		return diskUsage(request.Paths, exclude), nil, nil
	case *ReadFileChunkRequest:
		content, size, err := readFileChunk(request.Path, request.Offset, request.Length)
		return ReadFileChunkResult{Op: "readFileChunk", Size: size, BytesRead: int64(len(content))}, content, err
	case *AppendFileRequest:
		size, err := appendFileAt(request.Path, request.Offset, request.Create, body)
		return AppendFileResult{Op: "appendFile", Size: size}, nil, err
	case *MoveFileRequest:
		return MoveFileResult{Op: "moveFile"}, nil, moveFile(request.From, request.To, request.Overwrite)
	}
	return nil, nil, &FileOpError{"EBADREQ", requestOp(request) + " is not a file operation"}
}
