package plot

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/metrics"
)

var plotDir = flag.String("plotdir", "", "also write the PNGs of TestPlotPNG to this directory, to look at")

// Three runs of one model, as in the README: eager, CUDA graphs, autotuned.
var plotRuns = []string{"default", "reduce-overhead", "max-autotune"}

// lognormalNS returns n durations (ns) around median with spread sigma (in
// natural-log units), from a fixed seed.
func lognormalNS(seed uint64, n int, median, sigma float64) []int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(median * math.Exp(sigma*r.NormFloat64()))
	}
	return out
}

func plotKernelSeries() []Series {
	return []Series{
		{plotRuns[0], lognormalNS(1, 27500, 14e3, 0.8)},
		{plotRuns[1], lognormalNS(2, 387, 500e3, 0.9)},
		{plotRuns[2], lognormalNS(3, 410, 470e3, 0.9)},
	}
}

func plotGapSeries() []Series {
	return []Series{
		{plotRuns[0], lognormalNS(4, 27400, 4e3, 0.6)},
		{plotRuns[1], lognormalNS(5, 380, 6e3, 0.8)},
		{plotRuns[2], lognormalNS(6, 400, 7e3, 0.9)},
	}
}

// utilPoints returns n bins over span ns with utilization around mean and
// a few dips.
func utilPoints(seed uint64, n int, span int64, mean, noise float64) []metrics.Point {
	r := rand.New(rand.NewPCG(seed, 2))
	pts := make([]metrics.Point, n)
	for i := range pts {
		u := mean + noise*r.NormFloat64()
		if r.IntN(25) == 0 {
			u -= 0.4 * r.Float64()
		}
		pts[i] = metrics.Point{StartNS: 5_000_000_000 + int64(i)*span/int64(n), EndNS: 5_000_000_000 + int64(i+1)*span/int64(n), Util: min(max(u, 0), 1)}
	}
	return pts
}

func plotCompareBars() Bars {
	return Bars{
		Runs: plotRuns,
		Metrics: []BarMetric{
			{"kernels", metrics.Count, []float64{27500, 387, 410}},
			{"mean kernel", metrics.NS, []float64{20e3, 700e3, 650e3}},
			{"idle", metrics.NS, []float64{145e6, 3e6, 4e6}},
			{"GPU utilization", metrics.Ratio, []float64{0.758, 0.99, 0.987}},
			{"span", metrics.NS, []float64{659e6, 424e6, 430e6}},
		},
	}
}

func plotKernelStats() []metrics.KernelStat {
	names := []string{
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
		"triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0",
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		"flash_fwd_kernel",
		"triton_poi_fused_cat_1",
		"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>",
		"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn",
		"triton_red_fused_softmax_2",
		"Memset (Device)",
		"elementwise_kernel",
	}
	var total int64
	var out []metrics.KernelStat
	for i, n := range names {
		count := 400 + 37*i*i
		t := int64(120e6 / float64(i+1) / float64(i+1) * 0.9)
		total += t
		out = append(out, metrics.KernelStat{Name: n, Count: count, TotalNS: t, MeanNS: float64(t) / float64(count)})
	}
	for i := range out {
		out[i].Share = float64(out[i].TotalNS) / float64(total)
	}
	return out
}

// plotStepRuns are the step times of an eager run and of a compiled run
// whose first two steps compile.
func plotStepRuns() []StepRun {
	mk := func(durs ...int64) []metrics.StepStat {
		var out []metrics.StepStat
		start := int64(0)
		for i, d := range durs {
			out = append(out, metrics.StepStat{Step: metrics.Step{Number: i + 1, Start: start, End: start + d}})
			start += d
		}
		return out
	}
	eager := mk(66e6, 65e6, 67e6, 66e6, 65e6, 66e6, 64e6, 66e6)
	compiled := mk(9.2e9, 1.4e9, 43e6, 42e6, 42e6, 44e6, 42e6, 43e6)
	return []StepRun{{Label: "eager", Steps: eager, Warmup: metrics.WarmupSteps(eager)},
		{Label: "reduce-overhead", Steps: compiled, Warmup: metrics.WarmupSteps(compiled)}}
}

