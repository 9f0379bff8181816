package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/traceql/traceql/trace"
)

// A Step is one profiler step window, ProfilerStep#N.
type Step struct {
	Number     int
	Start, End int64
	// Source says where the window comes from: "gpu" (the
	// gpu_user_annotation copy), "projected" (the CPU range projected onto
	// the GPU) or "cpu" (the CPU range: it launched no GPU work).
	Source string
}

// Steps returns the ProfilerStep#N windows of a trace, by number. The
// device-side copies (gpu_user_annotation) are used when the trace has
// them, each step from the first start to the last end of its copies on
// all devices (see DeviceSteps for one device's own); otherwise the CPU
// ranges (user_annotation, or a 2021 Operator) are projected onto the GPU
// as TensorBoard's profiler plugin does: a step runs from its host start,
// or the end of the step before when that is later, to its host end, or
// the last end of the GPU work launched by API calls made inside it when
// that is later. The host time before the GPU work, such as loading data,
// is part of the step, and steps do not overlap. A clipped trace has the
// steps of its window (see windowed), found in the whole trace.
//
// Device-side copies that cover under half of the GPU work their CPU steps
// launched are not the steps (a ROCm trace's copies last 17 µs where its
// steps launch 16 ms of work): the CPU ranges are projected instead, and
// the warning says so.
func Steps(t *trace.Trace) []Step {
	out, _ := steps(t)
	return out
}

// minStepCover is the least share of the GPU work launched inside the CPU
// steps that their device-side copies must cover to be used.
const minStepCover = 0.5

// steps is Steps, with a warning when the device-side copies were refused.
func steps(t *trace.Trace) (out []Step, warning string) {
	whole := cmp.Or(t.Unclipped, t)
	gpu, cpu := collectSteps(whole.Ops)
	var p *projector
	if len(gpu) > 0 && len(cpu) > 0 && suspectCopies(gpu, cpu) {
		p = new(newProjector(whole))
		if cover, ok := p.cover(gpu, cpu); ok && cover < minStepCover {
			warning = fmt.Sprintf("the device-side copies of ProfilerStep#N (gpu_user_annotation) cover %.1f %% of the GPU work "+
				"their CPU steps launched: steps are the CPU ranges projected onto the GPU instead", 100*cover)
			gpu = nil
		}
	}
	if len(gpu) > 0 {
		return windowed(t, gpu), ""
	}
	if len(cpu) == 0 {
		return nil, warning
	}
	if p == nil {
		p = new(newProjector(whole))
	}
	p.projectAll(cpu)
	return windowed(t, cpu), warning
}

// suspectCopies reports whether the device-side step windows gpu last
// less, in all, than half of the CPU steps cpu: only then is it worth
// checking what they cover (copies of a GPU-bound run last as long as its
// steps or longer; those of a host-bound run may not).
func suspectCopies(gpu, cpu []Step) bool {
	var g, c float64
	for _, s := range gpu {
		g += float64(s.End - s.Start)
	}
	for _, s := range cpu {
		c += float64(s.End - s.Start)
	}
	return g < minStepCover*c
}

// DeviceSteps returns the steps of device dev: its own gpu_user_annotation
// copies when it has some (one process driving two GPUs annotates each),
// else all, the trace's Steps.
func DeviceSteps(t *trace.Trace, dev int, all []Step) []Step {
	return deviceSteps(t, all, gpuStepOps(t)[int64(dev)])
}

// deviceSteps is DeviceSteps given the device's ProfilerStep#N
// gpu_user_annotation ops.
func deviceSteps(t *trace.Trace, all []Step, ops []trace.Op) []Step {
	if len(all) == 0 || all[0].Source != "gpu" {
		return all
	}
	own, _ := collectSteps(ops) // ops are gpu_user_annotations
	if len(own) == 0 {
		return all
	}
	return windowed(t, own)
}

