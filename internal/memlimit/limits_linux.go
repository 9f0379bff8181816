package memlimit

import (
	"syscall"
)

// addressSpace returns the soft address-space limit (RLIMIT_AS), 0 when
// there is none, and the address space the process takes now (VmSize),
// most of it what the Go runtime reserved as it started.
func addressSpace() (limit, used int64) {
	var r syscall.Rlimit
	// RLIM_INFINITY is all ones.
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= 1<<62 {
		return 0, 0
	}
	kb, _ := field("/proc/self/status", "VmSize:")
	return int64(r.Cur), kb << 10
}
