package main

// The Go runtime sizes its scheduler by the machine's cores (GOMAXPROCS), not by the container's CPU
// limit (EMULATOR_SANDBOX_CPUS, 1 core by default): in a 1-core sandbox on a 2-core machine the
// executor, its file worker and the keep-alive each ran 2 schedulers that spun looking for work against
// a quota of one, and the sandbox's CPU per tool call grew with the number of busy sandboxes
// (docs/benchmarks.md#throughput-under-concurrency). So each process sizes GOMAXPROCS by the quota of
// its cgroup, rounded down, at least 1, never above the cores; a GOMAXPROCS in its environment wins.

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// cgroupQuotaFiles are where a container sees its CPU quota: cgroup v2's cpu.max ("150000 100000", or
// "max 100000" for none), then v1's pair of files under the cpu controller.
var cgroupQuotaFiles = struct{ v2, v1Quota, v1Period string }{
	v2:       "cpu.max",
	v1Quota:  "cpu/cpu.cfs_quota_us",
	v1Period: "cpu/cpu.cfs_period_us",
}

// quotaCores is the CPU quota of the cgroup mounted at root, in whole cores rounded down (at least 1),
// and false when there is none or it cannot be read.
func quotaCores(root string) (int, bool) {
	if text, err := os.ReadFile(filepath.Join(root, cgroupQuotaFiles.v2)); err == nil {
		fields := strings.Fields(string(text))
		if len(fields) != 2 || fields[0] == "max" {
			return 0, false
		}
		return coresOf(fields[0], fields[1])
	}
	quota, errQuota := os.ReadFile(filepath.Join(root, cgroupQuotaFiles.v1Quota))
	period, errPeriod := os.ReadFile(filepath.Join(root, cgroupQuotaFiles.v1Period))
	if errQuota != nil || errPeriod != nil {
		return 0, false
	}
	return coresOf(strings.TrimSpace(string(quota)), strings.TrimSpace(string(period)))
}

func coresOf(quotaText, periodText string) (int, bool) {
	quota, errQuota := strconv.ParseInt(quotaText, 10, 64)
	period, errPeriod := strconv.ParseInt(periodText, 10, 64)
	if errQuota != nil || errPeriod != nil || quota <= 0 || period <= 0 {
		return 0, false
	}
	if cores := quota / period; cores > 1 {
		return int(cores), true
	}
	return 1, true
}

// fitSchedulerToQuota sets GOMAXPROCS to the cgroup's quota when it is below the cores the runtime saw.
func fitSchedulerToQuota() {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	if cores, ok := quotaCores("/sys/fs/cgroup"); ok && cores < runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(cores)
	}
}