// plotCase is one plot kind drawn from realistic data.
type plotCase struct {
	kind   string
	w, h   int // PNG size in pixels at 96 dpi
	render func(w io.Writer, format string) error
}

func plotCases() []plotCase {
	return []plotCase{
		{"compare", 768, 480, func(w io.Writer, f string) error {
			return Compare(w, f, plotCompareBars(), "resnet50 training step: torch.compile modes", [2]float64{})
		}},
		{"compare_zero_base_10x6", 960, 576, func(w io.Writer, f string) error {
			b := plotCompareBars()
			b.Metrics = append(b.Metrics, BarMetric{"graph launches", metrics.Count, []float64{0, 387, 387}})
			return Compare(w, f, b, "eager has no graph launches", [2]float64{10, 6})
		}},
		{"kernel_hist", 768, 480, func(w io.Writer, f string) error {
			return KernelHist(w, f, plotKernelSeries(), "kernel time by kernel duration", true)
		}},
		{"kernel_hist_count", 768, 480, func(w io.Writer, f string) error {
			return KernelHist(w, f, plotKernelSeries(), "kernels by duration", false)
		}},
		{"gap_hist", 768, 480, func(w io.Writer, f string) error {
			return GapHist(w, f, plotGapSeries(), "idle time by gap length", true)
		}},
		{"gap_hist_panels", 960, 96 * (2 + 3*3) / 2, func(w io.Writer, f string) error {
			// Over MaxOverlaid runs: a panel each.
			var s []Series
			for i := range 7 {
				s = append(s, Series{fmt.Sprintf("run %d of seven, on shared axes", i+1), lognormalNS(uint64(10+i), 400, 5e3*float64(i+1), 0.7)})
			}
			return GapHist(w, f, s, "idle time by gap length, seven runs", true)
		}},
		{"timeline_share", 960, 384, func(w io.Writer, f string) error {
			return Timeline(w, f, []Line{
				{plotRuns[0], utilPoints(7, 150, 14.5e9, 0.80, 0.08), 5e9, 0},
				{plotRuns[1], utilPoints(8, 150, 160e6, 0.995, 0.01), 5e9, 1},
			}, "GPU utilization, runs of 14.5 s and 160 ms")
		}},
		{"steps", 864, 432, func(w io.Writer, f string) error {
			return Steps(w, f, plotStepRuns(), "step time per step")
		}},
		{"timeline", 960, 384, func(w io.Writer, f string) error {
			return Timeline(w, f, []Line{
				{plotRuns[0], utilPoints(7, 150, 659e6, 0.80, 0.08), 5e9, 0},
				{plotRuns[1], utilPoints(8, 150, 424e6, 0.995, 0.01), 5e9, 1},
				{plotRuns[2], utilPoints(9, 150, 430e6, 0.99, 0.015), 5e9, 2},
			}, "GPU utilization, device 0")
		}},
		{"breakdown_steps", 864, 432, func(w io.Writer, f string) error {
			var bars []BreakdownBar
			for i := range 8 {
				k := int64(i % 3)
				// Compute, comm, H2D, D2H, other copy, memset, then idle.
				bars = append(bars, BreakdownBar{Label: fmt.Sprint(3 + i),
					Classes: metrics.BusyClasses{2.1e6 + k*1e5, 4e5, 3e5 + k*2e5, 1.5e5, 6e4, 2e4}, IdleNS: 3e5 + k*4e5})
			}
			return Breakdown(w, f, bars, "step (ProfilerStep#N)", "GPU time by class, per step: sample")
		}},
		{"breakdown_runs", 864, 288, func(w io.Writer, f string) error {
			return Breakdown(w, f, []BreakdownBar{
				{Label: "eager #7", Classes: metrics.BusyClasses{4.3e6, 0, 1.5e5, 2e4, 0, 0}, IdleNS: 3.2e7},
				{Label: "reduce-overhead #9", Classes: metrics.BusyClasses{4.1e6, 0, 1.5e5, 2e4, 0, 0}, IdleNS: 2e6},
				{Label: "copy-bound (whole)", Classes: metrics.BusyClasses{5e5, 0, 6.1e7, 3e7, 0, 0}, IdleNS: 9e6},
			}, "", "GPU time by class: each run's median step #N, or the whole run without steps")
		}},
		{"top_kernels", 960, 96 * (5 + 10) / 4, func(w io.Writer, f string) error {
			return TopKernels(w, f, plotKernelStats(), "top kernels by total time (default)")
		}},
	}
}

