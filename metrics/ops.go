package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// A ScopeStat is the GPU work launched from inside one host op or code
// region, on one device: TensorBoard's operator view, HTA's op-to-kernel
// map.
type ScopeStat struct {
	Name string
	// Calls counts the instances of the op or region that launched GPU
	// work on the device; CPUNS is their duration, summed.
	Calls int
	CPUNS int64
	// Kernels counts the kernels, copies and memsets launched from inside
	// (graph replays count each kernel), GPUNS their durations, summed.
	Kernels int
	GPUNS   int64
	Share   float64 // GPUNS / the GPU time of all work on the device
	// Replayed counts the kernels among Kernels that a graph launch
	// inside the op replayed, not named by a capture; Captured those named
	// by the capture's launch calls (CaptureMatch), which the op made
	// while the graph was captured, in another run: its Calls and CPUNS
	// are this trace's alone.
	Replayed, Captured int
	// Replays counts the executions of the op instances that captured
	// those kernels: each graph launch replaying an instance, once. They
	// are the calls of Work's CostedCalls for a captured op.
	Replays int
	// Work is what the instances computed, where the trace recorded
	// their shapes (trace.Needs.Shapes); zero otherwise.
	Work OpWork
}

// NoScope names the GPU work whose launch call no op or region encloses,
// or that has no launch call in the trace.
const NoScope = "(none)"

// callScopes returns, for each needed API call, the innermost cpu_op and
// the innermost record_function annotation or NVTX range (not a step)
// open on its thread when it began; nil where none is.
func callScopes(t *trace.Trace, need []bool) (opOf, regionOf []*trace.Op) {
	opOf = make([]*trace.Op, len(t.APICalls))
	regionOf = make([]*trace.Op, len(t.APICalls))
	eachCallScope(t, need, func(ci int, open []*trace.Op) {
		for _, o := range slices.Backward(open) {
			switch {
			case o.Kind == trace.CPUOp && opOf[ci] == nil:
				opOf[ci] = o
			case (o.Kind == trace.UserAnnotation || o.Kind == trace.NVTXRange) && regionOf[ci] == nil &&
				!strings.HasPrefix(o.Name, trace.StepPrefix):
				regionOf[ci] = o
			}
		}
	})
	return opOf, regionOf
}

// KernelScopes names, for each kernel of t by index, the op and the
// region Scopes attributes it to; "" where none encloses its launch call
// or the call is not in the trace. The trace must hold its cpu_ops.
func KernelScopes(t *trace.Trace) (ops, regions []string) {
	return CapturedKernelScopes(t, nil)
}

// CapturedKernelScopes is KernelScopes naming the kernels of graph
// launches by the launch calls m pairs them with, where it does.
func CapturedKernelScopes(t *trace.Trace, m *CaptureMatch) (ops, regions []string) {
	_, ops, regions = kernelScopes(t, m)
	return ops, regions
}

// An opInstance is one execution of an op: a trace's op (replay zero),
// or a captured op instance (Capture.ops) run by the graph launch of
// correlation replay.
type opInstance struct {
	op     *trace.Op
	replay corrKey
}

// kernelScopes is CapturedKernelScopes with, for each kernel, the op
// instance it names (op nil where none, or where a capture names the
// kernel without telling its instance's shapes).
func kernelScopes(t *trace.Trace, m *CaptureMatch) (opOfKernel []opInstance, ops, regions []string) {
	ix := newLaunchIndex(t)
	need := make([]bool, len(t.APICalls))
	calls := make([]int, len(t.Kernels))
	captured := make([]int, len(t.Kernels))
	for i := range t.Kernels {
		a := &t.Kernels[i].Activity
		if captured[i] = m.call(t, a); captured[i] >= 0 {
			calls[i] = -1
			continue
		}
		calls[i] = ix.call(a)
		if calls[i] >= 0 {
			need[calls[i]] = true
		}
	}
	opOf, regionOf := callScopes(t, need)
	ops, regions = make([]string, len(t.Kernels)), make([]string, len(t.Kernels))
	opOfKernel = make([]opInstance, len(t.Kernels))
	for i, ci := range calls {
		if cc := captured[i]; cc >= 0 {
			c := &m.c.calls[cc]
			ops[i], regions[i] = c.op, c.region
			if o, r, ok := m.instance(t, &t.Kernels[i].Activity); ok {
				opOfKernel[i] = opInstance{o, r.corr}
			}
			continue
		}
		if ci < 0 {
			continue
		}
		if o := opOf[ci]; o != nil {
			ops[i] = o.Name
			opOfKernel[i] = opInstance{op: o}
		}
		if r := regionOf[ci]; r != nil {
			regions[i] = r.Name
		}
	}
	return opOfKernel, ops, regions
}

// Scopes attributes each kernel, copy and memset of device dev to the
// innermost cpu_op, and to the innermost record_function annotation or
// NVTX range (steps, ProfilerStep#N, are not regions), open on the
// launching thread when its launch call began; graph-replayed kernels
// belong to the scopes of the graph launch. It returns the stats by op and
// by region, the most GPU time first, ties by name, NoScope among them.
func Scopes(t *trace.Trace, dev int) (ops, regions []ScopeStat) {
	return CapturedScopes(t, dev, nil)
}

