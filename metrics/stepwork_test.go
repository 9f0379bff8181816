package metrics_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// bruteStepFlops computes each step's FLOPs of device dev the slow way:
// every kernel, copy and memset to its launch call by correlation id
// (the last call of an id), the call to the cpu_op on its thread that
// encloses its start and began last (the innermost), that op's count
// (the profiler's flops argument, else the model's), and the op's FLOPs
// to every step holding the earliest start of its GPU work.
func bruteStepFlops(t *trace.Trace, dev int, steps []metrics.StepStat) []int64 {
	first := map[*trace.Op]int64{}
	visit := func(a *trace.Activity) {
		if a.Device != dev {
			return
		}
		var call *trace.APICall
		for i := range t.APICalls {
			c := &t.APICalls[i]
			if c.Correlation == a.Correlation && a.Correlation != 0 && (!t.Meta.CorrelationPerProcess || c.PID == a.PID) {
				call = c
			}
		}
		if call == nil {
			return
		}
		var op *trace.Op
		for i := range t.Ops {
			o := &t.Ops[i]
			if o.Kind != trace.CPUOp || o.PID != call.PID || o.TID != call.TID || o.Start > call.Start ||
				o.End < call.Start || o.End == call.Start && o.Start != call.Start {
				continue
			}
			if op == nil || o.Start > op.Start || o.Start == op.Start && o.End < op.End {
				op = o
			}
		}
		if op == nil {
			return
		}
		if s, ok := first[op]; !ok || a.Start < s {
			first[op] = a.Start
		}
	}
	for i := range t.Kernels {
		visit(&t.Kernels[i].Activity)
	}
	for i := range t.Memcpys {
		visit(&t.Memcpys[i].Activity)
	}
	for i := range t.Memsets {
		visit(&t.Memsets[i].Activity)
	}
	out := make([]int64, len(steps))
	for op, start := range first {
		if op.Args == nil {
			continue
		}
		flops := op.Args.Flops
		if !op.Args.HasFlops || flops < 0 {
			c, ok := metrics.OpCost(op.Name, op.Args)
			if !ok {
				continue
			}
			flops = c.Flops
		}
		for i, s := range steps {
			if s.Start <= start && start < s.End {
				out[i] += flops
			}
		}
	}
	return out
}

// checkStepWork checks each step's FLOPs and MFU of the trace at path
// against bruteStepFlops, and returns the FLOPs the steps hold and how
// many steps' MFU it checked.
func checkStepWork(t *testing.T, path string) (total int64, mfus int) {
	t.Helper()
	tr, err := trace.Options{Needs: &trace.Needs{Ops: true, Shapes: true, ShapesOf: metrics.ModelledOps()}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{Scopes: true, Flops: true})
	for _, d := range s.Devices {
		if len(d.Steps) == 0 {
			t.Fatalf("GPU %d: no steps", d.Device)
		}
		want := bruteStepFlops(tr, d.Device, d.Steps)
		var inSteps int64
		for i := range d.Steps {
			st := &d.Steps[i]
			got, ok := d.Util.StepFlops(st)
			if !ok || got != want[i] {
				t.Errorf("GPU %d step #%d: flops %d (ok %v), brute force %d", d.Device, st.Number, got, ok, want[i])
			}
			inSteps += got
			m, ok := d.Util.StepMFU(st)
			if ok != d.Util.HasMFU() {
				t.Errorf("GPU %d step #%d: MFU ok %v, device's %v (%s)", d.Device, st.Number, ok, d.Util.HasMFU(), d.Util.NoMFU)
			}
			if ok {
				mfus++
				wantMFU := float64(want[i]) / (float64(st.End-st.Start) * d.Util.PeakTFLOPS * 1e3)
				if math.Abs(m-wantMFU) > 1e-12*wantMFU {
					t.Errorf("GPU %d step #%d: MFU %g, want %g", d.Device, st.Number, m, wantMFU)
				}
			}
		}
		if inSteps > d.Util.Work.Flops {
			t.Errorf("GPU %d: the steps hold %d FLOPs, the device %d", d.Device, inSteps, d.Util.Work.Flops)
		}
		total += inSteps
	}
	return total, mfus
}

// TestStepFlopsReal checks the steps' FLOPs and MFU of the H200 traces
// recorded with shapes.
func TestStepFlopsReal(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(gpuTraces, "*_flops.pt.trace.json.gz"))
	if err != nil || len(paths) < 4 {
		t.Fatalf("want the 4 _flops traces in %s, found %v (%v)", gpuTraces, paths, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			total, mfus := checkStepWork(t, path)
			if mfus == 0 {
				t.Errorf("no step's MFU checked")
			}
			if total == 0 && filepath.Base(path) != "vit-small_reduce-overhead_b1_flops.pt.trace.json.gz" &&
				filepath.Base(path) != "vit-medium_reduce-overhead_b1_flops.pt.trace.json.gz" {
				t.Errorf("no FLOPs in the steps of an eager-launched run")
			}
		})
	}
}

// TestStepFlopsSynth checks them on generated traces: several devices,
// streams and steps, GEMM, convolution and elementwise ops with shapes,
// graph launches, both eras.
func TestStepFlopsSynth(t *testing.T) {
	for _, cfg := range []synth.Config{
		{Seed: 3, Devices: 2, Streams: 3, Steps: 4, KernelsPerStep: 40, GraphLaunches: 2},
		{Seed: 4, Devices: 1, Streams: 1, Steps: 3, KernelsPerStep: 25, Era: synth.Era2021},
	} {
		path := filepath.Join(t.TempDir(), "synth.json")
		if _, err := synth.WriteFile(path, cfg, false); err != nil {
			t.Fatal(err)
		}
		if total, mfus := checkStepWork(t, path); total == 0 || mfus == 0 {
			t.Errorf("seed %d: %d FLOPs in the steps, %d steps' MFU checked", cfg.Seed, total, mfus)
		}
	}
}
