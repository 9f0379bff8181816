// Package pages allocates large slices whose memory is first touched by a
// write.
//
// A fresh allocation of many pages is backed by no memory until used. When
// its first access is a read (the garbage collector scanning a slice of
// records that hold pointers, or a lookup in an index still empty), the
// kernel maps the page to its shared zero page; the write that follows
// faults again, copies the page, and flushes the TLB of every other CPU the
// process runs on. A page first touched by a write faults once, cheaply.
// On the 1 GB traces of the README's Performance section the double faults
// and flushes took 8 to 10 % of all CPU time.
//
// A large allocation may itself start a collection, whose workers then scan
// the new slice on the other cores while it is being written. So the
// collector is held off (debug.SetGCPercent(-1)) while a slice of 16 MiB or
// more is made and written: with 10 GB traces, tables of hundreds of
// megabytes were otherwise scanned first, and their writes faulted twice
// (5.5 % of all CPU time on the real layout of the README).
package pages

import (
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"
)

// holdBytes is the size from which Make holds the collector off.
const holdBytes = 16 << 20

// Make returns make([]T, n, c) with every page of its memory written to.
func Make[T any](n, c int) []T {
	var zero T
	size := c * int(unsafe.Sizeof(zero))
	if size >= holdBytes {
		defer holdGC()()
	}
	s := make([]T, n, c)
	if size == 0 {
		return s
	}
	// The memory holds zeros: writing zero bytes changes no value anyone
	// could see.
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	parts := min(runtime.GOMAXPROCS(0), size/splitBytes+1)
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

// held counts the Makes holding the collector off, so that the last one
// to finish restores the percentage the first one found.
var held struct {
	sync.Mutex
	n       int
	percent int
}

// holdGC keeps a collection from starting until the returned function is
// called. Setting the percentage to -1 waits for a collection under way to
// finish its marking.
func holdGC() (release func()) {
	held.Lock()
	if held.n == 0 {
		held.percent = debug.SetGCPercent(-1)
	}
	held.n++
	held.Unlock()
	return func() {
		held.Lock()
		held.n--
		if held.n == 0 {
			debug.SetGCPercent(held.percent)
		}
		held.Unlock()
	}
}
