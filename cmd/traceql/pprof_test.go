package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceql/traceql/trace"
)

// TestPprofTotals: the profile's GPU time is the trace's kernel time, and
// graph-replayed kernels sit under the graph launch.
func TestPprofTotals(t *testing.T) {
	tests := []struct {
		file         string
		frame        string // a frame that must appear
		graphLaunch  string
		graphKernels int64
	}{
		{sample, "train_step", "", 0},
		{filepath.Join(realTraces(t), "kineto/vllm_decode_mi300x_hipgraph.json.gz"), "_model_forward", "hipGraphLaunch", 421},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "gpu.pb.gz")
			if _, errOut, code := traceql("pprof", tt.file, "-o", out); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := profile.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := trace.Open(context.Background(), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var wantNS, gotNS, gotN, underGraph int64
			for i := range tr.Kernels {
				wantNS += tr.Kernels[i].Dur()
			}
			seen := false
			for _, s := range p.Sample {
				gotNS += s.Value[0]
				gotN += s.Value[1]
				for _, l := range s.Location {
					name := l.Line[0].Function.Name
					seen = seen || name == tt.frame
					if tt.graphLaunch != "" && name == tt.graphLaunch {
						underGraph += s.Value[1]
					}
				}
			}
			if gotNS != wantNS || gotN != int64(len(tr.Kernels)) {
				t.Errorf("profile: %d ns in %d kernels, trace: %d ns in %d kernels", gotNS, gotN, wantNS, len(tr.Kernels))
			}
			if !seen {
				t.Errorf("no frame %q in the profile", tt.frame)
			}
			if underGraph != tt.graphKernels {
				t.Errorf("%d kernels under %s, want %d", underGraph, tt.graphLaunch, tt.graphKernels)
			}
		})
	}
}
