package main

// readFiles: several small files read one after another, each exactly as readFile
// reads it, each answered with a token that stands for the whole read. A caller that keeps what it
// read last gives those tokens back, and a file that reads the same is answered "unchanged" without its
// content. The token is a hash of what was read, not of the file's metadata, which can stay the same
// while the content changes. The token's recipe is the TypeScript executor's, so tokens stay valid
// across an upgrade from it.

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

func readFiles(paths []string, maxBytes int64, since []*string) (*ReadFilesResult, []byte) {
	files := make([]any, 0, len(paths))
	var body []byte
	for index, path := range paths {
		var previous *string
		if index < len(since) {
			previous = since[index]
		}
		entry, content := readOne(path, maxBytes, previous)
		files = append(files, entry)
		body = append(body, content...)
	}
	if body == nil {
		body = []byte{}
	}
	return &ReadFilesResult{Op: "readFiles", Files: files}, body
}

func readOne(path string, maxBytes int64, since *string) (any, []byte) {
	head, err := readFileHead(path, maxBytes)
	if err != nil {
		// The same code and message readFile would answer with.
		failure := &FileOpError{Code: "EIO", Message: "readFile: " + err.Error()}
		errors.As(err, &failure)
		token := tokenOf([]any{maxBytes, "failed", failure.Code, failure.Message}, nil)
		return ReadFilesFailedEntry{Status: "failed", Token: token, Code: failure.Code, Message: failure.Message}, nil
	}
	token := tokenOf([]any{maxBytes, "found", head.size, head.truncated, head.realPath, head.readOnlyMount}, head.content)
	unchanged := since != nil && *since == token
	var sent []byte
	if !unchanged && !head.truncated {
		sent = head.content
	}
	return ReadFilesFoundEntry{
		Status: "found", Token: token, Unchanged: unchanged, Size: head.size, Truncated: head.truncated,
		RealPath: head.realPath, ReadOnlyMount: head.readOnlyMount, Bytes: int64(len(sent)),
	}, sent
}

// tokenOf: sha256 of JSON.stringify(facts), a newline and the content, in base64url without padding.
func tokenOf(facts []any, content []byte) string {
	hash := sha256.New()
	hash.Write(encodeHeader(facts))
	hash.Write([]byte("\n"))
	hash.Write(content)
	return base64.RawURLEncoding.EncodeToString(hash.Sum(nil))
}
