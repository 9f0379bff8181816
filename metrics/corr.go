package metrics

import (
	"iter"
	"math/bits"
	"slices"

	"github.com/traceql/traceql/trace"
)

// corrKey identifies a correlation id: ids are unique per process or per
// trace, as the trace says (trace.Meta.CorrelationPerProcess).
type corrKey struct{ pid, corr int64 }

// keyOf returns the correlation key of a record of process pid.
func keyOf(t *trace.Trace, pid, corr int64) corrKey {
	if t.Meta.CorrelationPerProcess {
		return corrKey{pid, corr}
	}
	return corrKey{0, corr}
}

// A corrTable maps correlation keys to values. CUPTI numbers correlation
// ids upward from 1 in each process, so a process's ids are nearly dense:
// a trace records an API call for a few of the ids CUPTI hands out, not
// all. Each key has a slot in vals, fixed when the table is made. A dense
// process finds a key's slot through a bitmap of its ids: a set bit is a
// key, and the keys below it (a count kept a word at a time, plus the
// word's bits below it) are its slot. That is under two bits an id, where
// a slice of slots indexed by id takes 32; and the lookups a summary
// makes, many and in nearly increasing id order, find a bitmap faster
// than a hash map (BenchmarkSummarize tells whether it still pays).
//
// A process whose ids are too sparse for the bitmap (a trace of a few
// launches among many unrecorded ids, repeated) keeps its ids sorted, a
// key's slot its place there, found through an index of buckets: the ids'
// span cut into as many equal buckets as there are keys (a power of two),
// each bucket the place of its first key. A lookup searches one bucket,
// of about one key where ids are spread evenly and by binary search where
// they are not, near the last lookup's in memory where ids come in nearly
// increasing order, as a hash map's do not.
//
// The keys are fixed when the table is made; lookups may run concurrently.
type corrTable[V any] struct {
	procs map[int64]*corrProc[V]
	one   *corrProc[V] // the only process, when there is one
}

type corrProc[V any] struct {
	pid  int64
	base int64 // the smallest id
	// Dense: bit id − base is set for each key, and below[w] counts
	// the keys in ids[:w].
	ids   []uint64
	below []int32
	// Sparse (ids is nil): the ids, sorted and distinct, and the place
	// in sorted of the first id of each bucket of 1<<shift ids from base,
	// and after the last, len(sorted).
	sorted  []int64
	buckets []int32
	shift   uint
	put     []uint64 // bit slot is set once the slot's key is put
	vals    []V      // by slot
}

// denseIDs is how many ids a process may span per key before its keys are
// sorted instead: at 256, the bitmap and its counts take 48 bytes a key,
// the sorted ids and their buckets 12 to 16.
const denseIDs = 256

// newCorrTable makes a table for the given keys, which it walks twice.
func newCorrTable[V any](keys iter.Seq[corrKey]) *corrTable[V] {
	type idRange struct{ lo, hi, n int64 }
	ranges := map[int64]*idRange{}
	var r *idRange
	var last int64
	for k := range keys {
		if r == nil || k.pid != last {
			if r = ranges[k.pid]; r == nil {
				r = &idRange{lo: k.corr, hi: k.corr}
				ranges[k.pid] = r
			}
			last = k.pid
		}
		r.lo, r.hi, r.n = min(r.lo, k.corr), max(r.hi, k.corr), r.n+1
	}
	c := &corrTable[V]{procs: make(map[int64]*corrProc[V], len(ranges))}
	for pid, r := range ranges {
		p := &corrProc[V]{pid: pid, base: r.lo}
		// (The span is computed unsigned: it may not fit an int64.)
		if span := uint64(r.hi) - uint64(r.lo); span < uint64(denseIDs*r.n+1024) {
			p.ids = make([]uint64, span/64+1)
		} else {
			p.sorted = make([]int64, 0, r.n)
		}
		c.procs[pid] = p
		c.one = p
	}
	if len(c.procs) != 1 {
		c.one = nil
	}
	var p *corrProc[V]
	for k := range keys {
		if p == nil || p.pid != k.pid {
			p = c.procs[k.pid]
		}
		if p.ids != nil {
			i := uint64(k.corr) - uint64(p.base)
			p.ids[i/64] |= 1 << (i % 64)
		} else {
			p.sorted = append(p.sorted, k.corr)
		}
	}
	for _, p := range c.procs {
		var n int
		if p.ids != nil {
			p.below = make([]int32, len(p.ids))
			for w, b := range p.ids {
				p.below[w] = int32(n)
				n += bits.OnesCount64(b)
			}
		} else {
			p.index()
			n = len(p.sorted)
		}
		p.put = make([]uint64, (n+63)/64)
		p.vals = make([]V, n)
	}
	return c
}

