package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/usns"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

// gpuDir holds the H100 traces of timm ViTs under torch.compile's modes
// (testdata/gpu/README.md).
const gpuDir = "../../testdata/gpu"

var (
	gpuSizes   = []string{"small", "medium", "large"}
	gpuBatches = []int{1, 32}
	gpuModes   = []string{"eager", "default", "reduce-overhead", "max-autotune"}
)

func gpuFile(size, mode string, batch int) string {
	return filepath.Join(gpuDir, fmt.Sprintf("vit-%s_%s_b%d.pt.trace.json.gz", size, mode, batch))
}

// TestGPUGolden pins what traceql says of the real H100 runs: the
// headline pair's summaries, and every run's columns in one comparison.
func TestGPUGolden(t *testing.T) {
	t.Chdir(gpuDir) // relative names: the goldens do not depend on the checkout's path
	pair := []string{filepath.Base(gpuFile("small", "default", 1)), filepath.Base(gpuFile("small", "reduce-overhead", 1))}
	var all, labels []string
	for _, size := range gpuSizes {
		for _, batch := range gpuBatches {
			for _, mode := range gpuModes {
				all = append(all, filepath.Base(gpuFile(size, mode, batch)))
				labels = append(labels, fmt.Sprintf("%s/b%d/%s", size, batch, mode))
			}
		}
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"gpu.small_b1.text", append([]string{"summarize", "--top", "5", "--names", "short"}, pair...)},
		{"gpu.modes.csv", append([]string{"compare", "-f", "csv", "--label", strings.Join(labels, ",")}, all...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, filepath.Join("../../cmd/traceql/testdata", tt.name+".golden"), []byte(out))
		})
	}
}

// TestReadmeGPUDemo: the README's summary and comparison of the H100 runs
// are what traceql prints (-update rewrites them), cut where the README
// says "…".
func TestReadmeGPUDemo(t *testing.T) {
	t.Chdir("../..")
	out, errOut, code := traceql("summarize", "testdata/gpu/vit-small_default_b1.pt.trace.json.gz")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	head, _, ok := strings.Cut(out, "\n\ntop kernels")
	if !ok {
		t.Fatalf("no top kernels in\n%s", out)
	}
	golden.CheckSection(t, "README.md", "gpu-summary", []byte("```text\n$ traceql summarize testdata/gpu/vit-small_default_b1.pt.trace.json.gz\n"+
		head+"\n…\n```\n"))

	t.Chdir("testdata/gpu")
	modes := []string{"eager", "default", "reduce-overhead", "max-autotune"}
	var files []string
	for _, m := range modes {
		files = append(files, filepath.Base(gpuFile("small", m, 1)))
	}
	out, errOut, code = traceql(append([]string{"compare", "--label", strings.Join(modes, ",")}, files...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The table, then reduce-overhead's verdict.
	lines := strings.Split(out, "\n")
	table, _, _ := strings.Cut(out, "  H2D bandwidth")
	_, verdict, _ := strings.Cut(out, "\n  reduce-overhead: ")
	verdict, _, _ = strings.Cut(verdict, "\n  max-autotune: ")
	if len(lines) < 12 || verdict == "" {
		t.Fatalf("unexpected comparison:\n%s", out)
	}
	golden.CheckSection(t, "../../README.md", "gpu-compare", []byte("```text\n"+
		"$ cd testdata/gpu; traceql compare vit-small_{eager,default,reduce-overhead,max-autotune}_b1.pt.trace.json.gz \\\n"+
		"    --label eager,default,reduce-overhead,max-autotune\n"+table+"  …\n  reduce-overhead: "+verdict+"\n```\n"))
}

// readmeTableArgs is the command that makes the README's table of what
// traceql finds across sizes, batches and modes.
var readmeTableArgs = []string{"compare", "testdata/gpu/", "--parts", "model,mode,batch", "--group-by", "model,batch",
	"--metrics", "kernels,kernel_mean_ns,idle_ns,gpu_util,step_median_ns,launches,graph_launches,bound", "-f", "markdown"}

// TestReadmeGPUTable: the README's table of what traceql finds across
// sizes, batches and modes is what one compare of testdata/gpu/ prints
// (-update rewrites it); its rows agree with summarize's of each file.
func TestReadmeGPUTable(t *testing.T) {
	args := slices.Clone(readmeTableArgs)
	args[1] = "../../testdata/gpu/"
	out, errOut, code := traceql(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := 0
	for _, size := range gpuSizes {
		for _, batch := range gpuBatches {
			for _, mode := range gpuModes {
				tr, err := trace.Open(context.Background(), gpuFile(size, mode, batch))
				if err != nil {
					t.Fatal(err)
				}
				d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
				// Per step: the totals over the steps, times rounded
				// to the nearest ns (halves up), counts as floats.
				n := len(d.Steps)
				if n == 0 {
					t.Fatalf("%s: no steps", gpuFile(size, mode, batch))
				}
				per := func(x int) float64 { return float64(x) / float64(n) }
				row := fmt.Sprintf("| vit-%s | %s | b%d | %s | %s | %s | %s | %s | %s | %s | %s |\n", size, mode, batch,
					report.Format(per(d.Kernels), metrics.Count), report.Format(d.KernelMeanNS, metrics.NS),
					report.Format((d.IdleNS+int64(n)/2)/int64(n), metrics.NS), report.Format(d.GPUUtil, metrics.Ratio),
					report.Format(d.StepMedianNS, metrics.NS), report.Format(per(d.Launch.Launches), metrics.Count),
					report.Format(per(d.Launch.GraphLaunches), metrics.Count), metrics.Verdict(&d))
				if !strings.Contains(out, row) {
					t.Errorf("no row %s", row)
				}
				rows++
			}
		}
	}
	if n := strings.Count(out, "\n| vit-"); n != rows {
		t.Errorf("%d rows, want %d", n, rows)
	}
	cmd := "$ traceql " + strings.Join(readmeTableArgs[:6], " ") + " \\\n    " + strings.Join(readmeTableArgs[6:], " ")
	golden.CheckSection(t, "../../README.md", "gpu-table", []byte("```sh\n"+cmd+"\n```\n\n"+out))
}

// TestGPUOpsPlot: plot --kind ops draws the host ops of runs with GPU
// activity too (it said they had none), against each run's cpu_op self
// times read apart from traceql (selfTimes; totals would count
// aten::addmm inside aten::linear twice); ops only the compiled runs have
// are "none" in eager's bars.
func TestGPUOpsPlot(t *testing.T) {
	var paths []string
	var totals []map[string]int64
	for _, mode := range []string{"eager", "default", "reduce-overhead"} {
		path := gpuFile("small", mode, 1)
		var doc struct {
			TraceEvents []struct {
				Ph, Cat, Name string
				Ts, Dur       json.Number
				Pid, Tid      any
			} `json:"traceEvents"`
		}
		d := json.NewDecoder(bytes.NewReader(readJSON(t, path)))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		var ops []hostOp
		for _, e := range doc.TraceEvents {
			if e.Ph == "X" && e.Cat == "cpu_op" {
				start := usns.Parse(t, e.Ts.String())
				ops = append(ops, hostOp{e.Name, fmt.Sprint(e.Pid, "/", e.Tid), start, start + usns.Parse(t, e.Dur.String())})
			}
		}
		paths, totals = append(paths, path), append(totals, selfTimes(ops))
	}
	if _, ok := totals[0]["Torch-Compiled Region: 0/0"]; ok {
		t.Fatal("eager has a compiled region: the test no longer checks an op a run lacks")
	}
	checkOpsPlot(t, paths, totals, 6)
}