func TestPlotPNG(t *testing.T) {
	for _, tt := range plotCases() {
		t.Run(tt.kind, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.render(&buf, "png"); err != nil {
				t.Fatal(err)
			}
			if *plotDir != "" {
				if err := os.MkdirAll(*plotDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(*plotDir, tt.kind+".png"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if got := img.Bounds().Size(); got != (image.Point{tt.w, tt.h}) {
				t.Errorf("size = %v, want %dx%d", got, tt.w, tt.h)
			}
			colors, ink := plotInk(img)
			if colors < 8 {
				t.Errorf("%d distinct colors, want at least 8", colors)
			}
			if share := float64(ink) / float64(tt.w*tt.h); share < 0.02 {
				t.Errorf("%.1f %% of the pixels are not white, want at least 2 %%", 100*share)
			}
			// The corners are background: white.
			if r, g, b, _ := img.At(0, 0).RGBA(); r != 0xffff || g != 0xffff || b != 0xffff {
				t.Errorf("corner pixel = %v, want white", img.At(0, 0))
			}
		})
	}
}

// plotInk counts the distinct colors of img and its pixels that are not white.
func plotInk(img image.Image) (colors, ink int) {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
			if r != 0xffff || g != 0xffff || bl != 0xffff {
				ink++
			}
		}
	}
	return len(seen), ink
}

func TestPlotSVG(t *testing.T) {
	for _, tt := range plotCases() {
		t.Run(tt.kind, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tt.render(&a, "svg"); err != nil {
				t.Fatal(err)
			}
			if err := tt.render(&b, "svg"); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("two renderings of the same input differ")
			}
			golden.Check(t, "testdata/plot_"+tt.kind+".svg.golden", a.Bytes())
		})
	}
}

func TestPlotPNGDeterministic(t *testing.T) {
	c := plotCases()[1]
	var a, b bytes.Buffer
	if err := c.render(&a, "png"); err != nil {
		t.Fatal(err)
	}
	if err := c.render(&b, "png"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of the same input differ")
	}
}

