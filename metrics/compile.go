package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/traceql/traceql/trace"
)

func isCompiledFunction(name string) bool {
	return name == trace.CompiledFunctionName || name == trace.CompiledFunctionBackwardName
}

// CompileStats is what a trace says of torch.compile on the host, the
// same for every device.
type CompileStats struct {
	Regions    int // calls of Torch-Compiled Region ops
	Frames     int // distinct frame ids F among them
	Recompiles int // distinct (F, R) with R > 0
	// FrameRecompiles lists, by frame, the frames with recompiles and how
	// many distinct R > 0 each has.
	FrameRecompiles []FrameRecompiles
	// CompiledFunctions counts AOTAutograd CompiledFunction and
	// CompiledFunctionBackward calls.
	CompiledFunctions int
	DynamoLookups     int
	// DynamoLookupNS is the sum of the durations of the Dynamo cache
	// lookups (they do not nest).
	DynamoLookupNS int64
	// CompiledHostNS is host time inside compiled code: per thread, the
	// length of the union of its compiled ranges (regions and
	// CompiledFunctions), summed over threads.
	CompiledHostNS int64
}

// FrameRecompiles is one frame's recompile count.
type FrameRecompiles struct {
	Frame      string
	Recompiles int
}

// Any reports whether the trace has any torch.compile op.
func (c *CompileStats) Any() bool {
	return c.Regions+c.CompiledFunctions+c.DynamoLookups > 0
}

// DeviceCompile is the torch.compile side of one device's kernels, with
// the trace's CompileStats.
type DeviceCompile struct {
	CompileStats
	// KernelNS is the kernel time launched from compiled code: kernels
	// whose launch call (eager or graph) lies within a compiled range — a
	// Torch-Compiled Region or an AOTAutograd CompiledFunction(Backward)
	// op — on the calling thread (same pid and tid).
	KernelNS int64
	// Share is KernelNS / the device's kernel_ns; 0 without kernels.
	Share float64
	// GraphKernelNS is the kernel time replayed by graph launch calls.
	GraphKernelNS int64
	// TopEager are the kernels not launched from compiled code, by total
	// time, when the trace has compiled ranges; their Share is of the
	// device's kernel_ns.
	TopEager []KernelStat
	// TopEagerOps are the host ops that launched those kernels: each
	// kernel not launched from compiled code goes to the innermost cpu_op
	// open on its launch call's thread when the call began (NoScope when
	// none, or no launch call), by GPU time, the most first, ties by name;
	// Share is of the device's kernel_ns. Only when Options.Scopes says
	// the trace holds its cpu_ops (a lean read leaves them out).
	TopEagerOps []ScopeStat
}

// A thread is a host thread.
type thread struct{ pid, tid int64 }

// compileInputs are what the devices' compile metrics read of the whole
// trace, found once for all of them.
type compileInputs struct {
	stats CompileStats
	// find are the findings' host ranges, read on the same pass.
	find findingRanges
	// ranges are the compiled ranges of each thread, merged.
	ranges map[thread][]Interval
}

// compileOps reads t's torch.compile ops (within t.Window, when set).
func compileOps(t *trace.Trace) compileInputs {
	var w compileInputs
	type fr struct{ f, r string }
	seen := map[fr]bool{}
	frames := map[string]int{} // frame → distinct R > 0
	for i := range t.Ops {
		op := &t.Ops[i]
		if op.Kind == trace.GPUAnnotation || op.Name == "" {
			continue
		}
		// The findings' host ranges are read on the same pass (their
		// names begin with O or a).
		if c := op.Name[0]; c == 'O' || c == 'a' {
			if win := t.Window; win == nil || overlaps(op.Start, op.End, win) {
				w.find.visit(op)
			}
			continue
		}
		if op.Name[0] != 'T' && op.Name[0] != 'C' {
			continue
		}
		if win := t.Window; win != nil && !overlaps(op.Start, op.End, win) {
			continue
		}
		switch {
		case strings.HasPrefix(op.Name, trace.CompiledRegionPrefix):
			w.stats.Regions++
			f, r := parseFrame(op.Name[len(trace.CompiledRegionPrefix):])
			if _, ok := frames[f]; !ok {
				frames[f] = 0
			}
			if !seen[fr{f, r}] {
				seen[fr{f, r}] = true
				if r != "0" {
					w.stats.Recompiles++
					frames[f]++
				}
			}
		case isCompiledFunction(op.Name):
			w.stats.CompiledFunctions++
		case op.Name == trace.DynamoLookupName:
			w.stats.DynamoLookups++
			w.stats.DynamoLookupNS += op.End - op.Start
			continue
		default:
			continue
		}
		if w.ranges == nil {
			w.ranges = map[thread][]Interval{}
		}
		k := thread{op.PID, op.TID}
		w.ranges[k] = append(w.ranges[k], Interval{op.Start, op.End})
	}
	w.find.done()
	w.stats.Frames = len(frames)
	for f, n := range frames {
		if n > 0 {
			w.stats.FrameRecompiles = append(w.stats.FrameRecompiles, FrameRecompiles{f, n})
		}
	}
	slices.SortFunc(w.stats.FrameRecompiles, func(a, b FrameRecompiles) int { return compareFrames(a.Frame, b.Frame) })
	for k, rs := range w.ranges {
		u := union(rs)
		w.ranges[k] = u
		w.stats.CompiledHostNS += length(u)
	}
	return w
}

