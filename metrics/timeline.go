package metrics

import "github.com/traceql/traceql/trace"

// A Point is one bin of a utilization timeline.
type Point struct {
	StartNS int64   // bin start, on the trace's clock
	Util    float64 // busy time inside the bin / bin length, 0..1
}

// Timeline cuts [first activity start, last activity end] of a device into
// n equal bins (the last one may be shorter) and returns the busy fraction
// of each: the union of GPU activity clipped to the bin, so overlapping
// streams never push a bin past 100 % (unlike nsys' gpu_time_util, which
// sums).
func Timeline(t *trace.Trace, dev int, n int) []Point {
	busy := DeviceBusy(t, dev)
	if len(busy) == 0 || n < 1 {
		return nil
	}
	start, end := busy[0].Start, busy[len(busy)-1].End
	span := end - start
	if span == 0 {
		return []Point{{start, 1}}
	}
	width := (span + int64(n) - 1) / int64(n) // ceil
	pts := make([]Point, 0, n)
	j := 0
	for b := start; b < end; b += width {
		w := Interval{b, min(b+width, end)}
		var in int64
		for j < len(busy) && busy[j].End <= w.Start {
			j++
		}
		for k := j; k < len(busy) && busy[k].Start < w.End; k++ {
			in += min(busy[k].End, w.End) - max(busy[k].Start, w.Start)
		}
		pts = append(pts, Point{w.Start, float64(in) / float64(w.Len())})
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
	return Gaps(DeviceBusy(t, dev))
}

// ActiveDevices returns the IDs of devices with GPU activity, ascending.
func ActiveDevices(t *trace.Trace) []int {
	var ids []int
	for _, d := range activeDevices(t) {
		ids = append(ids, d.ID)
	}
	return ids
}
