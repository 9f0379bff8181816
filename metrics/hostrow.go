package metrics

import (
	"strings"

	"github.com/traceql/traceql/trace"
)

// Host classes of a step's idle GPU time: what the host was in while the
// GPU idled, as TensorBoard's overview split a step. They are a row of
// their own, never part of the busy classes: the host works beside the
// GPU.
const (
	HostDataLoader = iota // a DataLoader fetch: enumerate(DataLoader)…
	HostOptimizer         // an optimizer step or zero_grad: Optimizer.…
	HostOther             // anything else: Python, other host code, waits
	numHostClasses
)

// HostClassNames name the host classes, as the step tables write them.
var HostClassNames = [numHostClasses]string{"DataLoader", "optimizer", "other host"}

// HostClasses split a step's idle GPU time by host class; they add up to
// the step's IdleNS.
type HostClasses [numHostClasses]int64

// hostRanges are the unions of the host ranges of the DataLoader and
// optimizer classes, in the order of the classes.
type hostRanges [HostOther][]Interval

// hostClassOf returns the host class of a host op by its name: PyTorch's
// record_function names for DataLoader fetches and optimizer steps; -1
// for any other.
func hostClassOf(name string) int {
	switch {
	case strings.HasPrefix(name, "enumerate(DataLoader)"):
		return HostDataLoader
	case strings.HasPrefix(name, "Optimizer.step#"), strings.HasPrefix(name, "Optimizer.zero_grad#"):
		return HostOptimizer
	}
	return -1
}

// collectHostRanges finds the DataLoader and optimizer ranges among the
// host ops of t, all threads.
func collectHostRanges(t *trace.Trace) hostRanges {
	var r hostRanges
	var raw [HostOther][]Interval
	for i := range t.Ops {
		op := &t.Ops[i]
		if op.Kind == trace.GPUAnnotation || len(op.Name) < 10 || op.Name[0] != 'e' && op.Name[0] != 'O' {
			continue
		}
		if c := hostClassOf(op.Name); c >= 0 {
			raw[c] = append(raw[c], Interval{op.Start, op.End})
		}
	}
	for c := range raw {
		r[c] = union(raw[c])
	}
	return r
}

// stepHostClasses splits the idle time of window w, outside the busy
// intervals, by host class: DataLoader first, then optimizer, then other.
func stepHostClasses(busy []Interval, r *hostRanges, w Interval) HostClasses {
	var s hostSplitter
	return s.split(busy, r, w)
}

// A hostSplitter splits steps' idle time by host class (stepHostClasses),
// one step after another in buffers it keeps: a summary splits every step
// of every device.
type hostSplitter struct{ idle, rest []Interval }

func (s *hostSplitter) split(busy []Interval, r *hostRanges, w Interval) HostClasses {
	var h HostClasses
	s.idle = appendSubtract(s.idle[:0], []Interval{w}, busy)
	total := length(s.idle)
	for c := range HostOther {
		if len(r[c]) == 0 {
			continue // cuts nothing from the idle time
		}
		s.rest = appendSubtract(s.rest[:0], s.idle, r[c])
		h[c] = length(s.idle) - length(s.rest)
		s.idle, s.rest = s.rest, s.idle
	}
	h[HostOther] = total - h[HostDataLoader] - h[HostOptimizer]
	return h
}