// gpuStepOps returns the ProfilerStep#N gpu_user_annotation ops of t by
// device (their PID), in one pass for all devices.
func gpuStepOps(t *trace.Trace) map[int64][]trace.Op {
	out := map[int64][]trace.Op{}
	for i := range t.Ops {
		if op := &t.Ops[i]; op.Kind == trace.GPUAnnotation && strings.HasPrefix(op.Name, trace.StepPrefix) {
			out[op.PID] = append(out[op.PID], *op)
		}
	}
	return out
}

// collectSteps returns the ProfilerStep#N ranges among ops, those of the
// device-side copies (gpu_user_annotation) and the others, each by number
// and from the first start to the last end of the ranges of its number (one
// step is seen on several streams or threads). One pass: a trace holds
// millions of ops.
func collectSteps(ops []trace.Op) (gpu, cpu []Step) {
	// Each side's steps in order of first appearance, and each number's
	// place there: no object a step, of which a long trace has hundreds
	// of thousands.
	var out [2][]Step
	at := [2]map[int]int{{}, {}}
	for i := range ops {
		op := &ops[i]
		n, ok := stepNumber(op.Name)
		if !ok {
			continue
		}
		side, src := 1, "cpu"
		if op.Kind == trace.GPUAnnotation {
			side, src = 0, "gpu"
		}
		if j, ok := at[side][n]; ok {
			s := &out[side][j]
			s.Start, s.End = min(s.Start, op.Start), max(s.End, op.End)
			continue
		}
		at[side][n] = len(out[side])
		out[side] = append(out[side], Step{Number: n, Start: op.Start, End: op.End, Source: src})
	}
	for _, steps := range out {
		slices.SortFunc(steps, func(a, b Step) int { return cmp.Compare(a.Number, b.Number) })
	}
	return out[0], out[1]
}

// stepNumber returns N of a range named ProfilerStep#N.
func stepNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, trace.StepPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// windowed keeps the steps of a clipped trace's window: those selected by
// number, or else those lying inside it. In a trace with GPU activity, a
// step whose host range launched nothing inside the window is not one.
func windowed(t *trace.Trace, steps []Step) []Step {
	w := t.Window
	if w == nil {
		return steps
	}
	if w.Steps != nil {
		// A set, not a search of the list a step, which is quadratic in
		// the steps of a long run.
		sel := make(map[int]bool, len(w.Steps))
		for _, n := range w.Steps {
			sel[n] = true
		}
		return slices.DeleteFunc(steps, func(s Step) bool { return !sel[s.Number] })
	}
	gpu := len(t.Kernels)+len(t.Memcpys)+len(t.Memsets) > 0
	return slices.DeleteFunc(steps, func(s Step) bool {
		return !(w.Holds(s.Start, s.End) && (s.Source != "cpu" || !gpu))
	})
}

// projectAll moves CPU step windows, sorted by number, onto the GPU
// timeline through the correlation of the calls launched inside them (see
// Steps).
func (p projector) projectAll(steps []Step) {
	prevEnd := int64(math.MinInt64)
	for i := range steps {
		s := &steps[i]
		if w, ok := p.project(Interval{s.Start, s.End}); ok {
			s.End, s.Source = max(s.End, w.End), "projected"
		}
		s.Start = min(max(s.Start, prevEnd), s.End)
		prevEnd = s.End
	}
}

// A projector maps host ranges to the device work launched inside them.
type projector struct {
	t    *trace.Trace
	work *corrTable[Interval] // correlation → span of the device work it launched
}

func newProjector(t *trace.Trace) projector {
	p := projector{t, newCorrTable[Interval](func(yield func(corrKey) bool) {
		t.EachGPUActivity(func(a *trace.Activity) {
			if a.Correlation != 0 {
				yield(keyOf(t, a.PID, a.Correlation))
			}
		})
	})}
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Correlation == 0 {
			return
		}
		w, seen := p.work.put(keyOf(t, a.PID, a.Correlation))
		if !seen {
			*w = Interval{a.Start, a.End}
		}
		*w = Interval{min(w.Start, a.Start), max(w.End, a.End)}
	})
	return p
}

