package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/traceql/traceql/trace"
	"github.com/traceql/traceql/trace/torchlog"
)

// CompileJoin is a structured compile log (TORCH_TRACE) joined to the
// runtime trace of the same process: each compile of a frame, "F/R" in
// the log, beside the calls of the profiler's "Torch-Compiled Region:
// F/R" ops. The columns are defined in FrameColumns.
type CompileJoin struct {
	Log *torchlog.Log
	// Frames are the compiles the log has and the regions the trace ran,
	// by frame and compile id; Log is nil for a region the log does not
	// have, and Calls 0 for a compile that did not run in the trace.
	Frames []CompiledFrame
	// Joined counts the frames both have.
	Joined int
	// Lookups and LookupNS are the TorchDynamo Cache Lookups that
	// preceded no region (FrameColumns "lookup_ns" says which do): the
	// frame they checked ran eagerly or was compiled then.
	Lookups  int
	LookupNS int64
	Devices  []FrameDevice
}

// CompiledFrame is one compile of a frame, its runtime calls and what
// the log says of it.
type CompiledFrame struct {
	Frame, Compile int
	Log            *torchlog.Compile // nil: not in the log
	Calls          int               // Torch-Compiled Region: F/R ops
	HostNS         int64             // per thread, the union of those ops' intervals, summed over threads
	Lookups        int               // TorchDynamo Cache Lookups charged to this frame
	LookupNS       int64             // their durations' sum
}

// ID is "F/R".
func (f *CompiledFrame) ID() string {
	return strconv.Itoa(f.Frame) + "/" + strconv.Itoa(f.Compile)
}

// FrameDevice is one device's kernel time by compiled frame.
type FrameDevice struct {
	Device   int
	KernelNS int64 // the device's kernel time (the kernel_ns metric)
	// FrameNS and FrameGraphNS are, index for index with
	// CompileJoin.Frames, the durations of the kernels whose launch call
	// lies within a call of that frame on the calling thread (the
	// innermost, when frames nest), and of those the kernels replayed by
	// graph launches.
	FrameNS, FrameGraphNS []int64
	// OutsideNS is the kernel time launched from none of the frames:
	// KernelNS − the sum of FrameNS (eager code, AOTAutograd's backward,
	// kernels without a launch call).
	OutsideNS int64
	// Kernels are the Triton kernels Inductor generated (names beginning
	// triton_) launched from frames, by (frame, name), the most time
	// first, each with the log's provenance when it has some.
	Kernels []FrameKernel
	// Triton and Traced count, index for index with CompileJoin.Frames,
	// the distinct Triton kernel names the frame ran and how many of
	// them the log's provenance of that compile names: a log with
	// provenance that names none ran other code than the trace did.
	Triton, Traced []int
}

// FrameKernel is one kernel name's time in one frame.
type FrameKernel struct {
	Frame   int // index in CompileJoin.Frames
	Name    string
	Count   int
	TotalNS int64
	Share   float64 // of the device's kernel time
	Source  *torchlog.KernelSource
}

// Share returns frame i's share of the device's kernel time, 0 without
// kernel time.
func (d *FrameDevice) Share(i int) float64 {
	if d.KernelNS == 0 {
		return 0
	}
	return float64(d.FrameNS[i]) / float64(d.KernelNS)
}

// CudagraphVerdict says whether frame i used CUDA graphs, from what the
// trace measured and what the log says: "replayed" when some of its
// kernels on the device were replayed by graph launches, "skipped" when
// none were and the log gives Inductor's reason for skipping them, "no"
// when none were and the frame ran, "" when it did not run.
func (j *CompileJoin) CudagraphVerdict(d *FrameDevice, i int) string {
	f := &j.Frames[i]
	switch {
	case d.FrameGraphNS[i] > 0:
		return "replayed"
	case f.Log != nil && f.Log.CudagraphSkip != "":
		return "skipped"
	case f.Calls > 0:
		return "no"
	}
	return ""
}

