package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestBudgetFrom: the budget is half the memory available, from
// /proc/meminfo or the process's cgroup (v1 or v2, with or without a
// cgroup namespace, the limit on it or an ancestor, its inactive page
// cache counted as available) where that has less available, and the Go
// memory limit where that is lower; nothing known gives no limit.
func TestBudgetFrom(t *testing.T) {
	const meminfo = "MemTotal:       24684084 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n"
	const gib = 1 << 30
	for _, tt := range []struct {
		name    string
		files   map[string]string
		goLimit int64
		want    int64
	}{
		{"nothing known", nil, math.MaxInt64, 0},
		{"meminfo", map[string]string{"proc/meminfo": meminfo}, math.MaxInt64, 20000000 << 10 / 2},
		{"GOMEMLIMIT lower", map[string]string{"proc/meminfo": meminfo}, 2 * gib, 2 * gib},
		{"GOMEMLIMIT higher", map[string]string{"proc/meminfo": meminfo}, 64 * gib, 20000000 << 10 / 2},
		{"GOMEMLIMIT alone", nil, 2 * gib, 2 * gib},
		{"cgroup v2", map[string]string{
			"proc/meminfo":                        meminfo,
			"proc/self/cgroup":                    "0::/job/42\n",
			"sys/fs/cgroup/job/42/memory.max":     "8589934592\n",
			"sys/fs/cgroup/job/42/memory.current": "2147483648\n",
			"sys/fs/cgroup/other/memory.max":      "1024\n",
		}, math.MaxInt64, 3 * gib},
		{"cgroup v2 limit on the job, not the task", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n",
			"sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/memory.max":                        "17179869184\n",
			"sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/memory.current":                    "4294967296\n",
			"sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0/user/task_0/memory.max":     "max\n",
			"sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0/user/task_0/memory.current": "1073741824\n",
		}, math.MaxInt64, 6 * gib},
		{"cgroup v2 without limit", map[string]string{
			"proc/meminfo":                        meminfo,
			"proc/self/cgroup":                    "0::/job/42\n",
			"sys/fs/cgroup/job/42/memory.max":     "max\n",
			"sys/fs/cgroup/job/42/memory.current": "2147483648\n",
		}, math.MaxInt64, 20000000 << 10 / 2},
		{"cgroup v2 in a namespace-less container", map[string]string{
			"proc/meminfo":                 meminfo,
			"proc/self/cgroup":             "0::/kubepods/pod1/c2\n",
			"sys/fs/cgroup/memory.max":     "4294967296\n",
			"sys/fs/cgroup/memory.current": "0\n",
		}, math.MaxInt64, 2 * gib},
		{"cgroup v1", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "5:cpu,cpuacct:/\n4:memory:/slurm/job_7\n0::/\n",
			"sys/fs/cgroup/memory/slurm/job_7/memory.limit_in_bytes": "6442450944\n",
			"sys/fs/cgroup/memory/slurm/job_7/memory.usage_in_bytes": "0\n",
		}, math.MaxInt64, 3 * gib},
		{"cgroup v1 without limit", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": "12357390336\n",
		}, math.MaxInt64, 20000000 << 10 / 2},
		{"cgroup with more memory available than the machine", map[string]string{
			"proc/meminfo":                 meminfo,
			"proc/self/cgroup":             "0::/\n",
			"sys/fs/cgroup/memory.max":     "1099511627776\n",
			"sys/fs/cgroup/memory.current": "0\n",
		}, math.MaxInt64, 20000000 << 10 / 2},
		{"cgroup v2 full of page cache", map[string]string{
			"proc/meminfo":                 meminfo,
			"proc/self/cgroup":             "0::/\n",
			"sys/fs/cgroup/memory.max":     "4294967296\n",
			"sys/fs/cgroup/memory.current": "4294967296\n",
			"sys/fs/cgroup/memory.stat":    "anon 1073741824\nfile 3221225472\nactive_file 1073741824\ninactive_file 2147483648\n",
		}, math.MaxInt64, 1 * gib},
		{"cgroup v1 full of page cache", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "3221225472\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": "3219873792\n",
			"sys/fs/cgroup/memory/memory.stat":           "cache 3171184640\nrss 0\ninactive_file 3170000896\ntotal_cache 3171184640\ntotal_inactive_file 3170000896\n",
		}, math.MaxInt64, (3221225472 - (3219873792 - 3170000896) + 1) / 2},
		{"cgroup full", map[string]string{
			"proc/meminfo":                 meminfo,
			"proc/self/cgroup":             "0::/\n",
			"sys/fs/cgroup/memory.max":     "4294967296\n",
			"sys/fs/cgroup/memory.current": "4294967296\n",
		}, math.MaxInt64, 1}, // one file at a time
	} {
		root := t.TempDir()
		for name, data := range tt.files {
			path := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := budgetFrom(root, tt.goLimit); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
