package trace

// Clip returns a copy of t restricted to the window [start, end]: device
// records and host calls and ops that overlap it, clipped to it. Metrics of
// the copy are the metrics of the window. t is not modified.
func (t *Trace) Clip(start, end int64) *Trace {
	c := *t
	c.Kernels = clipActivities(t.Kernels, start, end, func(k *Kernel) *Activity { return &k.Activity })
	c.Memcpys = clipActivities(t.Memcpys, start, end, func(m *Memcpy) *Activity { return &m.Activity })
	c.Memsets = clipActivities(t.Memsets, start, end, func(m *Memset) *Activity { return &m.Activity })
	c.Syncs = clipActivities(t.Syncs, start, end, func(s *Sync) *Activity { return &s.Activity })
	c.APICalls = nil
	for _, a := range t.APICalls {
		if a.End >= start && a.Start <= end {
			a.Start, a.End = max(a.Start, start), min(a.End, end)
			c.APICalls = append(c.APICalls, a)
		}
	}
	c.Ops = nil
	for _, o := range t.Ops {
		if o.End >= start && o.Start <= end {
			o.Start, o.End = max(o.Start, start), min(o.End, end)
			c.Ops = append(c.Ops, o)
		}
	}
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
