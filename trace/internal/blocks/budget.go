package blocks

import (
	"sync"
	"sync/atomic"
)

// A Budget is a number of workers that reads going on at once share: each
// read takes those free, at least one, and more as other reads end and
// give theirs back. Reads that took a full set each would have blocks in
// flight and decoders growing as the square of the cores.
//
// The reads also share their block buffers through it: a folder of small
// ranks would otherwise allocate and zero a block a file, most of what a
// read allocates after its read buffer.
type Budget struct {
	size int
	busy atomic.Int64
	bufs sync.Pool // of *[]byte
}

// NewBudget returns a budget of n workers, at least one.
func NewBudget(n int) *Budget { return &Budget{size: max(n, 1)} }

// Size is the number of workers in the budget.
func (b *Budget) Size() int { return b.size }

// Busy is the number of workers taken and not given back.
func (b *Budget) Busy() int { return int(b.busy.Load()) }

// Take reserves up to most of the workers free now, and at least least;
// each is given back with Give.
func (b *Budget) Take(most, least int) int {
	for {
		busy := b.busy.Load()
		n := min(int64(most), max(int64(least), int64(b.size)-busy))
		if n <= 0 {
			return 0
		}
		if b.busy.CompareAndSwap(busy, busy+n) {
			return int(n)
		}
	}
}

// Give gives n workers back.
func (b *Budget) Give(n int) { b.busy.Add(-int64(n)) }
