package main

// The files an exec reads around its command: the server's hooks.json candidates, read
// as the sandbox user exactly as a readFiles request would read them, without a round trip of their
// own. Before: the command starts only if every file reads as the server last saw it. After: the files
// as they are once the command ended, for the post hooks.

import (
	"encoding/json"
	"fmt"
)

type filesRead struct {
	ok     bool
	files  []json.RawMessage
	tokens []string
	body   []byte
	reason string
}

// readForExec reads through the file worker when there is one (it acts as the sandbox user), else here.
func readForExec(paths []string, maxBytes int64, since []*string, worker *FileWorkerLink) filesRead {
	var header, body []byte
	if worker != nil {
		header, body = worker.ask(map[string]any{"op": "readFiles", "paths": paths, "maxBytes": maxBytes, "since": since})
	} else {
		result, content := readFiles(paths, maxBytes, since)
		header, body = encodeHeader(ResultMessage{Type: "result", Result: result}), content
	}
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
	read := filesRead{ok: true, files: answer.Result.Files, body: body}
	for _, file := range answer.Result.Files {
		var entry struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(file, &entry)
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
