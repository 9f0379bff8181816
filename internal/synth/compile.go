package synth

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
)

// A CompileConfig describes a small Kineto trace of a torch.compile run,
// for the tests of the compile metrics: calls of compiled frames
// (Torch-Compiled Region: F/R, each after a TorchDynamo Cache Lookup) with
// recompiles, kernel and graph launches inside them and outside (eager),
// a launch call that begins inside a region and ends after it (not inside
// it), an AOTAutograd CompiledFunctionBackward on a second thread, a
// launch on that thread while the first is in a region (not compiled), and
// ProfilerStep#N ranges. HostOnly writes the host side alone: no launches,
// no kernels, as a CPU or MPS run records. Its truth is the CompileTrace
// written, event by event, for a test to compute from without the
// reader.
type CompileConfig struct {
	Seed       int64
	Calls      int   // compiled region calls (default 40)
	Recompiles []int // per frame, its compilations after the first (default {0, 2})
	Steps      int   // ProfilerStep#N ranges (default 4)
	HostOnly   bool
	// Speed divides the time of every op written, for an "eager vs
	// compiled" pair of host-only runs (default 1).
	Speed int64
}

// A CompileTrace is what WriteCompile wrote. Times are ns.
type CompileTrace struct {
	Ops     []CompileOp // cpu_ops, and the ProfilerStep#N user_annotations
	Calls   []CompileCall
	Kernels []IdleKernel // on device 0, stream 7
}

// A CompileOp is a cpu_op of process 100.
type CompileOp struct {
	Name       string
	TID        int64
	Start, End int64
}

// A CompileCall is a runtime call of process 100.
type CompileCall struct {
	Name       string
	TID        int64
	Start, End int64
	Corr       int64
}

// compileEagerOps are the ops the generator runs, inside regions or not.
var compileEagerOps = []string{"aten::mm", "aten::add", "aten::relu", "aten::copy_"}

