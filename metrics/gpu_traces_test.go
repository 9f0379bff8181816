package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/usns"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// gpuTraces is the folder of real H100 traces of timm ViTs, eager and
// under torch.compile's modes (testdata/gpu/README.md).
const gpuTraces = "../testdata/gpu"

func gpuRun(size, mode string, batch int) string {
	return filepath.Join(gpuTraces, fmt.Sprintf("vit-%s_%s_b%d.pt.trace.json.gz", size, mode, batch))
}

func summarizeFile(t *testing.T, path string) metrics.DeviceSummary {
	t.Helper()
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	if len(s.Devices) != 1 {
		t.Fatalf("%s: %d devices, want 1", path, len(s.Devices))
	}
	return s.Devices[0]
}

// TestGPUTracesModes asserts what the mode study shows on every size and
// batch: the graph modes (reduce-overhead, max-autotune) make a graph launch
// a step, each replaying many kernels, and far fewer kernel launch calls
// than default; eager and default launch no graph. The small model at
// batch 1 is launch-bound eager and under default, the finding traceql
// must make obvious.
func TestGPUTracesModes(t *testing.T) {
	const steps = 10 // schedule(active=10)
	for _, size := range []string{"small", "medium", "large"} {
		for _, batch := range []int{1, 32} {
			t.Run(fmt.Sprintf("%s_b%d", size, batch), func(t *testing.T) {
				runs := map[string]metrics.DeviceSummary{}
				for _, mode := range []string{"eager", "default", "reduce-overhead", "max-autotune"} {
					d := summarizeFile(t, gpuRun(size, mode, batch))
					runs[mode] = d
					if len(d.Steps) != steps {
						t.Errorf("%s: %d steps, want %d", mode, len(d.Steps), steps)
					}
				}
				for _, mode := range []string{"eager", "default"} {
					if l := runs[mode].Launch; l.GraphLaunches != 0 || l.Launches < 20*steps {
						t.Errorf("%s: %d graph launches, %d kernel launches; want none, and over %d", mode, l.GraphLaunches, l.Launches, 20*steps)
					}
				}
				def := runs["default"].Launch
				for _, mode := range []string{"reduce-overhead", "max-autotune"} {
					l := runs[mode].Launch
					if l.GraphLaunches != steps || l.KernelsPerGraphLaunch <= 1 {
						t.Errorf("%s: %d graph launches of %.1f kernels each; want one a step (%d), of more than 1", mode,
							l.GraphLaunches, l.KernelsPerGraphLaunch, steps)
					}
					if 10*l.Launches > def.Launches {
						t.Errorf("%s: %d kernel launch calls against default's %d: want under a tenth", mode, l.Launches, def.Launches)
					}
				}
				if size == "small" && batch == 1 {
					for _, mode := range []string{"eager", "default"} {
						if d := runs[mode]; metrics.Verdict(&d) != metrics.LaunchBound {
							t.Errorf("%s: verdict %v, want launch (idle %d of span %d, launch %d, short %d)", mode, metrics.Verdict(&d), d.IdleNS, d.SpanNS,
								d.IdleLaunchNS, d.ShortLaunchNS)
						}
					}
					if r, d := runs["reduce-overhead"], runs["default"]; 2*r.StepMedianNS > d.StepMedianNS {
						t.Errorf("reduce-overhead's median step %.0f ns is not under half of default's %.0f", r.StepMedianNS, d.StepMedianNS)
					}
				}
			})
		}
	}
}

// TestGPUTracesAgainstJSON reads every trace of testdata/gpu a second way,
// with encoding/json and times converted from the decimal text, and
// compares the kernel count and time, busy time (a union of kernels,
// copies and memsets), launch calls, graph launches, step count and H2D
// bytes with the summary's.
func TestGPUTracesAgainstJSON(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(gpuTraces, "*.pt.trace.json.gz"))
	if err != nil || len(files) < 26 {
		t.Fatalf("%d traces in %s (%v); want 26", len(files), gpuTraces, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := jsonCounts(t, f)
			d := summarizeFile(t, f)
			got := gpuCounts{d.Kernels, d.KernelNS, d.BusyNS, d.Launch.Launches, d.Launch.GraphLaunches, len(d.Steps), d.H2D.Bytes}
			if got != want {
				t.Errorf("summary %+v\n   json %+v", got, want)
			}
		})
	}
}

type gpuCounts struct {
	Kernels          int
	KernelNS, BusyNS int64
	Launches, Graphs int
	Steps            int
	H2DBytes         int64
}

