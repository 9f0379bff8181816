package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

func TestWhatifFlags(t *testing.T) {
	testFlags(t, newWhatifCmd, func(o *whatifOptions) **ioStreams { return &o.IO }, []flagCase[whatifOptions]{
		{name: "graphs", args: []string{"a.json", "--graphs"}, want: whatifOptions{Args: []string{"a.json"}, Graphs: true, Format: "text"}},
		{name: "all", args: []string{"a.json", "b.json", "--no-syncs", "--pinned", "--kernel", "gemm=0.5", "--kernel", "a=b=2", "-f", "csv", "--steps", "3:"},
			want: whatifOptions{Args: []string{"a.json", "b.json"}, NoSyncs: true, Pinned: true, Kernels: []string{"gemm=0.5", "a=b=2"}, Format: "csv",
				Read: readOptions{Steps: "3:"}}},
		{name: "no edit", args: []string{"a.json"}, wantErr: "whatif needs an edit"},
		{name: "no factor", args: []string{"a.json", "--kernel", "gemm"}, wantErr: "want REGEX=FACTOR"},
		{name: "bad factor", args: []string{"a.json", "--kernel", "gemm=-1"}, wantErr: `factor "-1" is not a decimal number above 0`},
		{name: "bad regex", args: []string{"a.json", "--kernel", "(=2"}, wantErr: "missing closing )"},
		{name: "no file", args: []string{"--graphs"}, wantErr: "FILE or DIR"},
		{name: "no stream filter", args: []string{"a.json", "--graphs", "--stream", "7"}, wantErr: "unknown flag: --stream"},
	})
}

// TestWhatifGPU pins whatif on the real H100 runs: the small ViT at batch
// 1 under --graphs, default and eager, and every run's row under each edit
// at once.
func TestWhatifGPU(t *testing.T) {
	t.Chdir(gpuDir)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"whatif.graphs.text", []string{"whatif", "--graphs", "vit-small_default_b1.pt.trace.json.gz", "vit-small_eager_b1.pt.trace.json.gz"}},
		{"whatif.syncs.text", []string{"whatif", "--no-syncs", "--pinned", "vit-small_reduce-overhead_b1.pt.trace.json.gz"}},
		{"whatif.csv", []string{"whatif", "--graphs", "--kernel", "gemm=0.5", "-f", "csv", "."}},
		{"whatif.json", []string{"whatif", "--graphs", "-f", "json", "vit-medium_default_b32.pt.trace.json.gz"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, filepath.Join("../../cmd/traceql/testdata", tt.name+".golden"), []byte(out))
			golden.Check(t, filepath.Join("../../cmd/traceql/testdata", tt.name+".stderr.golden"), []byte(errOut))
		})
	}
}

// TestWhatifBadInput: a file that is no trace, or one with nothing to
// replay, is a line naming it (after the read's warnings), exit 1.
func TestWhatifBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, content string
		lines         int
	}{
		{"junk.json", "hello", 1},
		{"truncated.json", `{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1`, 2}, // a truncation warning, then no GPU activity
		{"nosteps.json", `{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7}}]}`, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := traceql("whatif", "--graphs", path)
			if code != 1 || out != "" || strings.Count(errOut, "\n") != tt.lines ||
				!strings.Contains(errOut, tt.name) || strings.Contains(errOut, "goroutine") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %d lines naming the file", code, out, errOut, tt.lines)
			}
		})
	}
}

// TestReadmeWhatifTable: the tables of measured against projected steps
// in the README's mode study and in docs/whatif.md are computed from the
// traces (-update rewrites them): reduce-overhead's median step measured,
// and projected by --graphs from the default and the eager run, with the
// constants that ship (gpu-whatif-fit: measured on these reduce-overhead
// runs) and with constants measured on the other five (gpu-whatif-loo,
// the README's); and the H200 runs projected with the H100 constants
// (gpu-whatif-h200).
func TestReadmeWhatifTable(t *testing.T) {
	open := func(path string) (*trace.Trace, metrics.DeviceSummary) {
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		return tr, metrics.Summarize(tr, metrics.Options{}).Devices[0]
	}
	project := func(path string, e metrics.Edits) metrics.Projection {
		tr, d := open(path)
		p, ok := metrics.Replay(tr, d.Device, d.StepMedianNS, e)
		if !ok {
			t.Fatalf("%s: nothing replayed", path)
		}
		return p
	}
	costs := map[string]metrics.GraphCosts{}
	for _, size := range gpuSizes {
		for _, batch := range gpuBatches {
			tr, _ := open(gpuFile(size, "reduce-overhead", batch))
			costs[fmt.Sprintf("%s b%d", size, batch)], _ = metrics.MeasureGraphCosts(tr)
		}
	}
	head := "| ViT | batch | reduce-overhead, measured | from default: projected | error | from eager: projected | error |\n|---|---:|---:|---:|---:|---:|---:|\n"
	fit, loo := head, head
	for _, size := range gpuSizes {
		for _, batch := range gpuBatches {
			var others []metrics.GraphCosts
			for k, c := range costs {
				if k != fmt.Sprintf("%s b%d", size, batch) {
					others = append(others, c)
				}
			}
			left := metrics.MedianGraphCosts(others, "")
			ro := project(gpuFile(size, "reduce-overhead", batch), metrics.Edits{}).StepMedianNS
			row := func(c *metrics.GraphCosts) string {
				r := fmt.Sprintf("| %s | %d | %s |", size, batch, report.Format(ro, metrics.NS))
				for _, from := range []string{"default", "eager"} {
					p := project(gpuFile(size, from, batch), metrics.Edits{Graphs: true, Costs: c}).ProjectedStepNS
					r += fmt.Sprintf(" %s | %+.1f %% |", report.Format(p, metrics.NS), 100*(p/ro-1))
				}
				return r + "\n"
			}
			fit += row(nil)
			loo += row(&left)
		}
	}
	h200 := "| ViT | batch | default, measured | reduce-overhead, measured | projected from default | error |\n|---|---:|---:|---:|---:|---:|\n"
	for _, size := range []string{"small", "medium"} {
		run := func(mode string) string {
			return filepath.Join(gpuDir, fmt.Sprintf("vit-%s_%s_b1_flops.pt.trace.json.gz", size, mode))
		}
		ro := project(run("reduce-overhead"), metrics.Edits{}).StepMedianNS
		p := project(run("default"), metrics.Edits{Graphs: true})
		h200 += fmt.Sprintf("| %s | 1 | %s | %s | %s | %+.1f %% |\n", size, report.Format(p.StepMedianNS, metrics.NS),
			report.Format(ro, metrics.NS), report.Format(p.ProjectedStepNS, metrics.NS), 100*(p.ProjectedStepNS/ro-1))
	}
	golden.CheckSection(t, "../../README.md", "gpu-whatif-loo", []byte(loo))
	golden.CheckSection(t, "../../docs/whatif.md", "gpu-whatif-loo", []byte(loo))
	golden.CheckSection(t, "../../docs/whatif.md", "gpu-whatif-fit", []byte(fit))
	golden.CheckSection(t, "../../docs/whatif.md", "gpu-whatif-h200", []byte(h200))
}
