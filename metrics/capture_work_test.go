package metrics_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestCaptureWorkSynth gives generated graph replays the FLOPs of the
// aten::mm instances that captured them, and checks each kernel's work
// and the ops' sums against the generator's truth, summed here: an
// instance's FLOPs once per replay, over its kernels' time in that replay.
func TestCaptureWorkSynth(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  synth.CaptureConfig
	}{
		{"one stream", synth.CaptureConfig{Seed: 21, Shapes: true}},
		{"repeated graphs", synth.CaptureConfig{Seed: 22, Shapes: true, Graphs: 3, Replays: 5}},
		{"two streams, names", synth.CaptureConfig{Seed: 23, Shapes: true, Streams: 2, Names: true, Kernels: 12}},
		{"two streams, node ids", synth.CaptureConfig{Seed: 24, Shapes: true, Streams: 2, NodeIDs: true}},
		{"partial capture", synth.CaptureConfig{Seed: 25, Shapes: true, Missing: 3}},
		// Graphs told apart by their shapes alone: ops named, no FLOPs.
		{"variants", synth.CaptureConfig{Seed: 26, Shapes: true, Variants: true, Graphs: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var cb, rb bytes.Buffer
			truth, err := synth.WriteCapture(&cb, &rb, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			shapes := trace.Needs{Ops: true, Polls: true, LaunchArgs: true, Shapes: true, ShapesOf: metrics.ModelledOps()}
			open := func(name string, b []byte) *trace.Trace {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				tr, err := trace.Options{Needs: &shapes}.Open(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				return tr
			}
			capT, repT := open("capture.json", cb.Bytes()), open("replay.json", rb.Bytes())
			c, err := metrics.NewCapture(capT)
			if err != nil {
				t.Fatal(err)
			}
			m := c.Match(repT)

			// The truth: each replayed instance's kernel time, and the sums.
			type inst struct {
				corr int64
				op   string
			}
			instNS := map[inst]int64{}
			for _, k := range truth.Kernels {
				if k.Flops > 0 {
					instNS[inst{k.Corr, k.OpInstance}] += k.End - k.Start
				}
			}
			var want metrics.OpWork
			wantCaptured := 0
			seen := map[inst]bool{}
			for _, k := range truth.Kernels {
				if k.Op == "aten::mm" {
					wantCaptured++
				}
				if i := (inst{k.Corr, k.OpInstance}); k.Flops > 0 && !seen[i] {
					seen[i] = true
					want.Flops += k.Flops
					want.CostedCalls++
					want.CostedGPUNS += instNS[i]
				}
			}
			type key struct{ stream, start, end int64 }
			byKey := map[key]synth.CaptureKernel{}
			for _, k := range truth.Kernels {
				byKey[key{k.Stream, k.Start, k.End}] = k
			}

			ops, _, work := metrics.KernelScopesWork(repT, m, metrics.PeakOverride{})
			checked := 0
			for i, k := range repT.Kernels {
				w, ok := byKey[key{k.Stream, k.Start, k.End}]
				if !ok {
					t.Fatalf("kernel %d (%s) not in the truth", i, k.Name)
				}
				if w.Graph < 0 {
					continue
				}
				checked++
				if w.Op != "" && ops[i] != w.Op {
					t.Errorf("kernel %d: op %q; truth %q", i, ops[i], w.Op)
				}
				got := work[i]
				switch {
				case w.Flops == 0 && got.Costed:
					t.Errorf("kernel %d (%s, graph %d): %d FLOPs; the truth knows none", i, k.Name, w.Graph, got.Flops)
				case w.Flops > 0 && (!got.Costed || got.Flops != w.Flops || got.OpKernelNS != instNS[inst{w.Corr, w.OpInstance}]):
					t.Errorf("kernel %d (%s): %d FLOPs over %d ns; truth %d over %d ns", i, k.Name, got.Flops, got.OpKernelNS,
						w.Flops, instNS[inst{w.Corr, w.OpInstance}])
				}
			}
			if checked == 0 {
				t.Fatal("no graph kernel checked")
			}

			scopes, _ := metrics.CapturedScopes(repT, 0, m)
			var mm metrics.ScopeStat
			if i := slices.IndexFunc(scopes, func(s metrics.ScopeStat) bool { return s.Name == "aten::mm" }); i >= 0 {
				mm = scopes[i]
			}
			if mm.Captured != wantCaptured || mm.Work.Flops != want.Flops || mm.Work.CostedCalls != want.CostedCalls ||
				mm.Work.CostedGPUNS != want.CostedGPUNS || mm.Replays != want.CostedCalls || mm.Calls != 0 {
				t.Errorf("aten::mm: %d captured kernels, %d FLOPs in %d costed calls (%d replays, %d calls) over %d ns;\n"+
					"truth %d kernels, %d FLOPs in %d replayed calls over %d ns", mm.Captured, mm.Work.Flops, mm.Work.CostedCalls,
					mm.Replays, mm.Calls, mm.Work.CostedGPUNS, wantCaptured, want.Flops, want.CostedCalls, want.CostedGPUNS)
			}
			if tt.cfg.Variants != (want.Flops == 0) {
				t.Errorf("the truth has %d FLOPs; variants %v", want.Flops, tt.cfg.Variants)
			}
		})
	}
}
