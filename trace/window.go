package trace

import (
	"cmp"
	"slices"
)

// A Window is a span of the device timeline a trace is measured in.
type Window struct {
	Start, End int64
	// Steps, when not nil, are the numbers of the ProfilerStep#N the
	// window was made of (--steps): only those are its steps.
	Steps []int
	// Label names the window for people and output columns: "steps 2–4",
	// "window 100ms:500ms", "range fwd", "steady: steps 3–10".
	Label string
	// Parts, when not nil, are the disjoint spans, sorted, that make the
	// window up, Start the first's start and End the last's end: the
	// occurrences of a --range. Only what lies inside them is measured.
	// nil: the one span Start..End.
	Parts []Span
}

// A Span is the time from Start to End, in ns.
type Span struct{ Start, End int64 }

// Holds reports whether start..end lies inside one span of w.
func (w *Window) Holds(start, end int64) bool {
	if w.Parts == nil {
		return start >= w.Start && end <= w.End
	}
	i := w.partAt(start)
	return i < len(w.Parts) && start >= w.Parts[i].Start && end <= w.Parts[i].End
}

// partAt is the index of the first part that ends at or after t.
func (w *Window) partAt(t int64) int {
	i, _ := slices.BinarySearchFunc(w.Parts, t, func(p Span, t int64) int { return cmp.Compare(p.End, t) })
	return i
}

// Clip returns a copy of t restricted to w: the device records that overlap
// it, clipped to it. Host records (API calls, ops) are kept whole: the CPU
// runs ahead of the GPU, so the work inside the window was launched by
// calls made before it, and steps keep their host ranges; metrics of the
// host side clip them to t.Window themselves. t is not modified.
func (t *Trace) Clip(w Window) *Trace {
	c := *t
	c.Window = &w
	c.Unclipped = t
	if t.Unclipped != nil {
		c.Unclipped = t.Unclipped
	}
	c.Kernels = clipActivities(t.Kernels, w.Start, w.End, func(k *Kernel) *Activity { return &k.Activity })
	c.Memcpys = clipActivities(t.Memcpys, w.Start, w.End, func(m *Memcpy) *Activity { return &m.Activity })
	c.Memsets = clipActivities(t.Memsets, w.Start, w.End, func(m *Memset) *Activity { return &m.Activity })
	c.Syncs = clipActivities(t.Syncs, w.Start, w.End, func(s *Sync) *Activity { return &s.Activity })
	if len(w.Parts) > 1 {
		c.Kernels = clipParts(c.Kernels, &w, func(k *Kernel) *Activity { return &k.Activity })
		c.Memcpys = clipParts(c.Memcpys, &w, func(m *Memcpy) *Activity { return &m.Activity })
		c.Memsets = clipParts(c.Memsets, &w, func(m *Memset) *Activity { return &m.Activity })
		c.Syncs = clipParts(c.Syncs, &w, func(s *Sync) *Activity { return &s.Activity })
	}
	return &c
}

// clipParts keeps the records of xs, already clipped to w's span, that
// overlap one of w.Parts, clipped from the first part they overlap to the
// last: a record running across the time between two parts stays one
// record (a kernel is counted once), and metrics measure its time inside
// the parts (metrics' busy time is cut to them). xs is reused.
func clipParts[T any](xs []T, w *Window, act func(*T) *Activity) []T {
	out := xs[:0]
	for i := range xs {
		a := act(&xs[i])
		first := w.partAt(a.Start)
		if first == len(w.Parts) || w.Parts[first].Start > a.End {
			continue // in the time between two parts
		}
		// The last part starting at or before the record's end.
		last, _ := slices.BinarySearchFunc(w.Parts, a.End, func(p Span, t int64) int {
			if p.Start <= t {
				return -1
			}
			return 1
		})
		last--
		a.Start, a.End = max(a.Start, w.Parts[first].Start), min(a.End, w.Parts[last].End)
		out = append(out, xs[i])
	}
	return out
}

// clipActivities returns the records of xs that overlap [start, end],
// clipped to it, in a slice of their number: a window of most of a big
// trace would otherwise grow its copy several times over.
func clipActivities[T any](xs []T, start, end int64, act func(*T) *Activity) []T {
	inside := func(a *Activity) bool {
		// Not outside, nor touching the window from outside.
		return !(a.End < start || a.Start > end || a.End == start && a.Start < start || a.Start == end && a.End > end)
	}
	n := 0
	for i := range xs {
		if inside(act(&xs[i])) {
			n++
		}
	}
	out := make([]T, 0, n)
	for i := range xs {
		if inside(act(&xs[i])) {
			out = append(out, xs[i])
			a := act(&out[len(out)-1])
			a.Start, a.End = max(a.Start, start), min(a.End, end)
		}
	}
	return out
}
