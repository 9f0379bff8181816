package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// Budget is how much memory the files read at once may be estimated
// to take (trace.Footprint): half of what the system has available, or of
// what the process's cgroup has available where that is less, and no more
// than the Go memory limit (GOMEMLIMIT) when one is set. It is 0, no
// limit, where none of them is known (outside Linux).
func Budget() int64 {
	return budgetFrom("/", debug.SetMemoryLimit(-1))
}

// budgetFrom is Budget reading /proc and /sys under root, with the
// Go memory limit goLimit (math.MaxInt64 when unset).
func budgetFrom(root string, goLimit int64) int64 {
	avail := memAvailable(root)
	if c := cgroupAvailable(root); c > 0 && (avail == 0 || c < avail) {
		avail = c
	}
	budget := (avail + 1) / 2 // 1 byte left still limits: to one file at a time
	if goLimit != math.MaxInt64 && (budget == 0 || goLimit < budget) {
		budget = goLimit
	}
	return budget
}

// memAvailable reads MemAvailable from /proc/meminfo: the memory that can
// be had without swapping. 0 when unknown.
func memAvailable(root string) int64 {
	kb, ok := field(filepath.Join(root, "proc/meminfo"), "MemAvailable:")
	if !ok || kb < 0 {
		return 0
	}
	return kb << 10
}

// field reads the number after key in a file of "key number [unit]" lines
// (/proc/meminfo, a cgroup's memory.stat).
func field(path, key string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			n, err := strconv.ParseInt(f[1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// cgroupAvailable is the memory available to the process's memory cgroup,
// what it may still take, where containers and batch schedulers limit a
// job below what /proc/meminfo shows: the least available of the cgroup
// and its ancestors, as Slurm sets a job's limit on a cgroup above its
// tasks'. 0 when there is no limit or it is unknown.
func cgroupAvailable(root string) int64 {
	return cgroupLeast(root, cgroupFiles.available)
}

// cgroupLimit is the least memory limit of the process's cgroup and its
// ancestors, for naming it when the limit is hit. 0 when there is none.
func cgroupLimit(root string) int64 {
	return cgroupLeast(root, cgroupFiles.limitOf)
}

// cgroupLeast is the least positive value of measure over the process's
// memory cgroup and its ancestors. 0 when none has one.
func cgroupLeast(root string, measure func(cgroupFiles, string) int64) int64 {
	b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		// hierarchy-ID:controllers:path
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		var mount string
		var files cgroupFiles
		switch {
		case f[0] == "0" && f[1] == "":
			mount, files = "sys/fs/cgroup", cgroupV2
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			mount, files = "sys/fs/cgroup/memory", cgroupV1
		default:
			continue
		}
		// Up to the mount point, which is also where a container without a
		// cgroup namespace sees its own cgroup, not at the path the host
		// knows it by.
		top := filepath.Join(root, mount)
		var least int64
		for dir := filepath.Join(top, f[2]); strings.HasPrefix(dir, top); dir = filepath.Dir(dir) {
			if v := measure(files, dir); v > 0 && (least == 0 || v < least) {
				least = v
			}
			if dir == top {
				break
			}
		}
		if least > 0 {
			return least
		}
	}
	return 0
}

// readInt reads a file holding one integer; -1 when it cannot.
func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// limitOf is the memory limit of the cgroup in dir, 0 when it has none
// or it cannot be read.
func (c cgroupFiles) limitOf(dir string) int64 {
	limit := readInt(filepath.Join(dir, c.limit))
	if limit <= 0 || limit >= 1<<62 {
		return 0
	}
	return limit
}

// cgroupFiles name a memory cgroup's files: its limit, its usage, and the
// key in memory.stat of the inactive page cache that its usage counts.
type cgroupFiles struct{ limit, usage, inactive string }

var (
	cgroupV2 = cgroupFiles{"memory.max", "memory.current", "inactive_file"}
	cgroupV1 = cgroupFiles{"memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"}
)

// available is the memory the cgroup in dir may still take: its limit
// less its working set, the usage without the inactive page cache, which
// the kernel reclaims before it runs out (a job that wrote a 3 GB file
// into a 3 GiB cgroup used all of it, nearly all cache). 0 when it has no
// limit ("max" in v2, 2^63 rounded down to a page in v1) or the files
// cannot be read.
func (c cgroupFiles) available(dir string) int64 {
	limit, usage := c.limitOf(dir), readInt(filepath.Join(dir, c.usage))
	if limit == 0 {
		return 0
	}
	inactive, _ := field(filepath.Join(dir, "memory.stat"), c.inactive)
	return max(limit-max(usage-inactive, 0), 1)
}
