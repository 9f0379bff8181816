package metrics

import "strings"

// IsCommKernel reports whether a kernel is collective communication: the
// kernels of NCCL, and of RCCL, which keeps its names
// (ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_Generic, …),
// carry "nccl" in their names, in any case. (HTA classes kernels the same
// way.)
func IsCommKernel(name string) bool {
	for i := 0; i+4 <= len(name); i++ {
		if c := name[i]; (c == 'n' || c == 'N') && strings.EqualFold(name[i:i+4], "nccl") {
			return true
		}
	}
	return false
}

// A CommStat splits a device's kernel time into communication and
// computation, and says how much of the communication the computation
// hides.
type CommStat struct {
	Kernels   int     // communication kernels (IsCommKernel)
	NS        int64   // length of the union of their intervals
	ComputeNS int64   // length of the union of the other kernels' intervals
	OverlapNS int64   // time in both unions: communication and computation at once
	Overlap   float64 // OverlapNS / NS; 0 without communication
}

// commStat computes a CommStat from the count of communication kernels
// and the unions of the intervals of both kinds.
func commStat(kernels int, comm, compute []Interval) CommStat {
	s := CommStat{Kernels: kernels, NS: Length(comm), ComputeNS: Length(compute), OverlapNS: overlapLength(comm, compute)}
	if s.NS > 0 {
		s.Overlap = float64(s.OverlapNS) / float64(s.NS)
	}
	return s
}
