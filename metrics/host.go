package metrics

import (
	"slices"

	"github.com/traceql/traceql/trace"
)

// HostTimeline is the time line of a trace's host side: what a run
// without GPU activity (CPU, Apple MPS, or a GPU run whose device activity
// was not recorded) has in place of the device metrics.
type HostTimeline struct {
	// StartNS and EndNS are the first start and the last end of the host
	// events: ops and annotations (not their GPU copies) and runtime or
	// driver calls; SpanNS = EndNS − StartNS.
	StartNS, EndNS, SpanNS int64
	// OpBusyNS is the length of the union of the cpu_op intervals over all
	// threads: time during which some thread ran an op.
	OpBusyNS int64
	// OutsideOpsNS is SpanNS − OpBusyNS: time in which no thread ran an
	// op (Python between ops, data loading, waits).
	OutsideOpsNS int64
	// Steps are the CPU ProfilerStep#N ranges (Steps: a step begins no
	// earlier than the one before ends), StepMedianNS the median of their
	// lengths (0 without steps).
	Steps        []Step
	StepMedianNS float64
	// WarmupSteps counts the leading steps that look like warm-up or
	// compilation (WarmupSteps: each longer than twice the median), and
	// SteadyStepMedianNS is the median of the rest.
	WarmupSteps        int
	SteadyStepMedianNS float64
}

// hostTimeline measures t's host time line; ops are t's ops, clipped to
// its window when it has one.
func hostTimeline(t *trace.Trace, ops []trace.Op) HostTimeline {
	var h HostTimeline
	first := true
	see := func(start, end int64) {
		if first {
			h.StartNS, h.EndNS, first = start, end, false
			return
		}
		h.StartNS, h.EndNS = min(h.StartNS, start), max(h.EndNS, end)
	}
	busy := make([]Interval, 0, len(ops))
	for i := range ops {
		op := &ops[i]
		if op.Kind == trace.GPUAnnotation {
			continue
		}
		see(op.Start, op.End)
		if op.Kind == trace.CPUOp {
			busy = append(busy, Interval{op.Start, op.End})
		}
	}
	for i := range t.APICalls {
		c := &t.APICalls[i]
		if w := t.Window; w != nil {
			if !overlaps(c.Start, c.End, w) {
				continue
			}
			see(max(c.Start, w.Start), min(c.End, w.End))
			continue
		}
		see(c.Start, c.End)
	}
	h.SpanNS = h.EndNS - h.StartNS
	h.OpBusyNS = length(union(busy))
	h.OutsideOpsNS = h.SpanNS - h.OpBusyNS
	h.Steps = Steps(t)
	stats := make([]StepStat, len(h.Steps))
	lens := make([]int64, len(h.Steps))
	for i, s := range h.Steps {
		stats[i] = StepStat{Step: s}
		lens[i] = s.End - s.Start
	}
	h.WarmupSteps = WarmupSteps(stats)
	steady := slices.Clone(lens[h.WarmupSteps:])
	slices.Sort(lens)
	slices.Sort(steady)
	h.StepMedianNS, h.SteadyStepMedianNS = Median(lens), Median(steady)
	return h
}
