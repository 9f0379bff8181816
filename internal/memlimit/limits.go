package memlimit

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// SupervisedEnv marks the process that a supervisor started, which runs
// the command itself; TerminalEnv tells it that its stderr, a pipe, is
// copied to a terminal, where a progress bar is wanted.
const (
	SupervisedEnv = "TRACEQL_SUPERVISED=1"
	TerminalEnv   = "TRACEQL_STDERR_TERMINAL=1"
	SupervisorEnv = "TRACEQL_SUPERVISOR=" // and the supervisor's process id
)

// Limits are the limits a run must fit in, 0 where none is set: the
// address-space limit (ulimit -v, prlimit --as), with the address space
// the process already takes, and the memory limit of its cgroup.
type Limits struct {
	as, asUsed int64
	cgroup     int64
}

// Current reads the process's limits.
func Current() Limits {
	as, used := addressSpace()
	return Limits{as: as, asUsed: used, cgroup: cgroupLimit("/")}
}

func (l Limits) any() bool { return l.as > 0 || l.cgroup > 0 }

// asAvailable is the address space left under the limit; 0 when unlimited.
func (l Limits) asAvailable() int64 {
	if l.as == 0 {
		return 0
	}
	return max(l.as-l.asUsed, 1)
}

// threadCost is the address space an OS thread of the Go runtime takes
// under cgo: a pthread stack as large as ulimit -s (8 MiB by default)
// and, unless MALLOC_ARENA_MAX keeps it from, a 64 MiB glibc malloc arena,
// with the parsers' buffers it works on: what one more GOMAXPROCS costs.
const threadCost = 128 << 20

// Fit makes the Go runtime live within the limits, unless GOMEMLIMIT and
// GOMAXPROCS (given as goLimitSet and procsSet) say otherwise: the heap
// is kept to half the address space left (freed heap stays mapped), or to
// nine tenths of the cgroup's available memory, so that the collector
// works harder before the limit rather than the run dying at it; and under
// an address-space limit, no more threads run Go code than the address
// space left holds.
// The memory budget of readEach follows the Go memory limit, so fewer
// files are read at once.
func (l Limits) Fit(goLimitSet, procsSet bool) {
	var heap int64 = math.MaxInt64
	if as := l.asAvailable(); as > 0 {
		heap = as / 2
		if !procsSet {
			runtime.GOMAXPROCS(int(min(max(as/threadCost, 1), int64(runtime.GOMAXPROCS(0)))))
		}
	}
	if c := cgroupAvailable("/"); c > 0 {
		heap = min(heap, c/10*9)
	}
	if heap != math.MaxInt64 && !goLimitSet {
		debug.SetMemoryLimit(heap)
	}
}

// outOfMemory says which limit a run that ran out of memory hit, and what
// to do about it.
func (l Limits) outOfMemory(killed bool) string {
	what := "out of memory"
	var limit string
	switch {
	case killed && l.cgroup > 0, l.as == 0:
		what = "killed for running out of memory"
		limit = fmt.Sprintf("the cgroup memory limit of %s (memory.max of the job or container)", sizeIEC(l.cgroup))
	default:
		limit = fmt.Sprintf("the address-space limit of %s (ulimit -v %d)", sizeIEC(l.as), l.as>>10)
	}
	return fmt.Sprintf("%s under %s: read one file at a time (--jobs 1), measure a smaller part (--window, --steps), or raise the limit", what, limit)
}

// sizeIEC writes n bytes in MiB or GiB, as ulimit and cgroups count.
func sizeIEC(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// A GCHold holds the garbage collector off while the readers make and
// write a table of many megabytes (trace.Options.HoldGC): a collection
// started by the allocation would scan the fresh table on the other cores
// while it is written, and its pages would fault twice. The collector's
// setting is process-wide, so the command decides, with one GCHold for
// the files it reads at once: the last hold to be released restores the
// percentage the first one found. Setting the percentage to -1 waits for
// a collection under way to finish its marking.
type GCHold struct {
	mu      sync.Mutex
	n       int
	percent int
}

// Hold is trace.Options.HoldGC.
func (h *GCHold) Hold() (release func()) {
	h.mu.Lock()
	if h.n == 0 {
		h.percent = debug.SetGCPercent(-1)
	}
	h.n++
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		h.n--
		if h.n == 0 {
			debug.SetGCPercent(h.percent)
		}
		h.mu.Unlock()
	}
}
