package main

// How the executor reads its container's CPU quota (cpu_quota.go), from cgroup files written in a
// temporary folder as cgroup v1 and v2 show them. That a real container shows them there is checked
// against the engine in test/docker/executor-cpu-quota.test.ts.

import (
	"os"
	"path/filepath"
	"testing"
)

func writeCgroupFile(t *testing.T, root, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestQuotaCores(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		cores int
		ok    bool
	}{
		{"v2, one core", map[string]string{"cpu.max": "100000 100000\n"}, 1, true},
		{"v2, 1.5 cores round down", map[string]string{"cpu.max": "150000 100000\n"}, 1, true},
		{"v2, 3 cores", map[string]string{"cpu.max": "300000 100000\n"}, 3, true},
		{"v2, half a core is still one", map[string]string{"cpu.max": "50000 100000\n"}, 1, true},
		{"v2, no quota", map[string]string{"cpu.max": "max 100000\n"}, 0, false},
		{"v2 wins over v1", map[string]string{"cpu.max": "max 100000\n", "cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 0, false},
		{"v1, one core", map[string]string{"cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1, true},
		{"v1, 2.5 cores", map[string]string{"cpu/cpu.cfs_quota_us": "250000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 2, true},
		{"v1, no quota", map[string]string{"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, 0, false},
		{"v1, period missing", map[string]string{"cpu/cpu.cfs_quota_us": "100000\n"}, 0, false},
		{"garbage", map[string]string{"cpu.max": "lots\n"}, 0, false},
		{"nothing mounted", map[string]string{}, 0, false},
	}
	for _, c := range cases {
		root := t.TempDir()
		for name, content := range c.files {
			writeCgroupFile(t, root, name, content)
		}
		cores, ok := quotaCores(root)
		if cores != c.cores || ok != c.ok {
			t.Errorf("%s: got %d, %v; want %d, %v", c.name, cores, ok, c.cores, c.ok)
		}
	}
}