// index sorts p's sparse ids, drops repeats, and makes their buckets.
func (p *corrProc[V]) index() {
	if !slices.IsSorted(p.sorted) {
		slices.Sort(p.sorted)
	}
	p.sorted = slices.Clip(slices.Compact(p.sorted))
	n := len(p.sorted)
	// nb = 1<<lg buckets, a power of two ≥ n, and the smallest shift that
	// puts the largest id in a bucket below nb.
	lg := bits.Len(uint(n - 1))
	nb := 1 << lg
	p.shift = uint(max(bits.Len64(uint64(p.sorted[n-1])-uint64(p.base))-lg, 0))
	p.buckets = make([]int32, nb+1)
	b := 0
	for i, id := range p.sorted {
		for hi := int((uint64(id) - uint64(p.base)) >> p.shift); b <= hi; b++ {
			p.buckets[b] = int32(i)
		}
	}
	for ; b <= nb; b++ {
		p.buckets[b] = int32(n)
	}
}

func (c *corrTable[V]) proc(pid int64) *corrProc[V] {
	if c.one != nil && c.one.pid == pid {
		return c.one
	}
	return c.procs[pid]
}

// slot returns the slot of id corr, or false when it is not one of p's keys.
func (p *corrProc[V]) slot(corr int64) (int, bool) {
	// Unsigned: ids below base wrap around to large indices.
	i := uint64(corr) - uint64(p.base)
	if p.ids == nil {
		b := i >> p.shift
		if b >= uint64(len(p.buckets)-1) {
			return 0, false
		}
		lo, hi := int(p.buckets[b]), int(p.buckets[b+1])
		if hi-lo > 8 { // where ids cluster
			s, ok := slices.BinarySearch(p.sorted[lo:hi], corr)
			return lo + s, ok
		}
		for ; lo < hi; lo++ {
			if p.sorted[lo] == corr {
				return lo, true
			}
		}
		return 0, false
	}
	if i >= uint64(len(p.ids))*64 {
		return 0, false
	}
	w, bit := i/64, uint64(1)<<(i%64)
	if p.ids[w]&bit == 0 {
		return 0, false
	}
	return int(p.below[w]) + bits.OnesCount64(p.ids[w]&(bit-1)), true
}

// put returns the value of k, one of the table's keys, and whether k was
// put before.
func (c *corrTable[V]) put(k corrKey) (v *V, existed bool) {
	p := c.proc(k.pid)
	s, ok := p.slot(k.corr)
	if !ok {
		panic("corrTable.put: not one of the table's keys")
	}
	w, bit := s/64, uint64(1)<<(s%64)
	existed = p.put[w]&bit != 0
	p.put[w] |= bit
	return &p.vals[s], existed
}

// get returns the value of k, or nil when k was not put.
func (c *corrTable[V]) get(k corrKey) *V {
	p := c.proc(k.pid)
	if p == nil {
		return nil
	}
	if s, ok := p.slot(k.corr); ok && p.put[s/64]&(1<<(s%64)) != 0 {
		return &p.vals[s]
	}
	return nil
}
