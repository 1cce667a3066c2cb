// Python one-liners the conformance suites run wherever the commands run (host or sandbox), to
// observe processes without depending on procps.

/** Prints the pids among its arguments that are still running (zombies count as gone). */
export const PRINT_LIVE_PIDS = `
import sys
def alive(pid):
    try:
        stat = open("/proc/%s/stat" % pid).read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"
print(" ".join(pid for pid in sys.argv[1:] if alive(pid)))
`;
