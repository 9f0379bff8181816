package blocks

import "github.com/traceql/traceql/internal/pages"

// Sizing the tables that parts fill. Growing a table as it fills makes a
// fresh one and copies the records over: each time, the new table's pages
// are faulted in, and the old one is left to the collector. So a table is
// grown to what its density so far projects (Grow), or, before a read,
// reserved from samples (Sample, Reserve). alloc says how the tables
// are made (pages.Make).

// Grow makes room in table t for n more records, read up to file offset
// end of a file of about size bytes; the table's records began at offset
// since. It grows to the size the density since then projects for the
// rest of the file, a quarter over, so that a file whose kinds of records
// are mixed throughout needs about one allocation a table; by at least a
// quarter, so that growth stays geometric when the size was guessed low
// (gzip); and by at most fourfold unless the projection is to be believed
// (projected).
func Grow[T any](alloc pages.Options, t []T, n int, since, end, size int64, projected bool) []T {
	need := len(t) + n
	if need <= cap(t) {
		return t
	}
	more := float64(need) / float64(max(end-since, 1)) * float64(max(size-end, 0)) * 1.25
	more = max(more, float64(need)/4)
	if !projected {
		more = min(more, 3*float64(need))
	}
	// The pages are touched before the copy, so that each faults once:
	// copying into them first costs copy-on-write faults and TLB flushes
	// (see package pages).
	return append(pages.Make[T](alloc, 0, need+int(more)), t...)
}

const (
	// ReserveMargin is the room Reserve makes per record estimated.
	ReserveMargin = 1.1
	// ReserveMinRecords is the fewest records estimated that Reserve
	// makes room for; smaller tables are left to grow.
	ReserveMinRecords = 4096
)

// Reserve gives t room for est records and ReserveMargin more.
func Reserve[T any](alloc pages.Options, t []T, est float64) []T {
	c := int(est * ReserveMargin)
	if est < ReserveMinRecords || c <= cap(t) {
		return t
	}
	return append(pages.Make[T](alloc, 0, c), t...)
}
