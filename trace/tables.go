package trace

import (
	"unsafe"

	"github.com/traceql/traceql/internal/pages"
	"github.com/traceql/traceql/trace/internal/blocks"
)

// A recordTable is one of a trace's record tables, seen through what the
// Kineto reader does with all of them alike: count, move, grow and
// reserve. A new kind of record is one more entry in recordTables (and
// its decoding in eventDecoder.keep).
type recordTable interface {
	len(t *Trace) int
	// move appends src's records to dst's and empties src's table.
	move(dst, src *Trace)
	// empty empties t's table, keeping its memory.
	empty(t *Trace)
	// grow makes room for n more records (blocks.Grow).
	grow(t *Trace, alloc pages.Options, n int, since, end, size int64, projected bool)
	// reserve makes room for est records (blocks.Reserve).
	reserve(t *Trace, alloc pages.Options, est float64)
	recordBytes() uintptr
}

// A table selects one table of a Trace.
type table[T any] func(t *Trace) *[]T

func (f table[T]) len(t *Trace) int { return len(*f(t)) }

func (f table[T]) move(dst, src *Trace) {
	d, s := f(dst), f(src)
	*d = append(*d, *s...)
	*s = (*s)[:0]
}

func (f table[T]) empty(t *Trace) {
	s := f(t)
	*s = (*s)[:0]
}

func (f table[T]) grow(t *Trace, alloc pages.Options, n int, since, end, size int64, projected bool) {
	s := f(t)
	*s = blocks.Grow(alloc, *s, n, since, end, size, projected)
}

func (f table[T]) reserve(t *Trace, alloc pages.Options, est float64) {
	s := f(t)
	*s = blocks.Reserve(alloc, *s, est)
}

func (table[T]) recordBytes() uintptr {
	var zero T
	return unsafe.Sizeof(zero)
}

// recordTables lists the record tables; read-only.
var recordTables = [...]recordTable{
	table[Kernel](func(t *Trace) *[]Kernel { return &t.Kernels }),
	table[Memcpy](func(t *Trace) *[]Memcpy { return &t.Memcpys }),
	table[Memset](func(t *Trace) *[]Memset { return &t.Memsets }),
	table[Sync](func(t *Trace) *[]Sync { return &t.Syncs }),
	table[APICall](func(t *Trace) *[]APICall { return &t.APICalls }),
	table[Op](func(t *Trace) *[]Op { return &t.Ops }),
	table[LaunchArg](func(t *Trace) *[]LaunchArg { return &t.LaunchArgs }),
}

// tableCount is the number of record tables.
const tableCount = len(recordTables)

// tableLens returns the lengths of t's record tables, in the order of
// recordTables.
func tableLens(t *Trace) (n [tableCount]int) {
	for i, tab := range recordTables {
		n[i] = tab.len(t)
	}
	return n
}

// records is the number of records in t's tables.
func records(t *Trace) int {
	n := 0
	for _, tab := range recordTables {
		n += tab.len(t)
	}
	return n
}
