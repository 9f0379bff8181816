package metrics

import (
	"cmp"
	"slices"

	"github.com/traceql/traceql/trace"
)

// leftInFactor: a selected step this many times the median of the other
// selected steps is warm-up, not steady state. Steady steps of the real
// traces vary by under 2×; the graph-capture step of a reduce-overhead run
// is some 36× its steady steps.
const leftInFactor = 5

// A LeftStep is a step that --steps/--skip-steps kept but that looks like
// warm-up: it lasts LeftInFactor times the median of the other steps kept
// or more, or it captures CUDA graphs.
type LeftStep struct {
	Number int
	DurNS  int64
	// Times is DurNS over the median of the other selected steps; 0 when
	// there is none.
	Times float64
	// Captures says that the step's host range calls
	// cudaStreamBeginCapture (or HIP's): it records CUDA graphs.
	Captures bool
	// Skip is how many of the selected steps a --skip-steps would leave
	// out more to leave this one out too: its index in the selection + 1.
	Skip int
}

// leftIn returns the leading steps of sel that look like warm-up
// (LeftStep), in order, stopping at the first steady one: those are what
// skipping more steps leaves out. It keeps at least one step of sel.
func leftIn(t *trace.Trace, sel []Step) []LeftStep {
	whole := cmp.Or(t.Unclipped, t)
	captures := captureStarts(whole)
	var cpu []Step // the host ranges, read only when graphs were captured
	if len(captures) > 0 {
		_, cpu = collectSteps(whole.Ops)
	}
	var out []LeftStep
	for i, s := range sel[:len(sel)-1] {
		l := LeftStep{Number: s.Number, DurNS: s.End - s.Start, Skip: i + 1}
		others := make([]int64, 0, len(sel)-1)
		for j, o := range sel {
			if j != i {
				others = append(others, o.End-o.Start)
			}
		}
		slices.Sort(others)
		if med := Median(others); med > 0 {
			l.Times = float64(l.DurNS) / med
		}
		l.Captures = holdsCapture(cpu, s.Number, captures)
		if l.Times < leftInFactor && !l.Captures {
			break
		}
		out = append(out, l)
	}
	return out
}

// captureStarts returns the starts of t's stream-capture begin calls, in
// order.
func captureStarts(whole *trace.Trace) []int64 {
	var out []int64
	for i := range whole.APICalls {
		if isCaptureBound(whole.APICalls[i].Name) > 0 {
			out = append(out, whole.APICalls[i].Start)
		}
	}
	slices.Sort(out)
	return out
}

// holdsCapture reports whether a capture begins inside the host range of
// ProfilerStep#n among the host steps cpu: graphs are captured on the host, so the host range, not
// the GPU window, tells which step made them.
func holdsCapture(cpu []Step, n int, captures []int64) bool {
	i, ok := slices.BinarySearchFunc(cpu, n, func(s Step, n int) int { return s.Number - n })
	if !ok {
		return false
	}
	j, _ := slices.BinarySearch(captures, cpu[i].Start)
	return j < len(captures) && captures[j] <= cpu[i].End
}
