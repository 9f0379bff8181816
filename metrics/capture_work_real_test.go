package metrics_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestCaptureWorkRealH200 gives the H200's graph-replayed kernels the
// FLOPs of the ops that captured them, read with their shapes, and checks
// the GEMMs (aten::mm, aten::addmm) against a count made here: the
// capture's launch calls matched in order with each graph launch's
// kernels, as TestCaptureRealH200 does, each launch's innermost cpu_op
// and its "Input Dims" read with encoding/json, 2·M·K·N a call; an op
// instance's kernel time is its kernels' in one replay.
func TestCaptureWorkRealH200(t *testing.T) {
	capPath, repPath, captured, byLaunch := h200Pair(t)
	dims := func(e rawEvent) [][]int64 {
		var out [][]int64
		in, _ := e.Args["Input Dims"].([]any)
		for _, d := range in {
			var sz []int64
			l, _ := d.([]any)
			for _, x := range l {
				n, _ := x.(json.Number).Int64()
				sz = append(sz, n)
			}
			out = append(out, sz)
		}
		return out
	}
	gemm := func(name string, d [][]int64) int64 {
		a, b := 0, 1 // mm(self, mat2)
		if name == "aten::addmm" {
			a, b = 1, 2 // addmm(bias, mat1, mat2)
		}
		if len(d) <= b || len(d[a]) != 2 || len(d[b]) != 2 || d[a][1] != d[b][0] {
			t.Fatalf("%s with input dims %v", name, d)
		}
		return 2 * d[a][0] * d[a][1] * d[b][1]
	}
	flops := make([]int64, len(captured)) // by captured launch; 0 but for GEMMs
	for i, l := range captured {
		if l.op.Name == "aten::mm" || l.op.Name == "aten::addmm" {
			flops[i] = gemm(l.op.Name, dims(l.op))
		}
	}
	// What each GEMM kernel must carry: its instance's FLOPs and the
	// time of that instance's kernels in its replay; and the ops' sums.
	type want struct{ flops, opNS int64 }
	wantK := map[int64]want{} // by kernel start
	wantOp := map[string]*metrics.OpWork{}
	for _, ks := range byLaunch {
		if len(ks) != len(captured) {
			t.Fatalf("a graph launch of %d kernels; %d captured launches", len(ks), len(captured))
		}
		instNS := map[int64]int64{}
		for i, k := range ks {
			instNS[captured[i].opStart] += k.dur
		}
		for i, k := range ks {
			if flops[i] > 0 {
				wantK[k.ts] = want{flops[i], instNS[captured[i].opStart]}
			}
		}
		seen := map[int64]bool{}
		for i := range ks {
			l := captured[i]
			if flops[i] == 0 || seen[l.opStart] {
				continue
			}
			seen[l.opStart] = true
			w := wantOp[l.op.Name]
			if w == nil {
				w = &metrics.OpWork{}
				wantOp[l.op.Name] = w
			}
			w.Flops += flops[i]
			w.CostedCalls++
			w.CostedGPUNS += instNS[l.opStart]
		}
	}
	if len(byLaunch) != 10 || len(wantK) == 0 {
		t.Fatalf("%d graph launches, %d GEMM kernels; want 10 and some", len(byLaunch), len(wantK))
	}

	ctx := context.Background()
	shapes := trace.Needs{Ops: true, Polls: true, LaunchArgs: true, Shapes: true, ShapesOf: metrics.ModelledOps()}
	ct, err := trace.Options{Needs: &shapes}.Open(ctx, capPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := metrics.NewCapture(ct)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := trace.Options{Needs: &shapes}.Open(ctx, repPath)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Match(rt)
	_, _, work := metrics.KernelScopesWork(rt, m, metrics.PeakOverride{})
	checked := 0
	for i, k := range rt.Kernels {
		w, ok := wantK[k.Start]
		if !ok {
			continue
		}
		checked++
		if got := work[i]; !got.Costed || got.Flops != w.flops || got.OpKernelNS != w.opNS {
			t.Errorf("kernel %d (%s): FLOPs %d over %d ns (costed %v); the count here %d over %d ns",
				i, k.Name, got.Flops, got.OpKernelNS, got.Costed, w.flops, w.opNS)
		}
	}
	if checked != len(wantK) {
		t.Errorf("checked %d GEMM kernels of %d", checked, len(wantK))
	}
	ops, _ := metrics.CapturedScopes(rt, 0, m)
	for name, w := range wantOp {
		i := slices.IndexFunc(ops, func(o metrics.ScopeStat) bool { return o.Name == name })
		if i < 0 {
			t.Errorf("no %s among the ops", name)
			continue
		}
		got := ops[i]
		if got.Work.Flops != w.Flops || got.Work.CostedCalls != w.CostedCalls || got.Work.CostedGPUNS != w.CostedGPUNS || got.Replays != w.CostedCalls {
			t.Errorf("%s: %d FLOPs, %d costed calls (%d replays) over %d ns; the count here %d, %d over %d ns",
				name, got.Work.Flops, got.Work.CostedCalls, got.Replays, got.Work.CostedGPUNS, w.Flops, w.CostedCalls, w.CostedGPUNS)
		}
		t.Logf("%s: %d FLOPs in %d replayed calls over %d ns", name, w.Flops, w.CostedCalls, w.CostedGPUNS)
	}
	t.Logf("checked %d replayed GEMM kernels' FLOPs and instance time", checked)
}