// TestPlotTimelineUnit checks the time axis: milliseconds for short runs,
// seconds from 10 s on, where tick labels in ms run to five digits.
func TestPlotTimelineUnit(t *testing.T) {
	tests := []struct {
		span      int64
		unit      string
		tick, not string
	}{
		{659e6, "ms", ">600<", ">0.6<"},
		{53e9, "s", ">50<", ">50000<"},
		{200e3, "µs", ">200<", ">0.2<"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Timeline(&buf, "svg", []Line{{"run", utilPoints(7, 100, tt.span, 0.8, 0.05), 5e9, 0}}, "t"); err != nil {
			t.Fatal(err)
		}
		svg := buf.String()
		if want := "time since first GPU activity (" + tt.unit + ")"; !strings.Contains(svg, want) {
			t.Errorf("span %d ns: no axis label %q", tt.span, want)
		}
		if !strings.Contains(svg, tt.tick) || strings.Contains(svg, tt.not) {
			t.Errorf("span %d ns: want a tick labelled %s and none labelled %s", tt.span, tt.tick, tt.not)
		}
	}
}

// TestPlotTimelineOrigin: the devices of one run share the run's origin, so
// a GPU that starts 5 ms after another is drawn 5 ms later, not over it.
func TestPlotTimelineOrigin(t *testing.T) {
	pts := func(start int64) []metrics.Point {
		return []metrics.Point{{StartNS: start, EndNS: start + 1e6, Util: 1}}
	}
	var buf bytes.Buffer
	lines := []Line{{"GPU 0", pts(0), 0, 0}, {"GPU 1", pts(5e6), 0, 0}}
	if err := Timeline(&buf, "svg", lines, "t"); err != nil {
		t.Fatal(err)
	}
	// The x axis reaches GPU 1's end, 6 ms after the origin.
	if svg := buf.String(); !strings.Contains(svg, ">6<") {
		t.Errorf("no tick at 6 ms: GPU 1 is not drawn from 5 to 6 ms")
	}
}

// TestHeadlineBarsMissing: a metric a run has no value of (a bandwidth
// of no copies) is no bar, not a bar of 0; a metric no run has is left out.
func TestHeadlineBarsMissing(t *testing.T) {
	with := metrics.DeviceSummary{Kernels: 3, H2D: metrics.CopyStat{Copies: 1, Bytes: 1e6, NS: 1e3, GBps: 1}}
	without := metrics.DeviceSummary{Kernels: 4}
	b := HeadlineBars([]string{"a", "b"}, []metrics.Summary{{Devices: []metrics.DeviceSummary{with}}, {Devices: []metrics.DeviceSummary{without}}}, 0)
	seen := map[string][]float64{}
	for _, m := range b.Metrics {
		seen[m.Name] = m.Values
	}
	if v := seen["H2D bandwidth"]; len(v) != 2 || v[0] != 1 || !math.IsNaN(v[1]) {
		t.Errorf("H2D bandwidth bars %v, want [1 NaN]", v)
	}
	if _, ok := seen["D2H bandwidth"]; ok {
		t.Error("D2H bandwidth, which no run has, has bars")
	}
}

func TestPlotErrors(t *testing.T) {
	tests := []struct {
		name   string
		render func(w io.Writer) error
		want   string
	}{
		{"compare no runs", func(w io.Writer) error { return Compare(w, "png", Bars{}, "t", [2]float64{}) }, "nothing to plot"},
		{"compare no metrics", func(w io.Writer) error { return Compare(w, "png", Bars{Runs: plotRuns}, "t", [2]float64{}) }, "nothing to plot"},
		{"compare short values", func(w io.Writer) error {
			return Compare(w, "png", Bars{Runs: plotRuns, Metrics: []BarMetric{{"kernels", metrics.Count, []float64{1}}}}, "t", [2]float64{})
		}, `metric "kernels" has 1 values for 3 runs`},
		{"compare baseline without GPU", func(w io.Writer) error {
			b := HeadlineBars([]string{"cpu", "gpu"}, []metrics.Summary{{}, {Devices: []metrics.DeviceSummary{{Kernels: 3}}}}, 0)
			return Compare(w, "png", b, "t", [2]float64{})
		}, "nothing to compare with: cpu, the first run, has no GPU activity"},
		{"kernel hist nil", func(w io.Writer) error { return KernelHist(w, "png", nil, "t", true) }, "nothing to plot"},
		{"steps none", func(w io.Writer) error { return Steps(w, "png", []StepRun{{Label: "a"}}, "t") }, "no ProfilerStep#N"},
		{"kernel hist empty series", func(w io.Writer) error {
			return KernelHist(w, "png", []Series{{Label: "a"}, {Label: "b"}}, "t", false)
		}, "nothing to plot"},
		{"gap hist nil", func(w io.Writer) error { return GapHist(w, "svg", nil, "t", true) }, "nothing to plot"},
		{"timeline nil", func(w io.Writer) error { return Timeline(w, "png", nil, "t") }, "nothing to plot"},
		{"timeline no points", func(w io.Writer) error { return Timeline(w, "png", []Line{{Label: "a"}}, "t") }, "nothing to plot"},
		{"top kernels nil", func(w io.Writer) error { return TopKernels(w, "png", nil, "t") }, "nothing to plot"},
		{"bad format", func(w io.Writer) error { return KernelHist(w, "jpg", plotKernelSeries(), "t", true) }, `unsupported image format "jpg"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tt.render(&buf)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", buf.Len())
			}
		})
	}
}

// TestPlotEdgeCases renders degenerate but valid input: it must not panic.
func TestPlotEdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		render func(w io.Writer) error
	}{
		{"compare zero baseline", func(w io.Writer) error {
			return Compare(w, "png", Bars{Runs: []string{"a", "b"}, Metrics: []BarMetric{
				{"idle", metrics.NS, []float64{0, 3e6}},
				{"copies", metrics.Count, []float64{0, 0}},
				{"util", metrics.Ratio, []float64{0.5, math.NaN()}},
			}}, "t", [2]float64{})
		}},
		{"compare linear", func(w io.Writer) error {
			b := plotCompareBars()
			b.Metrics = append(b.Metrics[3:], BarMetric{"H2D bandwidth", metrics.GBps, []float64{11.2, 12.5, 12.1}})
			return Compare(w, "png", b, "t", [2]float64{})
		}},
		{"compare one run", func(w io.Writer) error {
			return Compare(w, "svg", Bars{Runs: []string{"a"}, Metrics: []BarMetric{{"kernels", metrics.Count, []float64{5}}}}, "", [2]float64{})
		}},
		{"compare many metrics", func(w io.Writer) error {
			b := plotCompareBars()
			b.Metrics = append(b.Metrics, b.Metrics...)
			b.Metrics = append(b.Metrics, b.Metrics...)
			return Compare(w, "png", b, "t", [2]float64{})
		}},
		{"hist all zero", func(w io.Writer) error {
			return KernelHist(w, "png", []Series{{"a", []int64{0, 0}}}, "t", true)
		}},
		{"hist one value", func(w io.Writer) error {
			return KernelHist(w, "png", []Series{{"a", []int64{1500}}, {"b", nil}}, "t", true)
		}},
		{"hist narrow range", func(w io.Writer) error {
			return GapHist(w, "svg", []Series{{"a", []int64{21e3, 30e3, 49e3}}}, "t", true)
		}},
		{"timeline one point", func(w io.Writer) error {
			return Timeline(w, "png", []Line{{"a", []metrics.Point{{StartNS: 7, EndNS: 7, Util: 1}}, 7, 0}, {"b", nil, 0, 1}}, "t")
		}},
		{"top kernels zero time", func(w io.Writer) error {
			return TopKernels(w, "png", []metrics.KernelStat{{Name: "k", Count: 1}}, "t")
		}},
		{"many series", func(w io.Writer) error {
			var s []Series
			for i := range 14 {
				s = append(s, Series{strings.Repeat("run", i+1), lognormalNS(uint64(i), 50, 1e4*float64(i+1), 0.5)})
			}
			return KernelHist(w, "png", s, "t", true)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.render(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.Len() == 0 {
				t.Error("wrote nothing")
			}
			if *plotDir != "" && bytes.HasPrefix(buf.Bytes(), []byte("\x89PNG")) {
				name := "edge_" + strings.ReplaceAll(tt.name, " ", "_") + ".png"
				if err := os.WriteFile(filepath.Join(*plotDir, name), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestPlotHistZeros: 0-ns kernels have no place on a log axis; the legend
// counts them instead of the lowest bar taking them in.
func TestPlotHistZeros(t *testing.T) {
	var buf bytes.Buffer
	if err := KernelHist(&buf, "svg", []Series{{"run", []int64{0, 0, 1000, 2000}}}, "t", true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "run (4 kernels, 3 µs, 2 zero-length kernels not drawn)") {
		t.Errorf("legend does not count the 0-ns kernels")
	}
}

// TestRunStyles: twenty runs (ranks, often) get twenty colours, and the
// lines of the last ten are dashed as well.
func TestRunStyles(t *testing.T) {
	seen := map[color.NRGBA]int{}
	for i := range 20 {
		if j, ok := seen[runColor(i)]; ok {
			t.Errorf("runs %d and %d share colour %v", j, i, runColor(i))
		}
		seen[runColor(i)] = i
		if dashed := len(runLine(i, 1).Dashes) > 0; dashed != (i >= 10) {
			t.Errorf("run %d: dashed %v", i, dashed)
		}
	}
}

// TestStepTicks: a step axis is labelled with whole steps only, and
// labelled at all, however many steps a run has.
func TestStepTicks(t *testing.T) {
	for _, r := range [][2]float64{{2, 4}, {1, 1}, {0, 12}, {1, 20}, {3, 26}, {1, 1000}} {
		labels := 0
		for _, tk := range stepTicks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			labels++
			if tk.Value != math.Trunc(tk.Value) || tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("%v: label %q at %v", r, tk.Label, tk.Value)
			}
		}
		if labels == 0 {
			t.Errorf("%v: no labelled tick", r)
		}
	}
}

// TestBarLabelStart: a bar's value label never crosses the dashed 1× line
// (at 100 points here) nor runs into its bar.
func TestBarLabelStart(t *testing.T) {
	b := &barPlot{ref: 100, hasRef: true}
	id := func(v float64) vg.Length { return vg.Length(v) }
	tests := []struct {
		name       string
		top, n     vg.Length // the bar's top, the label's length
		start      vg.Length
		wantInside bool
	}{
		{"above the line", 120, 30, 120 + labelGap, false},
		{"at the line: clear of its width", 100, 30, 100 + refHalf + labelGap, false},
		{"well under the line", 40, 30, 40 + labelGap, false},
		{"just under the line: lifted over it", 99, 30, 100 + refHalf + labelGap, false},
		{"crossing: inside the bar's top", 80, 30, 80 - labelGap - 30, true},
		{"crossing a bar too short to hold it: over the line", 80, 75, 100 + refHalf + labelGap, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 10, Y: tt.top}}
			start, inside := b.labelStart(r, tt.n, id)
			if start != tt.start || inside != tt.wantInside {
				t.Errorf("labelStart = %v, %v; want %v, %v", start, inside, tt.start, tt.wantInside)
			}
			end := start + tt.n
			if !inside && start < tt.top+labelGap {
				t.Errorf("label from %v runs into its bar (top %v)", start, tt.top)
			}
			if end > 100-refHalf && start < 100+refHalf {
				t.Errorf("label from %v to %v crosses the line", start, end)
			}
		})
	}
}

// TestFitNames: the names of TopKernels fit the room left of the axis,
// however wide their letters, and say where they were cut.
func TestFitNames(t *testing.T) {
	ks := append(plotKernelStats(), metrics.KernelStat{Name: strings.Repeat("WM", 40)}, metrics.KernelStat{Name: "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)"})
	st := styled(newPlot().Y.Tick.Label, 9, 0, 0)
	for i, s := range fitNames(st, ks, func(k metrics.KernelStat) string { return k.Name }, topNameWidth) {
		if w := st.Width(s); w > topNameWidth {
			t.Errorf("%q: %.0f points wide, want at most %d", s, w, topNameWidth)
		}
		if s != ks[i].Name && !strings.Contains(s, "…") {
			t.Errorf("%q, cut from %q, has no ellipsis", s, ks[i].Name)
		}
	}
}
