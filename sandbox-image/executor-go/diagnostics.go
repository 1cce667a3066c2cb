package main

// stdout belongs to the frame protocol; anything human-readable goes to stderr, which the server logs.

import (
	"fmt"
	"os"
)

func logDiagnostic(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "executor[%d]: %s\n", os.Getpid(), fmt.Sprintf(format, args...))
}
