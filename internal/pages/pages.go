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
package pages

import "unsafe"

// Make returns make([]T, n, c) with every page of its memory written to.
func Make[T any](n, c int) []T {
	s := make([]T, n, c)
	var zero T
	// The memory holds zeros: writing zero bytes changes no value anyone
	// could see.
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), c*int(unsafe.Sizeof(zero)))
	if len(b) == 0 {
		return s
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
	b[len(b)-1] = 0
	return s
}