// cover returns the share of the GPU work launched inside the CPU steps
// cpu that lies inside the device-side windows gpu of the same numbers,
// both sorted by number: the work of a step is the span from the first
// start to the last end of what its calls launched. ok is false when the
// steps numbered in both launched nothing.
func (p projector) cover(gpu, cpu []Step) (share float64, ok bool) {
	var in, all float64
	for i, j := 0, 0; i < len(gpu) && j < len(cpu); {
		switch g, c := gpu[i], cpu[j]; {
		case g.Number < c.Number:
			i++
		case g.Number > c.Number:
			j++
		default:
			if w, ok := p.project(Interval{c.Start, c.End}); ok {
				all += float64(w.Len())
				in += float64(max(min(w.End, g.End)-max(w.Start, g.Start), 0))
			}
			i, j = i+1, j+1
		}
	}
	if all == 0 {
		return 0, false
	}
	return in / all, true
}

// project returns the span from the first start to the last end of the
// device work launched by API calls that began inside the host range r;
// ok is false when they launched none.
func (p projector) project(r Interval) (span Interval, ok bool) {
	calls := p.t.APICalls
	lo, _ := slices.BinarySearchFunc(calls, r.Start, func(c trace.APICall, x int64) int { return cmp.Compare(c.Start, x) })
	for _, c := range calls[lo:] {
		if c.Start >= r.End {
			break
		}
		if c.Correlation == 0 {
			continue
		}
		w := p.work.get(keyOf(p.t, c.PID, c.Correlation))
		if w == nil {
			continue
		}
		if !ok {
			span, ok = *w, true
		}
		span = Interval{min(span.Start, w.Start), max(span.End, w.End)}
	}
	return span, ok
}

// rangeParts returns the union of the ranges named name: annotations
// (record_function user_annotation, gpu_user_annotation) or NVTX ranges,
// each occurrence its time, overlapping ones merged; the time between
// occurrences is not theirs. Host ranges are projected onto the GPU as
// steps are; the device-side copies win when the trace has them.
func rangeParts(t *trace.Trace, name string) ([]Interval, error) {
	var host, dev []Interval
	for _, op := range t.Ops {
		if op.Name != name {
			continue
		}
		if op.Kind == trace.GPUAnnotation {
			dev = append(dev, Interval{op.Start, op.End})
		} else {
			host = append(host, Interval{op.Start, op.End})
		}
	}
	switch {
	case len(dev) > 0:
		return union(dev), nil
	case len(host) == 0:
		return nil, fmt.Errorf("no range, annotation or op named %q", name)
	}
	p := newProjector(t)
	var proj []Interval
	for _, h := range host {
		if w, ok := p.project(h); ok {
			proj = append(proj, w)
		}
	}
	if len(proj) == 0 {
		return union(host), nil
	}
	return union(proj), nil
}

// selectSteps keeps the steps numbered from..to inclusive; a bound < 0 is
// open. skip drops that many of the first remaining steps.
func selectSteps(steps []Step, from, to, skip int) []Step {
	var out []Step
	for _, s := range steps {
		if (from < 0 || s.Number >= from) && (to < 0 || s.Number <= to) {
			out = append(out, s)
		}
	}
	return out[min(skip, len(out)):]
}

// A StepStat is what one device did during one step.
type StepStat struct {
	Step
	Kernels int   // kernels that started inside the window
	BusyNS  int64 // GPU activity inside the window (union, clipped)
	IdleNS  int64 // window length − BusyNS
	Util    float64
	// Classes split BusyNS by what the device is busy with: they add up
	// to BusyNS. Host splits IdleNS by what the host was in meanwhile.
	Classes BusyClasses
	Host    HostClasses
	// Idle splits IdleNS by cause, by the device's rule (ClassifyGaps):
	// IdleSyncNS + IdleLaunchNS + IdleOtherNS = IdleNS.
	IdleSyncNS, IdleLaunchNS, IdleOtherNS int64
	// Flops are the FLOPs of the op instances with a count whose first
	// kernel, copy or memset on the device starts inside the window, as
	// a kernel counts in Kernels; summed only where the ops were counted
	// (Options.Flops: DeviceSummary.Util), 0 otherwise.
	Flops int64
}

