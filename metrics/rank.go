package metrics

import (
	"cmp"
	"math"
	"slices"
)

// A Ranking orders the runs of a comparison by how long they take: the
// median step (StepMedianNS) when every run measured steps, else the span
// (SpanNS), which is only comparable when the runs did the same work.
type Ranking struct {
	BySpan bool      // ranked by span_ns (a run has no steps), else by step_median_ns
	Values []float64 // by run, as given; NaN for a run without the device
	Order  []int     // the runs with a value, the shortest first, ties in the order given
}

// RankRuns ranks one device of each run (nil: the run has no such
// device) by median step, or by span when a run has no steps.
func RankRuns(devs []*DeviceSummary) Ranking {
	r := Ranking{Values: make([]float64, len(devs))}
	for _, d := range devs {
		r.BySpan = r.BySpan || d != nil && len(d.Steps) == 0
	}
	for i, d := range devs {
		switch {
		case d == nil:
			r.Values[i] = math.NaN()
			continue
		case r.BySpan:
			r.Values[i] = float64(d.SpanNS)
		default:
			r.Values[i] = d.StepMedianNS
		}
		r.Order = append(r.Order, i)
	}
	slices.SortStableFunc(r.Order, func(a, b int) int { return cmp.Compare(r.Values[a], r.Values[b]) })
	return r
}