// regionCall is a call of a compiled frame on one thread.
type regionCall struct {
	start, end int64
	frame      int // index in CompileJoin.Frames
	parent     int // the enclosing call on the thread, -1 when none
}

// JoinCompileLog joins log to t's compiled regions (within t.Window,
// when set), listing at most topN kernels per device.
func JoinCompileLog(t *trace.Trace, log *torchlog.Log, topN int) *CompileJoin {
	j := &CompileJoin{Log: log}
	type fr struct{ f, r int }
	index := map[fr]int{}
	frameOf := func(f, r int) int {
		if i, ok := index[fr{f, r}]; ok {
			return i
		}
		index[fr{f, r}] = len(j.Frames)
		j.Frames = append(j.Frames, CompiledFrame{Frame: f, Compile: r})
		return len(j.Frames) - 1
	}
	for i := range log.Compiles {
		c := &log.Compiles[i]
		if c.ID.Autograd < 0 {
			j.Frames[frameOf(c.ID.Frame, c.ID.Compile)].Log = c
		}
	}
	// The compiled regions and the lookups, by thread, in start order.
	calls := map[thread][]regionCall{}
	type lookup struct{ start, end int64 }
	lookups := map[thread][]lookup{}
	for i := range t.Ops {
		op := &t.Ops[i]
		if op.Kind == trace.GPUAnnotation || op.Name == "" || op.Name[0] != 'T' {
			continue
		}
		if win := t.Window; win != nil && !overlaps(op.Start, op.End, win) {
			continue
		}
		k := thread{op.PID, op.TID}
		switch {
		case strings.HasPrefix(op.Name, trace.CompiledRegionPrefix):
			fs, rs := parseFrame(op.Name[len(trace.CompiledRegionPrefix):])
			f, errF := strconv.Atoi(fs)
			r, errR := strconv.Atoi(rs)
			if errF != nil || errR != nil {
				continue // not "F/R": nothing a log could name
			}
			calls[k] = append(calls[k], regionCall{op.Start, op.End, frameOf(f, r), -1})
		case op.Name == trace.DynamoLookupName:
			lookups[k] = append(lookups[k], lookup{op.Start, op.End})
		}
	}
	for k, cs := range calls {
		slices.SortStableFunc(cs, func(a, b regionCall) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end)) })
		// Each call's parent: the innermost earlier call enclosing it.
		var open []int
		for i := range cs {
			for len(open) > 0 && cs[open[len(open)-1]].end < cs[i].start {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && cs[i].end <= cs[open[len(open)-1]].end {
				cs[i].parent = open[len(open)-1]
			}
			open = append(open, i)
		}
		perFrame := map[int][]Interval{}
		for _, c := range cs {
			j.Frames[c.frame].Calls++
			perFrame[c.frame] = append(perFrame[c.frame], Interval{c.start, c.end})
		}
		for f, ivs := range perFrame {
			j.Frames[f].HostNS += length(union(ivs))
		}
		calls[k] = cs
	}
	// A lookup is charged to the frame whose call is the next compiled
	// region or lookup to start on its thread, at or after its end.
	for k, ls := range lookups {
		slices.SortFunc(ls, func(a, b lookup) int { return cmp.Compare(a.start, b.start) })
		cs := calls[k]
		for i, l := range ls {
			next, _ := slices.BinarySearchFunc(cs, l.end, func(c regionCall, x int64) int { return cmp.Compare(c.start, x) })
			if next < len(cs) && (i+1 >= len(ls) || ls[i+1].start > cs[next].start) {
				f := &j.Frames[cs[next].frame]
				f.Lookups++
				f.LookupNS += l.end - l.start
			} else {
				j.Lookups++
				j.LookupNS += l.end - l.start
			}
		}
	}
	slices.SortFunc(j.Frames, func(a, b CompiledFrame) int {
		return cmp.Or(cmp.Compare(a.Frame, b.Frame), cmp.Compare(a.Compile, b.Compile))
	})
	// Sorting moved the frames: the calls' indices follow.
	moved := make([]int, len(j.Frames))
	for i := range j.Frames {
		moved[index[fr{j.Frames[i].Frame, j.Frames[i].Compile}]] = i
	}
	for k, cs := range calls {
		for i := range cs {
			cs[i].frame = moved[cs[i].frame]
		}
		calls[k] = cs
	}
	for i := range j.Frames {
		if j.Frames[i].Log != nil && j.Frames[i].Calls > 0 {
			j.Joined++
		}
	}
	j.Devices = frameDevices(t, j, calls, topN)
	return j
}

