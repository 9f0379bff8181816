//go:build !linux

package memlimit

// addressSpace reports no address-space limit outside Linux.
func addressSpace() (limit, used int64) { return 0, 0 }