// jsonCounts computes gpuCounts of a Kineto trace with encoding/json. A
// launch is a runtime or driver call named …LaunchKernel… whose
// correlation id a kernel carries; a graph launch, a cudaGraphLaunch whose
// id kernels carry.
func jsonCounts(t *testing.T, path string) gpuCounts {
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Ts, Dur       json.Number
			Args          map[string]any
		} `json:"traceEvents"`
	}
	decodeJSON(t, path, &doc)
	var c gpuCounts
	var busy [][2]int64
	kernelCorr := map[string]bool{}
	calls := map[string]string{}
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		corr := fmt.Sprint(e.Args["correlation"])
		switch e.Cat {
		case "kernel", "gpu_memcpy", "gpu_memset":
			start, dur := usns.Parse(t, e.Ts.String()), usns.Parse(t, e.Dur.String())
			busy = append(busy, [2]int64{start, start + dur})
			if e.Cat == "kernel" {
				c.Kernels++
				c.KernelNS += dur
				kernelCorr[corr] = true
			}
			if e.Cat == "gpu_memcpy" && strings.HasPrefix(e.Name, "Memcpy HtoD") {
				n, err := strconv.ParseInt(fmt.Sprint(e.Args["bytes"]), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				c.H2DBytes += n
			}
		case "cuda_runtime", "cuda_driver": // Triton launches through the driver API
			calls[corr] = e.Name
		case "user_annotation":
			if strings.HasPrefix(e.Name, "ProfilerStep#") {
				c.Steps++
			}
		}
	}
	for corr, name := range calls {
		if !kernelCorr[corr] {
			continue
		}
		switch {
		case strings.Contains(name, "LaunchKernel"): // cudaLaunchKernel, cuLaunchKernelEx, …
			c.Launches++
		case name == "cudaGraphLaunch":
			c.Graphs++
		}
	}
	slices.SortFunc(busy, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	end := int64(-1 << 62)
	for _, b := range busy {
		switch {
		case b[0] >= end:
			c.BusyNS += b[1] - b[0]
			end = b[1]
		case b[1] > end:
			c.BusyNS += b[1] - end
			end = b[1]
		}
	}
	return c
}

// TestGPUTracesIdle walks the idle nanoseconds of the shorter real graph and
// launch-bound runs (walkIdle), the split of launch time before graph
// launches included.
func TestGPUTracesIdle(t *testing.T) {
	for _, f := range []string{
		gpuRun("small", "default", 1), gpuRun("small", "reduce-overhead", 1), gpuRun("small", "max-autotune", 1),
		gpuRun("medium", "reduce-overhead", 1), gpuRun("medium", "reduce-overhead", 32),
	} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, err := trace.Open(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
			w := bruteIdleTrace(tr, d.Device)
			if d.IdleSyncNS != w.sync || d.IdleLaunchNS != w.launch || d.IdleOtherNS != w.other ||
				d.ShortLaunchNS != w.shortLaunch || d.ShortGraphLaunchNS != w.shortGraph {
				t.Errorf("idle sync/launch/other %d/%d/%d, short launch %d, before graphs %d; brute force %+v", d.IdleSyncNS,
					d.IdleLaunchNS, d.IdleOtherNS, d.ShortLaunchNS, d.ShortGraphLaunchNS, w)
			}
			if d.Launch.GraphLaunches > 0 && (w.shortGraph == 0 || w.shortGraph == w.shortLaunch) {
				t.Errorf("graph run: short launch time %d, %d of it before graph launches: want both parts", w.shortLaunch, w.shortGraph)
			}
		})
	}
}

// TestGPUTracesWarmup: the run profiled from its first step has its
// compilation and graph capture in its first two steps, which the
// --steady rule leaves out.
func TestGPUTracesWarmup(t *testing.T) {
	d := summarizeFile(t, filepath.Join(gpuTraces, "vit-small_reduce-overhead_b1_warmup.pt.trace.json.gz"))
	if len(d.Steps) != 6 {
		t.Fatalf("%d steps, want 6", len(d.Steps))
	}
	if n := metrics.WarmupSteps(d.Steps); n != 2 {
		t.Errorf("%d warm-up steps, want 2 (compilation, then capture)", n)
	}
	if first, steady := d.Steps[0].DurNS(), d.Steps[5].DurNS(); first < 1000*steady {
		t.Errorf("first step %d ns, last %d ns: compilation should make the first over 1000 times longer", first, steady)
	}
}

// TestSummarizeKeepsGaps: the gaps and timeline a summary keeps when asked
// (Options.Gaps, TimelineBins) are ClassifyGaps' and Timeline's, on the
// H100 runs and the generated sample (two GPUs).
func TestSummarizeKeepsGaps(t *testing.T) {
	for _, f := range []string{gpuRun("small", "reduce-overhead", 1), gpuRun("medium", "default", 32), "../testdata/sample.pt.trace.json.gz"} {
		tr, err := trace.Open(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		s := metrics.Summarize(tr, metrics.Options{Gaps: true, TimelineBins: 100})
		var kept []metrics.ClassifiedGap
		for _, d := range s.Devices {
			for _, g := range d.Gaps {
				g.OtherOutsideStepsNS = 0 // measured only against the summary's steps
				kept = append(kept, g)
			}
			if want := metrics.Timeline(tr, d.Device, 100); !slices.Equal(d.Timeline, want) || len(want) == 0 {
				t.Errorf("%s GPU %d: timeline of %d points differs from Timeline's %d", f, d.Device, len(d.Timeline), len(want))
			}
		}
		if want := metrics.ClassifyGaps(tr); !slices.Equal(kept, want) || len(want) == 0 {
			t.Errorf("%s: %d gaps kept, ClassifyGaps gives %d, or they differ", f, len(kept), len(want))
		}
	}
}
