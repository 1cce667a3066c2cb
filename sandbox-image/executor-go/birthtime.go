package main

// Birth times, as Node reads them: statx(2) with STATX_BTIME (Go 1.19's syscall package has no
// statx). Where the file system records none (overlay, tmpfs on older kernels) the caller falls back
// to the status change time, as the TypeScript executor did (and
// Node's fs.stat does).

import (
	"runtime"
	"syscall"
	"unsafe"
)

// statx's number differs by architecture; the generic table (arm64, riscv64) shares one.
var statxSyscall = map[string]uintptr{"amd64": 332, "386": 383, "arm64": 291, "riscv64": 291, "arm": 397, "ppc64le": 383, "s390x": 379}

const (
	atFdcwd           = -100
	atSymlinkNoFollow = 0x100
	statxBtime        = 0x800
	// Offsets in struct statx (linux/stat.h): stx_mask, then stx_btime's seconds and nanoseconds.
	statxMaskOffset  = 0
	statxBtimeOffset = 80
)

// birthtimeMs: the file's birth time in whole milliseconds, or false where none is known.
func birthtimeMs(path string, follow bool) (int64, bool) {
	number, known := statxSyscall[runtime.GOARCH]
	if !known {
		return 0, false
	}
	name, err := syscall.BytePtrFromString(path)
	if err != nil {
		return 0, false
	}
	flags := 0
	if !follow {
		flags = atSymlinkNoFollow
	}
	var buffer [256]byte
	fd := atFdcwd
	_, _, errno := syscall.Syscall6(number, uintptr(fd), uintptr(unsafe.Pointer(name)), uintptr(flags), statxBtime, uintptr(unsafe.Pointer(&buffer[0])), 0)
	if errno != 0 {
		return 0, false
	}
	mask := *(*uint32)(unsafe.Pointer(&buffer[statxMaskOffset]))
	if mask&statxBtime == 0 {
		return 0, false
	}
	seconds := *(*int64)(unsafe.Pointer(&buffer[statxBtimeOffset]))
	nanoseconds := *(*uint32)(unsafe.Pointer(&buffer[statxBtimeOffset+8]))
	milliseconds := seconds*1000 + int64(nanoseconds)/1_000_000
	return milliseconds, milliseconds > 0
}
