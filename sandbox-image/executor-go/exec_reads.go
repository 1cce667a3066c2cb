package main

// The files an exec reads around its command: the server's hooks.json candidates, read
// as the sandbox user exactly as a readFiles request would read them, without a round trip of their
// own. Before: the command starts only if every file reads as the server last saw it. After: the files
// as they are once the command ended, for the post hooks.
//
// They are read here, on one thread that takes the file worker's credentials for the reads
// (actingFullyAs), rather than through the worker: two round trips to another process added 0.4 ms to
// every tool call (docs/benchmarks.md). Where the thread cannot take them, the worker reads them as
// before.

import (
	"encoding/json"
	"fmt"
)

type filesRead struct {
	ok     bool
	files  []any
	tokens []string
	body   []byte
	reason string
}

// readForExec reads as `identity` (the file worker's) when there is one, else as the executor (the
// local executor, which has no identities).
func readForExec(paths []string, maxBytes int64, since []*string, identity *Identity, worker *FileWorkerLink) filesRead {
	if identity == nil || worker == nil {
		return filesReadOf(readFiles(paths, maxBytes, since))
	}
	var result *ReadFilesResult
	var body []byte
	if actingFullyAs(identity, func() { result, body = readFiles(paths, maxBytes, since) }) {
		return filesReadOf(result, body)
	}
	return readThroughWorker(paths, maxBytes, since, worker)
}

func filesReadOf(result *ReadFilesResult, body []byte) filesRead {
	read := filesRead{ok: true, files: result.Files, body: body}
	for _, file := range result.Files {
		switch entry := file.(type) {
		case ReadFilesFoundEntry:
			read.tokens = append(read.tokens, entry.Token)
		case ReadFilesFailedEntry:
			read.tokens = append(read.tokens, entry.Token)
		default:
			read.tokens = append(read.tokens, "")
		}
	}
	return read
}

func readThroughWorker(paths []string, maxBytes int64, since []*string, worker *FileWorkerLink) filesRead {
	header, body := worker.ask(map[string]any{"op": "readFiles", "paths": paths, "maxBytes": maxBytes, "since": since})
	var answer struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
		Result  struct {
			Op    string            `json:"op"`
			Files []json.RawMessage `json:"files"`
		} `json:"result"`
	}
	if err := json.Unmarshal(header, &answer); err != nil {
		return filesRead{reason: "an unreadable answer"}
	}
	if answer.Type == "error" {
		return filesRead{reason: answer.Code + ": " + answer.Message}
	}
	if answer.Type != "result" || answer.Result.Op != "readFiles" {
		return filesRead{reason: fmt.Sprintf("an unexpected %s answer", answer.Type)}
	}
	read := filesRead{ok: true, body: body}
	for _, file := range answer.Result.Files {
		var entry struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(file, &entry)
		read.files = append(read.files, file)
		read.tokens = append(read.tokens, entry.Token)
	}
	return read
}

// whyChanged: "" when every file read with the token `since` gives for it; otherwise which one did not.
func whyChanged(read filesRead, paths []string, since []string) string {
	if !read.ok {
		return "the files could not be read (" + read.reason + ")"
	}
	for index, token := range read.tokens {
		if index >= len(since) || token != since[index] {
			return paths[index] + " is not as it was"
		}
	}
	return ""
}

func optionalStrings(values []string) []*string {
	pointers := make([]*string, len(values))
	for index := range values {
		pointers[index] = &values[index]
	}
	return pointers
}
