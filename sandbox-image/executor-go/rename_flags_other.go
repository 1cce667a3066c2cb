//go:build !amd64 && !arm64

package main

// Elsewhere renameat2(2) is not used: a replacing move is a plain rename.
const sysRenameat2 = -1
