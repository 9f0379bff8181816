package main

import (
	"fmt"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report/plot"
	"github.com/traceql/traceql/trace"
)

// A breakdownRun is one run and device of plot --kind breakdown: its
// steps, and its whole span's classes for a run without steps.
type breakdownRun struct {
	label  string
	steps  []metrics.StepStat
	whole  metrics.BusyClasses
	idleNS int64
}

func newBreakdownRun(label string, t *trace.Trace, dev int) breakdownRun {
	r := breakdownRun{label: label, steps: metrics.StepStats(t, dev)}
	r.whole, r.idleNS = metrics.SpanClasses(t, dev)
	return r
}

// summaryBreakdownRun is the breakdownRun of a summarized device.
func summaryBreakdownRun(label string, d *metrics.DeviceSummary) breakdownRun {
	return breakdownRun{label: label, steps: d.Steps, whole: d.Classes, idleNS: d.IdleNS}
}

// breakdownBars lays the runs out as bars: one run's steps a bar each;
// several runs a bar each, of their median step, or of the whole run when
// it has no steps. It returns the bars, the name of the axis along which
// they stand ("" for runs, named at each bar) and the plot's title.
func breakdownBars(runs []breakdownRun) (bars []plot.BreakdownBar, axis, title string) {
	if len(runs) == 1 && len(runs[0].steps) > 0 {
		for _, s := range runs[0].steps {
			bars = append(bars, plot.BreakdownBar{Label: fmt.Sprintf("%d", s.Number), Classes: s.Classes, IdleNS: s.IdleNS})
		}
		return bars, "step (ProfilerStep#N)", "GPU time by class, per step: " + runs[0].label
	}
	for _, r := range runs {
		if s, ok := metrics.MedianStep(r.steps); ok {
			bars = append(bars, plot.BreakdownBar{Label: fmt.Sprintf("%s #%d", r.label, s.Number), Classes: s.Classes, IdleNS: s.IdleNS})
			continue
		}
		bars = append(bars, plot.BreakdownBar{Label: r.label + " (whole)", Classes: r.whole, IdleNS: r.idleNS})
	}
	return bars, "", "GPU time by class: each run's median step #N, or the whole run without steps"
}
