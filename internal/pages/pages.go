// Package pages allocates large slices whose memory is first touched by a
// write.
//
// A fresh allocation of many pages is backed by no memory until used. When
// its first access is a read (the garbage collector scanning a slice of
// records that hold pointers, or a lookup in an index still empty), the
// kernel maps the page to its shared zero page; the write that follows
// faults again, copies the page, and flushes the TLB of every other CPU the
// process runs on. A page first touched by a write faults once, cheaply.
// BenchmarkKinetoOpen and whole-process summarize of a 1 GB trace tell
// whether this still pays: with plain make, the tables' pages fault twice.
// A slice of HugeBytes or more is also advised for transparent huge pages,
// so that its pages fault 2 MiB at a time (adviseHuge); bench/hugepages-*.txt
// hold the before and after.
//
// A large allocation may itself start a collection, whose workers then scan
// the new slice on the other cores while it is being written. So Make
// takes a hook, Options.Hold, that a program may use to hold the collector
// off while a slice of HoldBytes or more is made and written: big traces'
// tables of hundreds of megabytes would otherwise be scanned first, and
// their writes fault twice. Whether to do so is the program's
// decision (the collector's setting is process-wide), never this
// package's: cmd/traceql's gcHold makes it. So is how many goroutines
// write a slice's pages (Options.Workers): the reader passes its own
// budget of workers down.
package pages

import (
	"sync"
	"unsafe"
)

// HoldBytes is the size from which Make calls Options.Hold.
const HoldBytes = 16 << 20

// Options say how Make makes a slice; the zero Options hold nothing and
// write the pages in the caller's goroutine.
type Options struct {
	// Hold, when not nil, is called before a slice of HoldBytes or more
	// is made, and the function it returns once the slice is written.
	Hold func() (release func())
	// Workers is the most goroutines that write a large slice's pages,
	// splitBytes or more each; 0 or 1: the caller's alone.
	Workers int
}

// Make returns make([]T, n, c) with every page of its memory written to,
// as o says.
func Make[T any](o Options, n, c int) []T {
	var zero T
	size := c * int(unsafe.Sizeof(zero))
	if size >= HoldBytes && o.Hold != nil {
		defer o.Hold()()
	}
	s := make([]T, n, c)
	if size == 0 {
		return s
	}
	// The memory holds zeros: writing zero bytes changes no value anyone
	// could see.
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	if size >= HugeBytes {
		adviseHuge(b)
	}
	parts := min(max(o.Workers, 1), size/splitBytes+1)
	if parts == 1 {
		touch(b)
		return s
	}
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { touch(b[len(b)*k/parts : len(b)*(k+1)/parts]) })
	}
	wg.Wait()
	return s
}

// HugeBytes is the size from which Make asks for huge pages (adviseHuge):
// a slice this large spans whole huge pages.
const HugeBytes = 4 << 20

// splitBytes is the size from which Make writes the pages with several
// goroutines, a part of splitBytes or more each: faults in distinct pages
// are taken in parallel, and a table reserved before a read starts
// (several hundred megabytes for a 10 GB trace) would otherwise be
// written by one core while the others wait.
const splitBytes = 64 << 20

// touch writes a zero byte to every page of b, which is not empty.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
	b[len(b)-1] = 0
}
