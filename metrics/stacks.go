package metrics

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/traceql/traceql/trace"
)

// A StackSample is GPU time attributed to one host stack: the ops, Python
// frames, annotations and NVTX ranges open on the launching thread when the
// launch call began (outermost first), then the launch call, then the
// kernel name. The profiler step the launch fell in is not a frame but
// Step: as a frame it would split every stack into one copy a step.
type StackSample struct {
	Stack   []string
	Step    string // the ProfilerStep#N range open at the launch; "" if none
	GPUNS   int64  // kernel time
	Kernels int
}

// NoLaunch is the frame of kernels whose launching call is not in the trace.
const NoLaunch = "(no launch call)"

// KernelStacks attributes every kernel's time to the host stack that
// launched it. Kernels replayed by a graph share the graph launch's
// correlation id and so its stack. Samples are sorted by stack.
func KernelStacks(t *trace.Trace) []StackSample {
	return CapturedKernelStacks(t, nil)
}

// CapturedKernelStacks is KernelStacks giving the kernels of graph
// launches that m pairs with capture calls the stack of the call that
// captured them (the capture run's frames, then its launch call); the
// step is the replay's.
func CapturedKernelStacks(t *trace.Trace, m *CaptureMatch) []StackSample {
	ix := newLaunchIndex(t)
	callOf := make([]int, len(t.Kernels))
	captured := make([]int, len(t.Kernels))
	need := make([]bool, len(t.APICalls))
	for i := range t.Kernels {
		a := &t.Kernels[i].Activity
		callOf[i] = ix.call(a)
		if callOf[i] >= 0 {
			need[callOf[i]] = true
		}
		captured[i] = m.call(t, a)
	}
	stacks := callStacks(t, need)
	noLaunch := stacks.id([]string{NoLaunch})
	// The capture's stacks are numbered after the trace's own.
	var capBase int
	if m != nil {
		capBase = len(stacks.stacks)
		stacks.stacks = append(stacks.stacks, m.c.stacks.stacks...)
	}
	// A sample is a launching stack and a kernel name: kernels are
	// counted into their sample without building its stack, which is
	// made once a sample.
	type key struct {
		stack  int
		step   string
		kernel string
	}
	index := map[key]int{}
	var out []StackSample
	for i := range t.Kernels {
		k := &t.Kernels[i]
		kk := key{noLaunch, "", k.Name}
		if ci := callOf[i]; ci >= 0 {
			kk.stack, kk.step = stacks.ofCall[ci], stacks.stepOf[ci]
		}
		if cc := captured[i]; cc >= 0 {
			kk.stack = capBase + m.c.calls[cc].stack
		}
		j, ok := index[kk]
		if !ok {
			j = len(out)
			index[kk] = j
			stack := stacks.stacks[kk.stack]
			out = append(out, StackSample{Stack: append(stack[:len(stack):len(stack)], k.Name), Step: kk.step})
		}
		out[j].GPUNS += k.Dur()
		out[j].Kernels++
	}
	slices.SortFunc(out, func(a, b StackSample) int {
		if c := slices.Compare(a.Stack, b.Stack); c != 0 {
			return c
		}
		an, _ := stepNumber(a.Step) // by number: ProfilerStep#10 after #9
		bn, _ := stepNumber(b.Step)
		return cmp.Or(cmp.Compare(an, bn), cmp.Compare(a.Step, b.Step))
	})
	return out
}

// stackSet numbers the distinct host stacks of launch calls.
type stackSet struct {
	ids    map[string]int // the frames, each led by its length → index in stacks
	stacks [][]string
	ofCall []int    // API call index → its stack's index; only needed calls are set
	stepOf []string // API call index → the ProfilerStep#N range open at it, or ""
	buf    []byte
}

// id returns the number of the stack of these frames, outermost first.
func (s *stackSet) id(frames []string) int {
	s.buf = s.buf[:0]
	for _, f := range frames { // lengths, not a separator: a name may hold any byte
		s.buf = append(binary.AppendUvarint(s.buf, uint64(len(f))), f...)
	}
	if j, ok := s.ids[string(s.buf)]; ok { // no allocation for a stack met before
		return j
	}
	j := len(s.stacks)
	s.ids[string(s.buf)] = j
	s.stacks = append(s.stacks, slices.Clone(frames))
	return j
}

// callStacks finds, for each needed API call, the names of the host ranges
// open on its thread when it began, outermost first, followed by the
// call's own name. A ProfilerStep#N range is the call's step, not a frame.
func callStacks(t *trace.Trace, need []bool) *stackSet {
	s := &stackSet{ids: map[string]int{}, ofCall: make([]int, len(t.APICalls)), stepOf: make([]string, len(t.APICalls))}
	var frames []string
	eachCallScope(t, need, func(ci int, open []*trace.Op) {
		frames = frames[:0]
		for _, o := range open {
			if _, ok := stepNumber(o.Name); ok {
				s.stepOf[ci] = o.Name // the innermost, were steps ever nested
				continue
			}
			frames = append(frames, o.Name)
		}
		s.ofCall[ci] = s.id(append(frames, t.APICalls[ci].Name))
	})
	return s
}

// eachCallScope calls fn with each needed API call and the host ranges
// (ops, annotations, NVTX ranges, Python frames; not the device-side
// copies of annotations) open on its thread when it began, outermost
// first.
func eachCallScope(t *trace.Trace, need []bool, fn func(ci int, open []*trace.Op)) {
	type thread struct{ pid, tid int64 }
	calls := map[thread][]int{}
	for ci, ok := range need {
		if ok {
			c := &t.APICalls[ci]
			calls[thread{c.PID, c.TID}] = append(calls[thread{c.PID, c.TID}], ci)
		}
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
	var scope []*trace.Op
	for th, cs := range calls {
		slices.SortFunc(cs, func(a, b int) int { return cmp.Compare(t.APICalls[a].Start, t.APICalls[b].Start) })
		os := ops[th]
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
			scope = scope[:0]
			for _, o := range open {
				if o.End > at || o.End == at && o.Start == at {
					scope = append(scope, o)
				}
			}
			fn(ci, scope)
		}
	}
}

// popEnded drops ranges that ended at or before x from the top of a stack
// of nested ranges.
func popEnded(open []*trace.Op, x int64) []*trace.Op {
	for len(open) > 0 && open[len(open)-1].End <= x && !(open[len(open)-1].Start == x) {
		open = open[:len(open)-1]
	}
	return open
}
