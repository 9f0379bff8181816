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
	opOf, regionOf := kernelScopes(t)
	return scopeNames(opOf), scopeNames(regionOf)
}

// kernelScopes returns, for each kernel of t by index, the op and the
// region Scopes attributes it to; nil where none.
func kernelScopes(t *trace.Trace) (opOfKernel, regionOfKernel []*trace.Op) {
	ix := newLaunchIndex(t)
	need := make([]bool, len(t.APICalls))
	calls := make([]int, len(t.Kernels))
	for i := range t.Kernels {
		calls[i] = ix.call(&t.Kernels[i].Activity)
		if calls[i] >= 0 {
			need[calls[i]] = true
		}
	}
	opOf, regionOf := callScopes(t, need)
	opOfKernel, regionOfKernel = make([]*trace.Op, len(t.Kernels)), make([]*trace.Op, len(t.Kernels))
	for i, ci := range calls {
		if ci >= 0 {
			opOfKernel[i], regionOfKernel[i] = opOf[ci], regionOf[ci]
		}
	}
	return opOfKernel, regionOfKernel
}

func scopeNames(ops []*trace.Op) []string {
	names := make([]string, len(ops))
	for i, o := range ops {
		if o != nil {
			names[i] = o.Name
		}
	}
	return names
}

// Scopes attributes each kernel, copy and memset of device dev to the
// innermost cpu_op, and to the innermost record_function annotation or
// NVTX range (steps, ProfilerStep#N, are not regions), open on the
// launching thread when its launch call began; graph-replayed kernels
// belong to the scopes of the graph launch. It returns the stats by op and
// by region, the most GPU time first, ties by name, NoScope among them.
func Scopes(t *trace.Trace, dev int) (ops, regions []ScopeStat) {
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
		// instances are the op's instances seen, each true when it
		// has a FLOP count.
		instances map[*trace.Op]bool
	}
	work := newWorkTally()
	tally := func(m map[string]*agg, o *trace.Op, a *trace.Activity, k *trace.Kernel) {
		name := NoScope
		if o != nil {
			name = o.Name
		}
		g := m[name]
		if g == nil {
			g = &agg{stat: ScopeStat{Name: name}, instances: map[*trace.Op]bool{}}
			m[name] = g
		}
		g.stat.Kernels++
		g.stat.GPUNS += a.Dur()
		if o != nil {
			costed, seen := g.instances[o]
			if !seen {
				costed = o.Args != nil && work.instance(&g.stat.Work, o)
				g.instances[o] = costed
				g.stat.Calls++
				g.stat.CPUNS += o.End - o.Start
			}
			if costed {
				g.stat.Work.CostedGPUNS += a.Dur()
			}
		}
		if k != nil {
			work.kernel(&g.stat.Work, o, a, k)
		}
	}
	byOp, byRegion := map[string]*agg{}, map[string]*agg{}
	var total int64
	for i, a := range acts {
		var op, region *trace.Op
		if ci := ix.call(a); ci >= 0 {
			op, region = opOf[ci], regionOf[ci]
		}
		var k *trace.Kernel
		if i < len(kernels) {
			k = kernels[i]
		}
		tally(byOp, op, a, k)
		tally(byRegion, region, a, nil)
		total += a.Dur()
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
	return done(byOp), done(byRegion)
}
