package metrics

import (
	"iter"

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
// its values are kept in a slice indexed by id, which on the hundreds of
// thousands of lookups a summary makes is several times faster than a
// hash map (lookups come in nearly increasing id order and stay in cache).
// A process whose ids are too sparse for a slice gets a map.
//
// The keys are fixed when the table is made; lookups may run concurrently.
type corrTable[V any] struct {
	procs map[int64]*corrProc[V]
	one   *corrProc[V] // the only process, when there is one
}

type corrProc[V any] struct {
	pid    int64
	base   int64           // the smallest id: vals[id-base] when dense
	sparse map[int64]int32 // id → index in vals, when not dense
	vals   []V
	has    []bool
}

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
		p := &corrProc[V]{pid: pid, base: r.lo}
		// Dense when the slice is at most about twice the number of ids.
		// (The span is computed unsigned: it may not fit an int64.)
		if span := uint64(r.hi) - uint64(r.lo); span < uint64(2*r.n+1024) {
			p.vals, p.has = make([]V, span+1), make([]bool, span+1)
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
	if p.sparse == nil {
		i := k.corr - p.base
		existed, p.has[i] = p.has[i], true
		return &p.vals[i], existed
	}
	i, existed := p.sparse[k.corr]
	if !existed {
		i = int32(len(p.vals))
		p.sparse[k.corr] = i
		var zero V
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
	if p.sparse == nil {
		// Unsigned: ids below base wrap around to large indices.
		if i := uint64(k.corr) - uint64(p.base); i < uint64(len(p.vals)) && p.has[i] {
			return &p.vals[i]
		}
		return nil
	}
	if i, ok := p.sparse[k.corr]; ok {
		return &p.vals[i]
	}
	return nil
}
