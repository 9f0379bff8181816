package metrics

import (
	"cmp"
	"slices"
)

// An Interval is a half-open stretch of time [Start, End) in ns.
type Interval struct{ Start, End int64 }

// Len returns End − Start.
func (iv Interval) Len() int64 { return iv.End - iv.Start }

// union returns the union of ivs as sorted, disjoint intervals. Intervals
// that overlap or touch (one ends where the next starts) merge. A
// zero-length interval inside or touching another adds nothing; a lone one
// is kept as a zero-length busy interval. ivs is not modified.
func union(ivs []Interval) []Interval {
	sorted := slices.Clone(ivs)
	if !slices.IsSortedFunc(sorted, byStart) {
		slices.SortFunc(sorted, byStart)
	}
	return unionSorted(sorted)
}

func byStart(a, b Interval) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	return cmp.Compare(a.End, b.End)
}

// unionSorted merges intervals already sorted by Start, in place.
func unionSorted(ivs []Interval) []Interval {
	out := ivs[:0]
	for _, iv := range ivs {
		out = appendUnion(out, iv)
	}
	return out
}

// appendUnion adds iv to the union of intervals ivs, none of which starts
// after it: it joins the last one when they overlap or touch. Intervals
// added in order of start make their union, without being held first.
func appendUnion(ivs []Interval, iv Interval) []Interval {
	if n := len(ivs); n > 0 && iv.Start <= ivs[n-1].End {
		ivs[n-1].End = max(ivs[n-1].End, iv.End)
		return ivs
	}
	return append(ivs, iv)
}

// mergeInto merges b into the space after a, both sorted by start, a's
// first on ties, from the back: cap(a) must hold both.
func mergeInto(a, b []Interval) []Interval {
	i, j := len(a)-1, len(b)-1
	a = a[:len(a)+len(b)]
	for w := len(a) - 1; j >= 0; w-- {
		if i >= 0 && byStart(a[i], b[j]) > 0 {
			a[w], i = a[i], i-1
		} else {
			a[w], j = b[j], j-1
		}
	}
	return a
}

// length returns the total length of disjoint intervals.
func length(merged []Interval) int64 {
	var n int64
	for _, iv := range merged {
		n += iv.Len()
	}
	return n
}

// clip returns the parts of disjoint, sorted intervals that lie inside w.
func clip(merged []Interval, w Interval) []Interval {
	var out []Interval
	// Intervals ending before w or starting after it add nothing.
	i, _ := slices.BinarySearchFunc(merged, w.Start, func(iv Interval, x int64) int { return cmp.Compare(iv.End, x) })
	for _, iv := range merged[i:] {
		if iv.Start > w.End {
			break
		}
		s, e := max(iv.Start, w.Start), min(iv.End, w.End)
		if s < e || s == e && iv.Start == iv.End && s >= w.Start && s <= w.End {
			out = append(out, Interval{s, e})
		}
	}
	return out
}

// lengthIn returns length(clip(merged, w)) without building the clip:
// steps ask it of every busy interval.
func lengthIn(merged []Interval, w Interval) int64 {
	n, _ := lengthFrom(merged, w, 0)
	return n
}

// lengthFrom is lengthIn searching merged from index from (see
// searchEnd), and the index the search found: the from of the next
// window, for windows in order of start.
func lengthFrom(merged []Interval, w Interval, from int) (int64, int) {
	var n int64
	i := searchEnd(merged, w.Start, from)
	for _, iv := range merged[i:] {
		if iv.Start > w.End {
			break
		}
		n += max(min(iv.End, w.End)-max(iv.Start, w.Start), 0)
	}
	return n, i
}

// searchEnd returns the first index of the sorted, disjoint us whose
// interval ends at x or later. It gallops from index from, in steps of
// the distance moved rather than of us's length, for callers walking
// forward; a from past the answer searches from the start.
func searchEnd(us []Interval, x int64, from int) int {
	if from > len(us) || from > 0 && us[from-1].End >= x {
		from = 0
	}
	// Every interval before lo ends before x.
	lo, step := from, 1
	for lo+step <= len(us) && us[lo+step-1].End < x {
		lo += step
		step *= 2
	}
	hi := min(lo+step-1, len(us))
	n, _ := slices.BinarySearchFunc(us[lo:hi], x, func(iv Interval, x int64) int { return cmp.Compare(iv.End, x) })
	return lo + n
}

// Gaps returns the idle stretches between consecutive disjoint, sorted
// intervals.
func Gaps(merged []Interval) []Interval {
	var out []Interval
	if len(merged) > 1 {
		out = make([]Interval, 0, len(merged)-1)
	}
	for i := 1; i < len(merged); i++ {
		out = append(out, Interval{merged[i-1].End, merged[i].Start})
	}
	return out
}

// overlapLength returns the length of the intersection of two lists of
// disjoint, sorted intervals.
func overlapLength(a, b []Interval) int64 {
	var n int64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		n += max(min(a[i].End, b[j].End)-max(a[i].Start, b[j].Start), 0)
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return n
}
