package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// A StackSample is GPU time attributed to one host stack: the ops, Python
// frames, annotations and NVTX ranges open on the launching thread when the
// launch call began (outermost first), then the launch call, then the
// kernel name.
type StackSample struct {
	Stack   []string
	GPUNS   int64 // kernel time
	Kernels int
}

// NoLaunch is the frame of kernels whose launching call is not in the trace.
const NoLaunch = "(no launch call)"

// KernelStacks attributes every kernel's time to the host stack that
// launched it. Kernels replayed by a graph share the graph launch's
// correlation id and so its stack. Samples are sorted by stack.
func KernelStacks(t *trace.Trace) []StackSample {
	ix := newLaunchIndex(t)
	callOf := make([]int, len(t.Kernels))
	need := map[int]bool{}
	for i := range t.Kernels {
		callOf[i] = ix.call(&t.Kernels[i].Activity)
		if callOf[i] >= 0 {
			need[callOf[i]] = true
		}
	}
	stacks := callStacks(t, need)
	byKey := map[string]*StackSample{}
	for i := range t.Kernels {
		k := &t.Kernels[i]
		var stack []string
		if ci := callOf[i]; ci >= 0 {
			stack = append(slices.Clone(stacks[ci]), t.APICalls[ci].Name)
		} else {
			stack = []string{NoLaunch}
		}
		stack = append(stack, k.Name)
		key := strings.Join(stack, "\x00")
		s := byKey[key]
		if s == nil {
			s = &StackSample{Stack: stack}
			byKey[key] = s
		}
		s.GPUNS += k.Dur()
		s.Kernels++
	}
	out := make([]StackSample, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b StackSample) int { return slices.Compare(a.Stack, b.Stack) })
	return out
}

// callStacks returns, for each needed API call, the names of the host
// ranges open on its thread when it began, outermost first.
func callStacks(t *trace.Trace, need map[int]bool) map[int][]string {
	type thread struct{ pid, tid int64 }
	calls := map[thread][]int{}
	for ci := range need {
		c := &t.APICalls[ci]
		calls[thread{c.PID, c.TID}] = append(calls[thread{c.PID, c.TID}], ci)
	}
	ops := map[thread][]*trace.Op{}
	for i := range t.Ops {
		o := &t.Ops[i]
		if o.Kind == trace.GPUAnnotation {
			continue
		}
		th := thread{o.PID, o.TID}
		if _, ok := calls[th]; ok {
			ops[th] = append(ops[th], o)
		}
	}
	out := make(map[int][]string, len(need))
	for th, cs := range calls {
		slices.SortFunc(cs, func(a, b int) int { return cmp.Compare(t.APICalls[a].Start, t.APICalls[b].Start) })
		os := ops[th]
		// Parents before children: by start, the longer first.
		slices.SortStableFunc(os, func(a, b *trace.Op) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
		})
		var open []*trace.Op
		j := 0
		for _, ci := range cs {
			at := t.APICalls[ci].Start
			for ; j < len(os) && os[j].Start <= at; j++ {
				open = popEnded(open, os[j].Start)
				open = append(open, os[j])
			}
			open = popEnded(open, at)
			names := make([]string, 0, len(open))
			for _, o := range open {
				if o.End > at || o.End == at && o.Start == at {
					names = append(names, o.Name)
				}
			}
			out[ci] = names
		}
	}
	return out
}

// popEnded drops ranges that ended at or before x from the top of a stack
// of nested ranges.
func popEnded(open []*trace.Op, x int64) []*trace.Op {
	for len(open) > 0 && open[len(open)-1].End <= x && !(open[len(open)-1].Start == x) {
		open = open[:len(open)-1]
	}
	return open
}