// frameDevices computes each device's kernel time by frame.
func frameDevices(t *trace.Trace, j *CompileJoin, calls map[thread][]regionCall, topN int) []FrameDevice {
	ix := newLaunchIndex(t)
	byDev := map[int]*FrameDevice{}
	type key struct {
		frame int
		name  string
	}
	aggs := map[int]map[key]*FrameKernel{}
	var devs []int
	for i := range t.Kernels {
		k := &t.Kernels[i]
		d := byDev[k.Device]
		if d == nil {
			n := len(j.Frames)
			d = &FrameDevice{Device: k.Device, FrameNS: make([]int64, n), FrameGraphNS: make([]int64, n), Triton: make([]int, n), Traced: make([]int, n)}
			byDev[k.Device] = d
			aggs[k.Device] = map[key]*FrameKernel{}
			devs = append(devs, k.Device)
		}
		d.KernelNS += k.Dur()
		ci := ix.call(&k.Activity)
		if ci < 0 {
			continue
		}
		c := &t.APICalls[ci]
		f := innermostCall(calls[thread{c.PID, c.TID}], c.Start, c.End)
		if f < 0 {
			continue
		}
		d.FrameNS[f] += k.Dur()
		if IsGraphLaunch(c.Name) {
			d.FrameGraphNS[f] += k.Dur()
		}
		if !strings.HasPrefix(k.Name, "triton_") {
			continue
		}
		a := aggs[k.Device][key{f, k.Name}]
		if a == nil {
			a = &FrameKernel{Frame: f, Name: k.Name}
			aggs[k.Device][key{f, k.Name}] = a
		}
		a.Count++
		a.TotalNS += k.Dur()
	}
	slices.Sort(devs)
	out := make([]FrameDevice, 0, len(devs))
	for _, dev := range devs {
		d := byDev[dev]
		d.OutsideNS = d.KernelNS
		for _, ns := range d.FrameNS {
			d.OutsideNS -= ns
		}
		for _, a := range aggs[dev] {
			if d.KernelNS > 0 {
				a.Share = float64(a.TotalNS) / float64(d.KernelNS)
			}
			d.Triton[a.Frame]++
			if lc := j.Frames[a.Frame].Log; lc != nil {
				a.Source = lc.Kernels[a.Name]
			}
			if a.Source != nil {
				d.Traced[a.Frame]++
			}
			d.Kernels = append(d.Kernels, *a)
		}
		slices.SortFunc(d.Kernels, func(a, b FrameKernel) int {
			return cmp.Or(cmp.Compare(b.TotalNS, a.TotalNS), cmp.Compare(a.Frame, b.Frame), cmp.Compare(a.Name, b.Name))
		})
		if topN > 0 && len(d.Kernels) > topN {
			d.Kernels = d.Kernels[:topN]
		}
		out = append(out, *d)
	}
	return out
}

// innermostCall returns the frame of the innermost call in cs (one
// thread's, in start order, parents set) within which [start, end] lies,
// or -1.
func innermostCall(cs []regionCall, start, end int64) int {
	i, _ := slices.BinarySearchFunc(cs, start, func(c regionCall, x int64) int {
		if c.start <= x {
			return -1
		}
		return 1
	})
	// cs[i-1] is the last call begun at or before start; it or one of
	// its enclosing calls holds [start, end] if any does.
	for c := i - 1; c >= 0; c = cs[c].parent {
		if cs[c].start <= start && end <= cs[c].end {
			return cs[c].frame
		}
		if cs[c].parent < 0 {
			break
		}
	}
	return -1
}
