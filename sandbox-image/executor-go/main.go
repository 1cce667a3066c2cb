// The sandbox's executor: runs inside a sandbox container and speaks the frame protocol of
// sandbox-image/executor/protocol.ts on stdin/stdout (executor.go). One static binary with no runtime
// of its own, so any Linux image with a shell can be a sandbox.
//
// In a sandbox it runs as root with only CAP_SETUID and CAP_SETGID, given the identities to act as
// (identities.go): commands start as the user their request names, file operations go to a file worker
// acting as the sandbox user (this same binary, started with --file-worker), and nothing the sandbox
// user runs can signal, trace or stop either process. Started with --hold-port, it is the container's
// keep-alive instead, holding the egress port for the executors to come (egress_port_holder.go).
package main

import "os"

// exitRefused is EX_CONFIG: the executor refuses to start rather than run sandbox code as itself.
const exitRefused = 78

func main() {
	fitSchedulerToQuota()
	parsed, err := parseExecutorArguments(os.Args[1:])
	if err == nil {
		err = checkRulesImplemented()
	}
	if err == nil && len(parsed.Identities) > 0 {
		if problem := whyIdentitiesCannotBeUsed(); problem != "" {
			err = errorText("identities were given, but " + problem)
		}
	}
	if err != nil {
		// Refusing to start is the only safe answer: running sandbox code as ourselves would undo the separation.
		logDiagnostic("cannot start: %v", err)
		os.Exit(exitRefused)
	}
	if parsed.HoldPort != "" {
		holdPort(parsed.HoldPort, parsed.ChannelPort)
		return
	}
	if parsed.FileWorkerFor != "" {
		runFileWorker(parsed.Identities[parsed.FileWorkerFor])
		return
	}
	runExecutor(parsed.Identities, parsed.DiskLimitMb)
}

type errorText string

func (text errorText) Error() string { return string(text) }
