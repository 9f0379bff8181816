package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
)

// TestCaptureGolden pins what summarize --by op,region --capture shows of
// the vLLM decode step replayed as one HIP graph, named from the run
// profiled while it was captured (metrics' TestCaptureRealVLLM checks the
// ops kernel by kernel).
func TestCaptureGolden(t *testing.T) {
	dir := realTraces(t)
	out, errOut, code := traceql("summarize", "--top", "3", "--by", "op,region",
		"--capture", filepath.Join(dir, "more/tracelens__inference__vllm_decode_full__graph_capture_rank_0.pt.trace.json.gz"),
		filepath.Join(dir, "kineto/vllm_decode_mi300x_hipgraph.json.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkRun(t, "capture.by-op.text", out, errOut)
}

// writeCapturePair writes a generated capture and replay trace.
func writeCapturePair(t *testing.T, capCfg, repCfg synth.CaptureConfig) (capPath, repPath string) {
	t.Helper()
	dir := t.TempDir()
	capPath, repPath = filepath.Join(dir, "capture.json"), filepath.Join(dir, "replay.json")
	cf, err := os.Create(capPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	rf, err := os.Create(repPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	var discard strings.Builder
	if _, err := synth.WriteCapture(cf, &discard, capCfg); err != nil {
		t.Fatal(err)
	}
	discard.Reset()
	if _, err := synth.WriteCapture(&discard, rf, repCfg); err != nil {
		t.Fatal(err)
	}
	return capPath, repPath
}

// TestCaptureCLI: what each command says of a pair that matches, of one
// that does not, of a file that is no capture, and of --capture where it
// does nothing.
func TestCaptureCLI(t *testing.T) {
	capPath, repPath := writeCapturePair(t, synth.CaptureConfig{Seed: 1, Names: true}, synth.CaptureConfig{Seed: 1, Names: true})
	_, badRep := writeCapturePair(t, synth.CaptureConfig{Seed: 1}, synth.CaptureConfig{Seed: 2, Names: true})
	out := filepath.Join(t.TempDir(), "gpu.pb.gz")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings of stdout
		stderr []string // substrings of stderr
	}{
		{"summarize", []string{"summarize", "--by", "op", "--capture", capPath, repPath}, 0,
			[]string{"op_g0_0", "op_g1_0", "named 51 of 51 graph-replayed kernels (100 % of their time; 6 of 6 graph launches)"}, nil},
		{"no capture", []string{"summarize", "--by", "op", repPath}, 0,
			[]string{"51 kernels under CUDAGraph.replay are CUDA/HIP graph replays", "--capture TRACE"}, nil},
		{"export kernels", []string{"export", "--table", "kernels", "--capture", capPath, repPath}, 0,
			[]string{",op_g0_0,graph0_part0,"}, []string{"named 51 of 51"}},
		{"export ops", []string{"export", "--table", "ops", "--capture", capPath, repPath}, 0,
			[]string{",op_g1_4,"}, nil},
		{"diff", []string{"diff", "--by", "op", "--capture", capPath, repPath, repPath}, 0,
			[]string{"op_g0_0", "old: --capture", "new: --capture"}, nil},
		{"pprof", []string{"pprof", "--capture", capPath, repPath, "-o", out}, 0, nil, []string{"named 51 of 51"}},
		{"mismatched", []string{"summarize", "--by", "op", "--capture", capPath, badRep}, 0,
			[]string{"named 0 of 51"}, []string{"matches none of the 6 graph launches", "kernel names differ from the launches captured"}},
		{"not a capture", []string{"summarize", "--by", "op", "--capture", repPath, repPath}, 1,
			nil, []string{"replay.json: no launch call that executed nothing"}},
		{"needs by op", []string{"summarize", "--capture", capPath, repPath}, 2, nil, []string{"needs --by op or --by region"}},
		{"export table", []string{"export", "--table", "gaps", "--capture", capPath, repPath}, 2, nil, []string{"needs --table kernels, ops or regions"}},
		{"report needs ops", []string{"report", "--capture", capPath, repPath, "-o", filepath.Join(t.TempDir(), "r.html")}, 2, nil, []string{"needs --ops"}},
		{"twice", []string{"summarize", "--by", "op", "--capture", capPath, "--capture", capPath, repPath}, 2, nil, []string{"at most 1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := traceql(tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			flat := strings.Join(strings.Fields(stdout), " ") // notes wrap
			for _, s := range tt.stdout {
				if !strings.Contains(flat, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("a Go stack:\n%s", stderr)
			}
		})
	}
}
