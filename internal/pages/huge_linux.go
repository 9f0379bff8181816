package pages

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the CPUs Linux runs
// traceql on (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// adviseHuge asks the kernel to back b's whole huge pages with huge pages
// (MADV_HUGEPAGE), where transparent huge pages are on only for memory so
// advised, the default of most distributions: one fault then maps and
// clears 2 MiB instead of 4 KiB, and a table of hundreds of megabytes is
// faulted in with hundreds of faults, not tens of thousands. The advice is
// a hint; where the kernel refuses it the pages fault as before.
func adviseHuge(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	from := (p + hugePage - 1) &^ (hugePage - 1)
	to := (p + uintptr(len(b))) &^ (hugePage - 1)
	if to <= from {
		return
	}
	_ = syscall.Madvise(b[from-p:to-p], madvHugepage)
}

// madvHugepage is MADV_HUGEPAGE, which package syscall does not name.
const madvHugepage = 14
