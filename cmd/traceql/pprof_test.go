package main

import (
	"context"
	stdmaps "maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceql/traceql/internal/pproftest"
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

// TestPprofSteps: on a real run of ten steps, no frame is a ProfilerStep#N
// range, each sample carries its step as the label "step", and a step's GPU
// time is the sum, kernel by kernel, over the kernels whose launch call
// began inside that step's range on its thread. pprof's own -top keeps the
// three cutlass GEMMs that share "void cutlass::Kernel2" apart, and its
// -tags splits by step.
func TestPprofSteps(t *testing.T) {
	const file = "../../testdata/gpu/vit-small_default_b1_stack.pt.trace.json.gz"
	out, errOut, code := traceql("pprof", file, "-o", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p, err := profile.ParseData([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.Location {
		if fn := l.Line[0].Function; strings.HasPrefix(fn.SystemName, trace.StepPrefix) {
			t.Errorf("location %d is the step frame %q", l.ID, fn.SystemName)
		}
	}
	got := map[string]int64{}
	for _, s := range p.Sample {
		steps := s.Label["step"]
		if len(steps) != 1 {
			t.Fatalf("sample %v has step labels %q, want one", s.Value, steps)
		}
		got[steps[0]] += s.Value[0]
	}

	// Brute force: each kernel's launch call (this run is one process, so
	// a correlation id is one call), then the step range around it.
	tr, err := trace.Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[int64]trace.APICall{}
	for _, c := range tr.APICalls {
		calls[c.Correlation] = c
	}
	want := map[string]int64{}
	for _, k := range tr.Kernels {
		c, ok := calls[k.Correlation]
		if !ok {
			t.Fatalf("kernel %s: no launch call", k.Name)
		}
		step := ""
		for _, o := range tr.Ops {
			if o.Kind != trace.GPUAnnotation && strings.HasPrefix(o.Name, trace.StepPrefix) &&
				o.PID == c.PID && o.TID == c.TID && o.Start <= c.Start && c.Start < o.End {
				step = o.Name
			}
		}
		want[step] += k.Dur()
	}
	if len(want) != 10 || want[""] != 0 {
		t.Fatalf("brute force: %v; want ten steps, every kernel in one", want)
	}
	if !stdmaps.Equal(got, want) {
		t.Errorf("GPU ns by step label %v, want %v", got, want)
	}

	top := pproftest.Report(t, []byte(out), "-top", "-nodecount=0")
	var gemms int
	for _, line := range strings.Split(top, "\n") {
		if strings.Contains(line, "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_") {
			gemms++
		}
		if strings.Contains(line, "ProfilerStep#") {
			t.Errorf("-top: %s", line)
		}
	}
	if gemms != 3 {
		t.Errorf("-top lists %d cutlass::Kernel2 GEMMs, want 3:\n%s", gemms, top)
	}
	if tags := pproftest.Report(t, []byte(out), "-tags"); strings.Count(tags, ": ProfilerStep#") != 10 {
		t.Errorf("-tags does not list ten steps:\n%s", tags)
	}
}
