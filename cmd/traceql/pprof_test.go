package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceql/traceql/trace"
)

// TestPprofTotals: the profile's GPU time is the trace's kernel time, and
// graph-replayed kernels sit under the graph launch.
func TestPprofTotals(t *testing.T) {
	tests := []struct {
		file         string
		frames       []string // frames that must appear
		graphLaunch  string
		graphKernels int64
	}{
		{sample, []string{"train_step", "aten::addmm"}, "", 0}, // a python_function and a cpu_op
		{filepath.Join(realTraces(t), "kineto/vllm_decode_mi300x_hipgraph.json.gz"), []string{"_model_forward"}, "hipGraphLaunch", 421},
		// An H100 torch.compile run with_stack: timm's forward, Python builtins named.
		{"../../testdata/gpu/vit-small_default_b1_stack.pt.trace.json.gz",
			[]string{"forward", "aten::addmm", "[built-in method argmax of Tensor object]"}, "", 0},
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
			seen := map[string]bool{}
			for _, s := range p.Sample {
				gotNS += s.Value[0]
				gotN += s.Value[1]
				for _, l := range s.Location {
					name := l.Line[0].Function.Name
					seen[name] = true
					if tt.graphLaunch != "" && name == tt.graphLaunch {
						underGraph += s.Value[1]
					}
				}
			}
			if gotNS != wantNS || gotN != int64(len(tr.Kernels)) {
				t.Errorf("profile: %d ns in %d kernels, trace: %d ns in %d kernels", gotNS, gotN, wantNS, len(tr.Kernels))
			}
			for _, f := range tt.frames {
				if !seen[f] {
					t.Errorf("no frame %q in the profile", f)
				}
			}
			if underGraph != tt.graphKernels {
				t.Errorf("%d kernels under %s, want %d", underGraph, tt.graphLaunch, tt.graphKernels)
			}
		})
	}
}

// TestOutputDash: -o - writes to stdout, as for curl and tar, not to a
// file named "-".
func TestOutputDash(t *testing.T) {
	in, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	out, errOut, code := traceql("pprof", in, "-o", "-")
	if code != 0 {
		t.Fatalf("pprof -o -: exit %d: %s", code, errOut)
	}
	if _, err := profile.ParseData([]byte(out)); err != nil {
		t.Errorf("pprof -o -: stdout is not a profile: %v", err)
	}
	out, errOut, code = traceql("export", in, "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "file,rank,world_size,device,") {
		t.Errorf("export -o -: exit %d, stdout %.40q, stderr %s", code, out, errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("a file named - was written")
	}
}
