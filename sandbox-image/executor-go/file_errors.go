package main

// Failures of file requests: an errno-style code and a message naming the request and the path the
// caller gave, worded as Node's fs words them, as the TypeScript executor did (the server maps the
// codes to API errors, and the conformance tests compare the messages).

import (
	"errors"
	"syscall"
)

// FileOpError is a failed file request.
type FileOpError struct {
	Code    string
	Message string
}

func (failure *FileOpError) Error() string { return failure.Message }

var errnoCodes = map[syscall.Errno]string{
	syscall.ENOENT: "ENOENT", syscall.EISDIR: "EISDIR", syscall.ENOTDIR: "ENOTDIR", syscall.EACCES: "EACCES",
	syscall.EPERM: "EPERM", syscall.EEXIST: "EEXIST", syscall.ENOTEMPTY: "ENOTEMPTY", syscall.ENOSPC: "ENOSPC",
	syscall.EDQUOT: "EDQUOT", syscall.EROFS: "EROFS", syscall.ELOOP: "ELOOP", syscall.ENAMETOOLONG: "ENAMETOOLONG",
	syscall.EFBIG: "EFBIG", syscall.EBUSY: "EBUSY", syscall.EXDEV: "EXDEV", syscall.EINVAL: "EINVAL", syscall.EIO: "EIO",
	syscall.EAGAIN: "EAGAIN", syscall.EMFILE: "EMFILE", syscall.ENFILE: "ENFILE", syscall.ETXTBSY: "ETXTBSY",
	syscall.EADDRINUSE: "EADDRINUSE", syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL", syscall.EALREADY: "EALREADY",
	syscall.ECONNRESET: "ECONNRESET", syscall.EPIPE: "EPIPE", syscall.ENXIO: "ENXIO", syscall.ENODEV: "ENODEV",
}

var reasons = map[string]string{
	"ENOENT": "no such file or directory", "EISDIR": "is a directory", "ENOTDIR": "not a directory",
	"EACCES": "permission denied", "EPERM": "operation not permitted", "EEXIST": "file exists",
	"ENOTEMPTY": "directory not empty", "ENOSPC": "no space left on device", "EDQUOT": "disk quota exceeded",
	"EROFS": "read-only file system", "ELOOP": "too many levels of symbolic links",
	"ENAMETOOLONG": "file name too long", "EFBIG": "file too large", "EBUSY": "resource busy",
	"EXDEV": "on another file system",
}

// errnoOf: the errno behind a Go error, 0 when there is none.
func errnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return 0
}

func codeOf(err error) string {
	if code, ok := errnoCodes[errnoOf(err)]; ok {
		return code
	}
	return "EIO"
}

// failedFor turns err into the FileOpError a request `op` on `path` answers with.
func failedFor(op, path string, err error) *FileOpError {
	var failure *FileOpError
	if errors.As(err, &failure) {
		return failure
	}
	code := codeOf(err)
	reason, known := reasons[code]
	if !known {
		if errno := errnoOf(err); errno != 0 {
			reason = errno.Error()
		} else {
			reason = err.Error()
		}
	}
	return &FileOpError{Code: code, Message: op + " " + path + ": " + reason}
}
