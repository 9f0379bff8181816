package metrics

// commPatterns are the words that make a kernel communication, lower case
// and without separators: NCCL's and RCCL's kernels (ncclDevKernel_…,
// which RCCL keeps, and rccl…), collectives by name in any spelling
// (all_reduce, AllReduce, all-reduce), PyTorch symmetric memory
// (c10d::symmetric_memory::multimem_all_reduce_kernel, symm_mem) and
// vLLM's custom all-reduce (cross_device_reduce_1stage).
var commPatterns = []string{"nccl", "rccl", "allreduce", "allgather", "reducescatter", "alltoall", "sendrecv",
	"multimem", "crossdevicereduce", "symmetricmemory", "symmmem"}

// commByFirst holds commPatterns by their first byte, for isCommKernel's
// one pass.
var commByFirst = func() (t [256][]string) {
	for _, p := range commPatterns {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// isCommKernel reports whether a kernel is communication: its name, lower
// case and with '_', '-' and spaces taken out, holds one of commPatterns.
// Summaries ask it once per kernel name, and C++ names run to hundreds of
// bytes: one pass tries only the patterns that begin with the letter at
// hand, and only when the next byte does not rule them out.
func isCommKernel(name string) bool {
	for i := 0; i+1 < len(name); i++ {
		// c|0x20 lowers a letter; no other byte maps to a letter.
		ps := commByFirst[name[i]|0x20]
		if len(ps) == 0 {
			continue
		}
		next := name[i+1] | 0x20
		for _, p := range ps {
			if (next == p[1] || isCommSeparator(name[i+1])) && foldedHasPrefix(name[i:], p) {
				return true
			}
		}
	}
	return false
}

func isCommSeparator(c byte) bool { return c == '_' || c == '-' || c == ' ' }

// foldedHasPrefix reports whether s begins with p, a lower-case pattern,
// once s is lowered and its separators are taken out.
func foldedHasPrefix(s, p string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(p); i++ {
		c := s[i]
		switch {
		case isCommSeparator(c):
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if c != p[j] {
			return false
		}
		j++
	}
	return j == len(p)
}

// A CommStat splits a device's kernel time into communication and
// computation, and says how much of the communication the computation
// hides.
type CommStat struct {
	Kernels   int     // communication kernels (isCommKernel)
	NS        int64   // length of the union of their intervals
	ComputeNS int64   // length of the union of the other kernels' intervals
	OverlapNS int64   // time in both unions: communication and computation at once
	Overlap   float64 // OverlapNS / NS; 0 without communication
}

// commStat computes a CommStat from the count of communication kernels
// and the unions of the intervals of both kinds.
func commStat(kernels int, comm, compute []Interval) CommStat {
	s := CommStat{Kernels: kernels, NS: length(comm), ComputeNS: length(compute), OverlapNS: overlapLength(comm, compute)}
	if s.NS > 0 {
		s.Overlap = float64(s.OverlapNS) / float64(s.NS)
	}
	return s
}
