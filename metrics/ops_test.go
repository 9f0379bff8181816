package metrics_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// innermost finds, the slow way, the op that keep accepts open on the
// thread of call c when it began: the one that started last, of those the
// one that ends first, and of equal spans the later in file order (the
// callee: the reader keeps a span's ops in file order).
func innermost(t *trace.Trace, c *trace.APICall, keep func(*trace.Op) bool) *trace.Op {
	var best *trace.Op
	for i := range t.Ops {
		o := &t.Ops[i]
		if !keep(o) || o.PID != c.PID || o.TID != c.TID || o.Start > c.Start || !(o.End > c.Start || o.End == c.Start && o.Start == c.Start) {
			continue
		}
		if best == nil || o.Start > best.Start || o.Start == best.Start && o.End <= best.End {
			best = o
		}
	}
	return best
}

// bruteScopes attributes every GPU activity of dev by a linear search for
// its call and its innermost op, and sums GPU time and counts by name.
func bruteScopes(t *trace.Trace, dev int) map[string][2]int64 {
	calls := map[int64]*trace.APICall{}
	for i := range t.APICalls {
		if c := &t.APICalls[i]; c.Correlation != 0 {
			calls[c.Correlation] = c
		}
	}
	out := map[string][2]int64{}
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Device != dev {
			return
		}
		name := metrics.NoScope
		if c := calls[a.Correlation]; a.Correlation != 0 && c != nil {
			if o := innermost(t, c, func(o *trace.Op) bool { return o.Kind == trace.CPUOp }); o != nil {
				name = o.Name
			}
		}
		v := out[name]
		out[name] = [2]int64{v[0] + a.Dur(), v[1] + 1}
	})
	return out
}

// TestScopesReal: GPU time by host op on real Kineto traces (an A100
// training step, torch.compile with CUDA graphs, the 2021 ResNet schema)
// equals the slow count.
func TestScopesReal(t *testing.T) {
	dir := shared.Traces(t)
	for _, f := range []string{"hta/trace_diff/control/control.json.gz", "hta/negative_queue_length_values_check/rank0.json.gz",
		"kineto/resnet50_v100_workers0.pt.trace.json.gz"} {
		t.Run(f, func(t *testing.T) {
			tr, err := trace.Open(context.Background(), filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, dev := range metrics.ActiveDevices(tr) {
				want := bruteScopes(tr, dev)
				ops, _ := metrics.Scopes(tr, dev)
				if len(ops) != len(want) {
					t.Errorf("GPU %d: %d ops, the slow count has %d", dev, len(ops), len(want))
				}
				for _, o := range ops {
					if w := want[o.Name]; o.GPUNS != w[0] || int64(o.Kernels) != w[1] {
						t.Errorf("GPU %d %s: %d ns in %d, want %d ns in %d", dev, o.Name, o.GPUNS, o.Kernels, w[0], w[1])
					}
				}
			}
		})
	}
}

// TestScopesNesting: a kernel is the innermost op's and region's, also
// when that op ended before the kernel ran; graph replays belong to the
// graph launch's op; a launch outside every op is NoScope.
func TestScopesNesting(t *testing.T) {
	k := func(start, end, corr int64) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Start: start, End: end, Correlation: corr}, Name: "k"}
	}
	call := func(name string, start, corr int64) trace.APICall {
		return trace.APICall{Name: name, PID: 1, TID: 1, Start: start, End: start + 2, Correlation: corr}
	}
	op := func(name string, kind trace.OpKind, s, e int64) trace.Op {
		return trace.Op{Name: name, Kind: kind, PID: 1, TID: 1, Start: s, End: e}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Streams: []trace.Stream{{Device: 0, ID: 0}},
		Kernels: []trace.Kernel{k(100, 110, 1), k(110, 130, 2), k(130, 135, 3), k(135, 140, 3), k(150, 160, 4)},
		APICalls: []trace.APICall{call("cudaLaunchKernel", 12, 1), call("cudaLaunchKernel", 22, 2),
			call("cudaGraphLaunch", 42, 3), call("cudaLaunchKernel", 70, 4)},
		Ops: []trace.Op{
			op("ProfilerStep#1", trace.UserAnnotation, 0, 60),
			op("block", trace.UserAnnotation, 5, 30),
			op("aten::linear", trace.CPUOp, 10, 30),
			op("aten::mm", trace.CPUOp, 11, 15),  // ends long before its kernel runs at 100
			op("aten::add", trace.CPUOp, 20, 25), // inside linear
			op("CompiledFunction", trace.CPUOp, 40, 50),
		},
	}
	ops, regions := metrics.Scopes(tr, 0)
	got := map[string]metrics.ScopeStat{}
	for _, o := range ops {
		got["op "+o.Name] = o
	}
	for _, r := range regions {
		got["region "+r.Name] = r
	}
	for name, want := range map[string][3]int64{ // GPU ns, kernels, calls
		"op aten::mm": {10, 1, 1}, "op aten::add": {20, 1, 1}, "op CompiledFunction": {10, 2, 1}, "op " + metrics.NoScope: {10, 1, 0},
		"region block": {30, 2, 1}, "region " + metrics.NoScope: {20, 3, 0},
	} {
		g := got[name]
		if g.GPUNS != want[0] || int64(g.Kernels) != want[1] || int64(g.Calls) != want[2] {
			t.Errorf("%s: %d ns, %d launched, %d calls; want %v", name, g.GPUNS, g.Kernels, g.Calls, want)
		}
	}
	if len(ops) != 4 || len(regions) != 2 {
		t.Errorf("ops %v, regions %v", ops, regions)
	}
	// Kernel by kernel, as export --table kernels names them.
	kops, kregions := metrics.KernelScopes(tr)
	wantOps := []string{"aten::mm", "aten::add", "CompiledFunction", "CompiledFunction", ""}
	wantRegions := []string{"block", "block", "", "", ""}
	for i := range tr.Kernels {
		if kops[i] != wantOps[i] || kregions[i] != wantRegions[i] {
			t.Errorf("kernel %d: op %q region %q, want %q %q", i, kops[i], kregions[i], wantOps[i], wantRegions[i])
		}
	}
}

// TestKernelScopesReal: each kernel's op, on real traces, is the one the
// slow search finds for its launch call.
func TestKernelScopesReal(t *testing.T) {
	dir := shared.Traces(t)
	checked := 0
	for _, f := range []string{"hta/negative_queue_length_values_check/rank0.json.gz", "kineto/resnet50_v100_workers0.pt.trace.json.gz"} {
		tr, err := trace.Open(context.Background(), filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		calls := map[int64]*trace.APICall{}
		for i := range tr.APICalls {
			if c := &tr.APICalls[i]; c.Correlation != 0 {
				calls[c.Correlation] = c
			}
		}
		ops, _ := metrics.KernelScopes(tr)
		for i := range tr.Kernels {
			want := ""
			if c := calls[tr.Kernels[i].Correlation]; tr.Kernels[i].Correlation != 0 && c != nil {
				if o := innermost(tr, c, func(o *trace.Op) bool { return o.Kind == trace.CPUOp }); o != nil {
					want = o.Name
				}
			}
			if ops[i] != want {
				t.Fatalf("%s kernel %d: op %q, want %q", f, i, ops[i], want)
			}
			if want != "" {
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no kernel with an op checked")
	}
}
