package metrics

import "github.com/traceql/traceql/trace"

// A Point is one bin of a utilization timeline.
type Point struct {
	StartNS, EndNS int64   // the bin, on the trace's clock
	Util           float64 // busy time inside the bin / bin length, 0..1
}

// Timeline cuts [first activity start, last activity end] of a device into
// n bins of equal length to within 1 ns (fewer when the span is shorter
// than n ns) and returns the busy fraction of each: the union of GPU
// activity clipped to the bin, so overlapping streams never push a bin
// past 100 % (unlike nsys' gpu_time_util, which sums).
func Timeline(t *trace.Trace, dev int, n int) []Point {
	return timeline(deviceBusy(t, dev), n)
}

// timeline is Timeline of a device's busy intervals.
func timeline(busy []Interval, n int) []Point {
	if len(busy) == 0 || n < 1 {
		return nil
	}
	start, end := busy[0].Start, busy[len(busy)-1].End
	span := end - start
	if span == 0 {
		return []Point{{start, end, 1}}
	}
	// Bin i starts at start + span×i/n, computed without overflow.
	edge := func(i int64) int64 { return start + span/int64(n)*i + span%int64(n)*i/int64(n) }
	pts := make([]Point, 0, n)
	j := 0
	for i := range int64(n) {
		w := Interval{edge(i), edge(i + 1)}
		if w.Len() == 0 {
			continue
		}
		var in int64
		for j < len(busy) && busy[j].End <= w.Start {
			j++
		}
		for k := j; k < len(busy) && busy[k].Start < w.End; k++ {
			in += min(busy[k].End, w.End) - max(busy[k].Start, w.Start)
		}
		pts = append(pts, Point{w.Start, w.End, float64(in) / float64(w.Len())})
	}
	return pts
}

// KernelDurations returns the durations of a device's kernels in trace
// order (by start).
func KernelDurations(t *trace.Trace, dev int) []int64 {
	var out []int64
	for i := range t.Kernels {
		if t.Kernels[i].Device == dev {
			out = append(out, t.Kernels[i].Dur())
		}
	}
	return out
}

// IdleGaps returns the gaps between a device's merged busy intervals.
func IdleGaps(t *trace.Trace, dev int) []Interval {
	return Gaps(deviceBusy(t, dev))
}

// ActiveDevices returns the IDs of devices with GPU activity, ascending.
func ActiveDevices(t *trace.Trace) []int {
	var ids []int
	for _, d := range activeDevices(t) {
		ids = append(ids, d.ID)
	}
	return ids
}