// WriteCompile writes the trace cfg describes to w as Kineto JSON and
// returns what it wrote.
func WriteCompile(w io.Writer, cfg CompileConfig) (CompileTrace, error) {
	if cfg.Calls == 0 {
		cfg.Calls = 40
	}
	if cfg.Recompiles == nil {
		cfg.Recompiles = []int{0, 2}
	}
	if cfg.Steps == 0 {
		cfg.Steps = 4
	}
	if cfg.Speed == 0 {
		cfg.Speed = 1
	}
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), 52))
	var tr CompileTrace
	host := int64(10_000)
	free := int64(0) // when stream 7's last kernel ends
	corr := int64(1)
	// d draws a duration of lo to lo+n−1 tenths of a µs, divided by Speed.
	d := func(lo, n int64) int64 { return (lo + r.Int64N(n)) * 100 / cfg.Speed }
	op := func(name string, tid, start, end int64) {
		tr.Ops = append(tr.Ops, CompileOp{name, tid, start, end})
	}
	// launch writes a launch call on thread tid at host, its kernels after
	// it, and returns the call's end.
	launch := func(tid, at int64, graph bool, dur int64) int64 {
		if cfg.HostOnly {
			return at + dur
		}
		c := CompileCall{Name: "cudaLaunchKernel", TID: tid, Start: at, End: at + dur, Corr: corr}
		n := 1
		if graph {
			c.Name, n = "cudaGraphLaunch", 3
		}
		corr++
		tr.Calls = append(tr.Calls, c)
		start := max(free, at+2)
		for range n {
			k := IdleKernel{Name: idleKernelNames[r.IntN(4)].name, Stream: 7, Start: start, End: start + 1 + r.Int64N(900), Corr: c.Corr}
			tr.Kernels = append(tr.Kernels, k)
			start, free = k.End, k.End
		}
		return c.End
	}
	// eager runs an op with a launch or two inside.
	eager := func(tid, at int64) int64 {
		start := at
		at += d(5, 20)
		for range 1 + r.IntN(2) {
			at = launch(tid, at+d(1, 10), r.IntN(4) == 0, d(3, 10))
		}
		at += d(5, 20)
		op(compileEagerOps[r.IntN(len(compileEagerOps))], tid, start, at)
		return at
	}
	perStep := (cfg.Calls + cfg.Steps - 1) / cfg.Steps
	stepStart := host
	for i := range cfg.Calls {
		f := i % len(cfg.Recompiles)
		rc := r.IntN(cfg.Recompiles[f] + 1)
		// Dynamo's guard check, then the region.
		look := d(2, 30)
		op("TorchDynamo Cache Lookup", 100, host, host+look)
		host += look + d(1, 5)
		start := host
		host += d(1, 10)
		if r.IntN(3) == 0 { // another thread launches meanwhile: not compiled
			launch(200, start+1, false, d(1, 3))
		}
		for range 1 + r.IntN(3) {
			host = eager(100, host+d(1, 10))
		}
		if r.IntN(2) == 0 {
			host = launch(100, host+d(1, 10), true, d(5, 20))
		}
		// Now and then the last launch of a region outlives it.
		var straddle int64 = -1
		if r.IntN(5) == 0 {
			straddle = host + 1
		}
		host += d(3, 10)
		op(fmt.Sprintf("Torch-Compiled Region: %d/%d", f, rc), 100, start, host)
		if straddle >= 0 {
			host = max(host, launch(100, straddle, false, host-straddle+d(1, 5)))
		}
		// The backward on its own thread, and a launch there after it.
		if r.IntN(3) == 0 {
			bs := host - d(0, 20)
			be := launch(200, bs+d(1, 5), false, d(3, 10))
			be = launch(200, be+d(1, 5), r.IntN(2) == 0, d(3, 10)) + d(1, 5)
			op("CompiledFunctionBackward", 200, bs, be)
			launch(200, be+d(1, 10), false, d(3, 10))
		}
		// Eager work between compiled calls: graph breaks.
		for range r.IntN(3) {
			host = eager(100, host+d(1, 10))
		}
		host += d(5, 50)
		if (i+1)%perStep == 0 || i == cfg.Calls-1 {
			op(fmt.Sprintf("ProfilerStep#%d", (i+1+perStep-1)/perStep), 100, stepStart, host)
			host += d(1, 10)
			stepStart = host
		}
	}
	slices.SortStableFunc(tr.Ops, func(a, b CompileOp) int { return cmp.Compare(a.Start, b.Start) })
	slices.SortStableFunc(tr.Kernels, func(a, b IdleKernel) int { return cmp.Compare(a.Start, b.Start) })
	return tr, writeCompile(w, tr)
}

// writeCompile writes tr as a Kineto trace, times as µs with a 3-digit ns
// fraction.
func writeCompile(w io.Writer, tr CompileTrace) error {
	ew := newEventWriter(w, "Compile Test GPU")
	us, event := eventTime, ew.event
	for _, o := range tr.Ops {
		cat := "cpu_op"
		if strings.HasPrefix(o.Name, "ProfilerStep#") {
			cat = "user_annotation"
		}
		event(`{"ph": "X", "cat": %q, "name": %q, "pid": 100, "tid": %d, "ts": %s, "dur": %s}`,
			cat, o.Name, o.TID, us(o.Start), us(o.End-o.Start))
	}
	for _, c := range tr.Calls {
		event(`{"ph": "X", "cat": "cuda_runtime", "name": %q, "pid": 100, "tid": %d, "ts": %s, "dur": %s, "args": {"correlation": %d}}`,
			c.Name, c.TID, us(c.Start), us(c.End-c.Start), c.Corr)
	}
	for _, k := range tr.Kernels {
		event(`{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"device": 0, "stream": 7, "correlation": %d}}`,
			k.Name, us(k.Start), us(k.End-k.Start), k.Corr)
	}
	return ew.close()
}
