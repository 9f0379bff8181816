package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/traceql/traceql/trace"
)

// A Step is one profiler step window, ProfilerStep#N.
type Step struct {
	Number     int
	Start, End int64
	OnGPU      bool // from the gpu_user_annotation copy; else the CPU range
}

// Steps returns the ProfilerStep#N windows of a trace, by number. The
// device-side copy (gpu_user_annotation) is used when the trace has one;
// otherwise the CPU range (user_annotation, or a 2021 Operator).
func Steps(t *trace.Trace) []Step {
	gpu := map[int]*Step{}
	cpu := map[int]*Step{}
	for _, op := range t.Ops {
		rest, ok := strings.CutPrefix(op.Name, "ProfilerStep#")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil {
			continue
		}
		m := cpu
		if op.Kind == trace.GPUAnnotation {
			m = gpu
		}
		if s := m[n]; s != nil { // one step seen on several streams or threads
			s.Start, s.End = min(s.Start, op.Start), max(s.End, op.End)
			continue
		}
		m[n] = &Step{Number: n, Start: op.Start, End: op.End, OnGPU: op.Kind == trace.GPUAnnotation}
	}
	src := cpu
	if len(gpu) > 0 {
		src = gpu
	}
	out := make([]Step, 0, len(src))
	for _, s := range src {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Step) int { return cmp.Compare(a.Number, b.Number) })
	return out
}

// A StepStat is what one device did during one step.
type StepStat struct {
	Step
	Kernels int   // kernels that started inside the window
	BusyNS  int64 // GPU activity inside the window (union, clipped)
	IdleNS  int64 // window length − BusyNS
	Util    float64
}

// DurNS is the step's length.
func (s StepStat) DurNS() int64 { return s.End - s.Start }

// StepStats measures each step window on one device.
func StepStats(t *trace.Trace, dev int) []StepStat {
	steps := Steps(t)
	if len(steps) == 0 {
		return nil
	}
	busy := DeviceBusy(t, dev)
	out := make([]StepStat, len(steps))
	for i, s := range steps {
		w := Interval{s.Start, s.End}
		st := StepStat{Step: s}
		st.BusyNS = Length(Clip(busy, w))
		st.IdleNS = w.Len() - st.BusyNS
		if w.Len() > 0 {
			st.Util = float64(st.BusyNS) / float64(w.Len())
		}
		out[i] = st
	}
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		j, _ := slices.BinarySearchFunc(steps, k.Start, func(s Step, x int64) int {
			if s.End <= x {
				return -1
			}
			return 1
		})
		if j < len(steps) && steps[j].Start <= k.Start && k.Start < steps[j].End {
			out[j].Kernels++
		}
	}
	return out
}
