package metrics

import (
	"iter"

	"github.com/traceql/traceql/internal/pages"
	"github.com/traceql/traceql/trace"
)

// corrKey identifies a correlation id: ids are unique per process in Nsight
// exports and per trace in Kineto ones (whose device records carry no pid).
type corrKey struct{ pid, corr int64 }

// keyOf returns the correlation key of a record of process pid.
func keyOf(t *trace.Trace, pid, corr int64) corrKey {
	if t.Meta.Format == trace.Nsys {
		return corrKey{pid, corr}
	}
	return corrKey{0, corr}
}

// A corrTable maps correlation keys to values. CUPTI numbers correlation
// ids upward from 1 in each process, so a process's ids are nearly dense:
// a trace records one API call in 3 to 6 of the ids CUPTI hands out (the
// real traces in ../shared). A process's values are found through a slice
// indexed by id, which on the hundreds of thousands of lookups a summary
// makes is several times faster than a hash map (lookups come in nearly
// increasing id order and stay in cache). A process whose ids are too
// sparse for that slice gets a map.
//
// The keys are fixed when the table is made; lookups may run concurrently.
type corrTable[V any] struct {
	procs map[int64]*corrProc[V]
	one   *corrProc[V] // the only process, when there is one
}

type corrProc[V any] struct {
	pid    int64
	base   int64           // the smallest id
	index  []int32         // id − base → 1 + index in vals, 0 when not put; nil when sparse
	sparse map[int64]int32 // id → index in vals, when not dense
	vals   []V             // in the order put; never grows past its capacity
}

// denseSlots is how many index slots a process may have per id before its
// ids are looked up in a map instead: 16 slots of 4 bytes are about what a
// map entry costs.
const denseSlots = 16

// newCorrTable makes an empty table for the given keys.
func newCorrTable[V any](keys iter.Seq[corrKey]) *corrTable[V] {
	type idRange struct{ lo, hi, n int64 }
	ranges := map[int64]*idRange{}
	for k := range keys {
		r := ranges[k.pid]
		if r == nil {
			r = &idRange{lo: k.corr, hi: k.corr}
			ranges[k.pid] = r
		}
		r.lo, r.hi, r.n = min(r.lo, k.corr), max(r.hi, k.corr), r.n+1
	}
	c := &corrTable[V]{procs: make(map[int64]*corrProc[V], len(ranges))}
	for pid, r := range ranges {
		// vals holds every key: put's pointers stay valid.
		p := &corrProc[V]{pid: pid, base: r.lo, vals: make([]V, 0, r.n)}
		// (The span is computed unsigned: it may not fit an int64.)
		if span := uint64(r.hi) - uint64(r.lo); span < uint64(denseSlots*r.n+1024) {
			// put reads a slot before writing it: see package pages.
			p.index = pages.Make[int32](int(span+1), int(span+1))
		} else {
			p.sparse = make(map[int64]int32, r.n)
		}
		c.procs[pid] = p
		c.one = p
	}
	if len(c.procs) != 1 {
		c.one = nil
	}
	return c
}

func (c *corrTable[V]) proc(pid int64) *corrProc[V] {
	if c.one != nil && c.one.pid == pid {
		return c.one
	}
	return c.procs[pid]
}

// put returns the value of k, one of the table's keys, and whether k was
// put before.
func (c *corrTable[V]) put(k corrKey) (v *V, existed bool) {
	p := c.proc(k.pid)
	var zero V
	if p.index != nil {
		slot := &p.index[k.corr-p.base]
		if *slot == 0 {
			p.vals = append(p.vals, zero)
			*slot = int32(len(p.vals))
			return &p.vals[len(p.vals)-1], false
		}
		return &p.vals[*slot-1], true
	}
	i, existed := p.sparse[k.corr]
	if !existed {
		i = int32(len(p.vals))
		p.sparse[k.corr] = i
		p.vals = append(p.vals, zero)
	}
	return &p.vals[i], existed
}

// get returns the value of k, or nil when k was not put.
func (c *corrTable[V]) get(k corrKey) *V {
	p := c.proc(k.pid)
	if p == nil {
		return nil
	}
	if p.index != nil {
		// Unsigned: ids below base wrap around to large indices.
		if i := uint64(k.corr) - uint64(p.base); i < uint64(len(p.index)) && p.index[i] != 0 {
			return &p.vals[p.index[i]-1]
		}
		return nil
	}
	if i, ok := p.sparse[k.corr]; ok {
		return &p.vals[i]
	}
	return nil
}