// DurNS is the step's length.
func (s StepStat) DurNS() int64 { return s.End - s.Start }

// StepStats measures each step window on one device.
func StepStats(t *trace.Trace, dev int) []StepStat {
	out := stepStats(t, dev, DeviceSteps(t, dev, Steps(t)), deviceBusy(t, dev))
	if len(out) > 0 {
		ex := exposedIntervals(deviceClasses(t, dev))
		host, busy := collectHostRanges(t), deviceBusy(t, dev)
		for i := range out {
			w := Interval{out[i].Start, out[i].End}
			out[i].Classes = classesIn(&ex, w)
			out[i].Host = stepHostClasses(busy, &host, w)
		}
		idle := newStepIdle(out)
		classifyGaps(t, dev, newLaunchIndex(t), hostSyncs(t), idle.gaps(Gaps(busy), busy), nil, idle.syncs, func(g ClassifiedGap) { idle.add(g) })
	}
	return out
}

func stepStats(t *trace.Trace, dev int, steps []Step, busy []Interval) []StepStat {
	if len(steps) == 0 {
		return nil
	}
	out := make([]StepStat, len(steps))
	from := 0 // where the last step's search ended: steps come in order of start
	for i, s := range steps {
		w := Interval{s.Start, s.End}
		st := StepStat{Step: s}
		st.BusyNS, from = lengthFrom(busy, w, from)
		st.IdleNS = w.Len() - st.BusyNS
		if w.Len() > 0 {
			st.Util = float64(st.BusyNS) / float64(w.Len())
		}
		out[i] = st
	}
	// Windows from gpu_user_annotation copies may overlap (one step's
	// copies on several streams): a kernel counts in every window it
	// starts in. The kernels are sorted by start.
	for i, s := range steps {
		lo, _ := slices.BinarySearchFunc(t.Kernels, s.Start, func(k trace.Kernel, start int64) int { return cmp.Compare(k.Start, start) })
		for j := lo; j < len(t.Kernels) && t.Kernels[j].Start < s.End; j++ {
			if t.Kernels[j].Device == dev {
				out[i].Kernels++
			}
		}
	}
	return out
}

// WarmupSteps returns how many leading steps look like warm-up or
// compilation: each lasting more than twice the median step time. It is
// the one steady-state rule: summarize flags these steps, and --steady
// leaves them out of every command.
func WarmupSteps(steps []StepStat) int {
	durs := make([]int64, len(steps))
	for i, s := range steps {
		durs[i] = s.DurNS()
	}
	return warmup(durs)
}

// WarmupWindows is WarmupSteps for step windows not yet measured.
func WarmupWindows(steps []Step) int {
	durs := make([]int64, len(steps))
	for i, s := range steps {
		durs[i] = s.End - s.Start
	}
	return warmup(durs)
}

// warmup counts the leading durations over twice the median of all, in
// step order, keeping at least one step; none among fewer than 3.
func warmup(durs []int64) int {
	if len(durs) < 3 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(durs))
	med := Median(sorted)
	n := 0
	for n < len(durs)-1 && float64(durs[n]) > 2*med {
		n++
	}
	return n
}

// stepFlops adds to each step the FLOPs of the op instances whose work
// starts inside it (StepStat.Flops); windows that overlap both count an
// instance starting in each.
func stepFlops(steps []StepStat, work []instanceWork) {
	if len(steps) == 0 {
		return
	}
	slices.SortFunc(work, func(a, b instanceWork) int { return cmp.Compare(a.start, b.start) })
	for i := range steps {
		s := &steps[i]
		lo, _ := slices.BinarySearchFunc(work, s.Start, func(w instanceWork, start int64) int { return cmp.Compare(w.start, start) })
		for _, w := range work[lo:] {
			if w.start >= s.End {
				break
			}
			s.Flops += w.flops
		}
	}
}
