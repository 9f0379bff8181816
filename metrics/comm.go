package metrics

import "strings"

// commPatterns are the words that make a kernel communication, lower case
// and without separators: NCCL's and RCCL's kernels (ncclDevKernel_…,
// which RCCL keeps, and rccl…), collectives by name in any spelling
// (all_reduce, AllReduce, all-reduce), PyTorch symmetric memory
// (c10d::symmetric_memory::multimem_all_reduce_kernel, symm_mem) and
// vLLM's custom all-reduce (cross_device_reduce_1stage).
var commPatterns = []string{"nccl", "rccl", "allreduce", "allgather", "reducescatter", "alltoall", "sendrecv",
	"multimem", "crossdevicereduce", "symmetricmemory", "symmmem"}

// IsCommKernel reports whether a kernel is communication: its name, lower
// case and with '_', '-' and spaces taken out, holds one of commPatterns.
// (Summaries ask it once per kernel name.)
func IsCommKernel(name string) bool {
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' || c == '-' || c == ' ':
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	folded := string(b)
	for _, p := range commPatterns {
		if strings.Contains(folded, p) {
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
