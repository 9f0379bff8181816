package metrics

import "github.com/traceql/traceql/trace"

// windowParts returns the spans of t's window when it is made of several
// (a --range's occurrences, trace.Window.Parts); nil when it is one span
// or the whole trace. Busy time, span and idle gaps are measured inside
// them only.
func windowParts(t *trace.Trace) []Interval {
	if t.Window == nil || len(t.Window.Parts) < 2 {
		return nil
	}
	out := make([]Interval, len(t.Window.Parts))
	for i, p := range t.Window.Parts {
		out[i] = Interval{p.Start, p.End}
	}
	return out
}

// intersect returns the parts of a, disjoint sorted intervals, that lie
// inside b, disjoint sorted intervals: a zero-length interval of a is kept
// where it lies inside b, as clip keeps it.
func intersect(a, b []Interval) []Interval {
	var out []Interval
	for i, j := 0, 0; i < len(a) && j < len(b); {
		s, e := max(a[i].Start, b[j].Start), min(a[i].End, b[j].End)
		if s < e || s == e && a[i].Start == a[i].End && s >= b[j].Start && s <= b[j].End {
			out = append(out, Interval{s, e})
		}
		if a[i].End < b[j].End || a[i].End == b[j].End && a[i].Start == a[i].End {
			i++
		} else {
			j++
		}
	}
	return out
}
