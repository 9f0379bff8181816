package trace

// A Window is a span of the device timeline a trace is measured in.
type Window struct {
	Start, End int64
	// Steps, when not nil, are the numbers of the ProfilerStep#N the
	// window was made of (--steps): only those are its steps.
	Steps []int
	// Label names the window for people and output columns: "steps 2–4",
	// "window 100ms:500ms", "range fwd", "steady: steps 3–10".
	Label string
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
	return &c
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