// CapturedScopes is Scopes attributing the kernels of graph launches to
// the op and region of the launch calls m pairs them with, where it does.
func CapturedScopes(t *trace.Trace, dev int, m *CaptureMatch) (ops, regions []ScopeStat) {
	ops, regions, _ = scopes(t, dev, m)
	return ops, regions
}

// An instanceWork is the FLOPs of one op instance with a count, at the
// start of the first kernel, copy or memset it launched on the device:
// what places its work in a step (stepFlops).
type instanceWork struct {
	start, flops int64
}

// scopes is CapturedScopes with the work of each op instance that has a
// FLOP count, in no order.
func scopes(t *trace.Trace, dev int, m *CaptureMatch) (ops, regions []ScopeStat, work []instanceWork) {
	ix := newLaunchIndex(t)
	var acts []*trace.Activity
	var kernels []*trace.Kernel // acts[i] is kernels[i]'s for i < len(kernels)
	for i := range t.Kernels {
		if t.Kernels[i].Device == dev {
			kernels = append(kernels, &t.Kernels[i])
		}
	}
	need := make([]bool, len(t.APICalls))
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Device != dev {
			return
		}
		acts = append(acts, a)
		if ci := ix.call(a); ci >= 0 {
			need[ci] = true
		}
	})
	opOf, regionOf := callScopes(t, need)
	type agg struct {
		stat ScopeStat
		// instances are the op's instances seen, each the index of its
		// work when it has a FLOP count, −1 when not: those launched by
		// their op by the op alone (a key a third the size: a map entry
		// for every op instance), those replayed by a graph with the
		// replay.
		instances map[*trace.Op]int
		replays   map[opInstance]int
	}
	tally := newWorkTally()
	// kind: 0 launched one by one, 1 replayed by a graph, 2 named by a
	// capture, o then the capture's op instance and replay its graph
	// launch; k is a's kernel, nil for a copy or memset or on regions.
	add := func(m map[string]*agg, name string, o *trace.Op, a *trace.Activity, kind int, k *trace.Kernel, replay corrKey) {
		if o != nil {
			name = o.Name
		}
		g := m[name]
		if g == nil {
			g = &agg{stat: ScopeStat{Name: name}, instances: map[*trace.Op]int{}, replays: map[opInstance]int{}}
			m[name] = g
		}
		g.stat.Kernels++
		g.stat.GPUNS += a.Dur()
		switch kind {
		case 1:
			g.stat.Replayed++
		case 2:
			g.stat.Captured++
		}
		if o != nil {
			var w int
			var seen bool
			if replay == (corrKey{}) {
				w, seen = g.instances[o]
			} else {
				w, seen = g.replays[opInstance{o, replay}]
			}
			if !seen {
				w = -1
				if flops := g.stat.Work.Flops; o.Args != nil && tally.instance(&g.stat.Work, o) {
					w = len(work)
					work = append(work, instanceWork{a.Start, g.stat.Work.Flops - flops})
				}
				if replay == (corrKey{}) {
					g.instances[o] = w
				} else {
					g.replays[opInstance{o, replay}] = w
				}
				if kind == 2 { // a captured op's call was in the capture's run
					g.stat.Replays++
				} else {
					g.stat.Calls++
					g.stat.CPUNS += o.End - o.Start
				}
			}
			if w >= 0 {
				g.stat.Work.CostedGPUNS += a.Dur()
				work[w].start = min(work[w].start, a.Start)
			}
		}
		if k != nil {
			tally.kernel(&g.stat.Work, o, a, k)
		}
	}
	byOp, byRegion := map[string]*agg{}, map[string]*agg{}
	var total int64
	graph := make([]int8, len(t.APICalls)) // 0 unknown, 1 a graph launch, 2 not
	for i, a := range acts {
		var k *trace.Kernel
		if i < len(kernels) {
			k = kernels[i]
		}
		total += a.Dur()
		if cc := m.call(t, a); cc >= 0 {
			op, region := m.scope(cc)
			o, r, _ := m.instance(t, a)
			add(byOp, op, o, a, 2, k, r.corr)
			add(byRegion, region, nil, a, 2, nil, corrKey{})
			continue
		}
		var op, region *trace.Op
		kind := 0
		if ci := ix.call(a); ci >= 0 {
			op, region = opOf[ci], regionOf[ci]
			if graph[ci] == 0 {
				graph[ci] = 2
				if IsGraphLaunch(t.APICalls[ci].Name) {
					graph[ci] = 1
				}
			}
			if graph[ci] == 1 {
				kind = 1
			}
		}
		add(byOp, NoScope, op, a, kind, k, corrKey{})
		add(byRegion, NoScope, region, a, kind, nil, corrKey{})
	}
	done := func(m map[string]*agg) []ScopeStat {
		out := make([]ScopeStat, 0, len(m))
		for _, g := range m {
			if total > 0 {
				g.stat.Share = float64(g.stat.GPUNS) / float64(total)
			}
			out = append(out, g.stat)
		}
		slices.SortFunc(out, func(a, b ScopeStat) int { return cmp.Or(cmp.Compare(b.GPUNS, a.GPUNS), cmp.Compare(a.Name, b.Name)) })
		return out
	}
	return done(byOp), done(byRegion), work
}