// parseFrame splits "F/R" into F and R; R is "0" when absent, and a
// number is written without leading zeros.
func parseFrame(s string) (f, r string) {
	f, r, _ = strings.Cut(s, "/")
	norm := func(x string) string {
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		return x
	}
	f, r = norm(strings.TrimSpace(f)), norm(strings.TrimSpace(r))
	if r == "" {
		r = "0"
	}
	return f, r
}

// compareFrames orders frame ids numerically when both are numbers.
func compareFrames(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b))
}

// inRanges reports whether [start, end] lies within one of the merged
// ranges rs.
func inRanges(rs []Interval, start, end int64) bool {
	i, _ := slices.BinarySearchFunc(rs, start, func(iv Interval, x int64) int {
		if iv.End < x {
			return -1
		}
		if iv.Start > x {
			return 1
		}
		return 0
	})
	return i < len(rs) && rs[i].Start <= start && end <= rs[i].End
}

// deviceCompile computes the compiled share of device dev's kernels, and
// the top topN kernels launched outside compiled code. It walks the
// kernels only when the trace has compiled ranges.
func deviceCompile(t *trace.Trace, dev int, ix launchIndex, w *compileInputs, kernelNS, graphNS int64, topN int) DeviceCompile {
	d := DeviceCompile{CompileStats: w.stats, GraphKernelNS: graphNS}
	if len(w.ranges) == 0 {
		return d
	}
	eager := newKernelAgg()
	last, lastIn := -1, false
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		in := false
		if ci := ix.call(&k.Activity); ci >= 0 {
			if ci != last {
				c := &t.APICalls[ci]
				last, lastIn = ci, inRanges(w.ranges[thread{c.PID, c.TID}], c.Start, c.End)
			}
			in = lastIn
		}
		if in {
			d.KernelNS += k.Dur()
		} else {
			eager.add(k.Name, k.Dur())
		}
	}
	if kernelNS > 0 {
		d.Share = float64(d.KernelNS) / float64(kernelNS)
	}
	eager.total = kernelNS // shares of the device's kernel time
	d.TopEager = top(eager.done(), topN, longestFirst)
	return d
}

// eagerOps attributes the kernels of device dev not launched from
// compiled code (as deviceCompile tells them) to the innermost cpu_op on
// the launching thread, as Scopes does for all GPU work; the topN by GPU
// time. Nil when the trace has no compiled ranges or no such kernels.
func eagerOps(t *trace.Trace, dev int, ix launchIndex, w *compileInputs, kernelNS int64, topN int) []ScopeStat {
	if len(w.ranges) == 0 {
		return nil
	}
	var eager []*trace.Kernel
	need := make([]bool, len(t.APICalls))
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		ci := ix.call(&k.Activity)
		if ci >= 0 {
			c := &t.APICalls[ci]
			if inRanges(w.ranges[thread{c.PID, c.TID}], c.Start, c.End) {
				continue
			}
			need[ci] = true
		}
		eager = append(eager, k)
	}
	if len(eager) == 0 {
		return nil
	}
	opOf := make(map[int]*trace.Op)
	eachCallScope(t, need, func(ci int, open []*trace.Op) {
		for _, o := range slices.Backward(open) {
			if o.Kind == trace.CPUOp {
				opOf[ci] = o
				return
			}
		}
	})
	byName := map[string]*ScopeStat{}
	seen := map[*trace.Op]bool{}
	for _, k := range eager {
		var op *trace.Op
		if ci := ix.call(&k.Activity); ci >= 0 {
			op = opOf[ci]
		}
		name := NoScope
		if op != nil {
			name = op.Name
		}
		st := byName[name]
		if st == nil {
			st = &ScopeStat{Name: name}
			byName[name] = st
		}
		st.Kernels++
		st.GPUNS += k.Dur()
		if op != nil && !seen[op] {
			seen[op] = true
			st.Calls++
			st.CPUNS += op.End - op.Start
		}
	}
	out := make([]ScopeStat, 0, len(byName))
	for _, st := range byName {
		if kernelNS > 0 {
			st.Share = float64(st.GPUNS) / float64(kernelNS)
		}
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b ScopeStat) int { return cmp.Or(cmp.Compare(b.GPUNS, a.GPUNS), cmp.Compare(a.Name, b.Name)) })
	return out[:min(len(out), topN)]
}

// EagerNote says what share of d's kernel time was launched outside
// compiled code, when the trace has compiled ranges and some was; "" when
// not. A graph break splits a function into frames (Dynamo compiles the
// code after the break as a frame of its own), so with one frame the
// eager time is code around the compiled function, not a break.
func EagerNote(d *DeviceSummary) string {
	c := &d.Compile
	if c.Regions+c.CompiledFunctions == 0 || d.KernelNS == 0 || c.KernelNS >= d.KernelNS {
		return ""
	}
	note := ShareText(d.KernelNS-c.KernelNS, d.KernelNS) + " of kernel time launches outside compiled regions (eager)"
	if c.Frames == 1 {
		return note + ": code around the one compiled frame, not graph breaks (which make more frames)"
	}
	return note + ": graph breaks?"
}

// RecompileNotes says, frame by frame, how many times each frame with
// recompiles was recompiled: its distinct R > 0.
func RecompileNotes(c *CompileStats) []string {
	var out []string
	for _, f := range c.FrameRecompiles {
		times := "times"
		if f.Recompiles == 1 {
			times = "time"
		}
		out = append(out, "frame "+f.Frame+" recompiled "+strconv.Itoa(f.Recompiles)+" "+times)
	}
	return out
}
