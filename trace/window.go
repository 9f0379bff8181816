package trace

// A Window is a span of the device timeline a trace is measured in.
type Window struct {
	Start, End int64
	// Steps, when not nil, are the numbers of the ProfilerStep#N the
	// window was made of (--steps): only those are its steps.
	Steps []int
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

func clipActivities[T any](xs []T, start, end int64, act func(*T) *Activity) []T {
	var out []T
	for _, x := range xs {
		a := act(&x)
		if a.End < start || a.Start > end || a.End == start && a.Start < start || a.Start == end && a.End > end {
			continue // outside, or touching the window from outside
		}
		a.Start, a.End = max(a.Start, start), min(a.End, end)
		out = append(out, x)
	}
	return out
}
