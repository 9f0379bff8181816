package main

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gpuRun is a real ViT run of testdata/gpu: ten ProfilerStep#N.
func gpuRun(name string) string {
	return "../../testdata/gpu/vit-small_" + name + "_b1.pt.trace.json.gz"
}

// TestStepLessFirstRun: an Nsight export (no ProfilerStep#N, so no median
// step) first, and a run with steps second: compare --plot and report
// draw, the first run's missing median step rebased on the second, where
// they used to exit 1 claiming the first run had no GPU activity.
func TestStepLessFirstRun(t *testing.T) {
	nsys := filepath.Join(realTraces(t), "nsys/nsys2024.2.1_mmagic_pytorch.sqlite")
	dir := t.TempDir()
	img := filepath.Join(dir, "modes.png")
	_, errOut, code := traceql("compare", nsys, gpuRun("eager"), "--plot", img)
	if code != 0 {
		t.Fatalf("compare --plot, Nsight first: exit %d: %s", code, errOut)
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", img, err)
	}
	svg := filepath.Join(dir, "modes.svg")
	if _, errOut, code := traceql("compare", nsys, gpuRun("eager"), "--plot", svg); code != 0 {
		t.Fatalf("compare --plot svg: exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(svg)
	if !strings.Contains(string(b), "has none; bars are ratios to vit-small_eager_b1") {
		t.Errorf("the plot does not say the median step is rebased on the second run")
	}
	html := filepath.Join(dir, "r.html")
	if _, errOut, code := traceql("report", "-q", nsys, gpuRun("eager"), "-o", html); code != 0 {
		t.Fatalf("report, Nsight first: exit %d: %s", code, errOut)
	}
	// A step-less Kineto run (vLLM decode) first.
	vllm := filepath.Join(realTraces(t), "kineto/vllm_decode_mi300x_hipgraph.json.gz")
	if _, errOut, code := traceql("compare", vllm, gpuRun("eager"), "--plot", svg); code != 0 {
		t.Fatalf("compare --plot, step-less Kineto first: exit %d: %s", code, errOut)
	}
}

// TestComparePlotMetrics: --metrics picks the bars drawn, in its order.
func TestComparePlotMetrics(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "m.svg")
	_, errOut, code := traceql("compare", gpuRun("eager"), gpuRun("reduce-overhead"), "--metrics", "gpu_util,launches", "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(svg)
	s := string(b)
	for _, want := range []string{">GPU utilization<", ">kernel launches<"} {
		if !strings.Contains(s, want) {
			t.Errorf("the plot has no %s bars", want)
		}
	}
	for _, not := range []string{">mean kernel<", ">span<", ">kernels<"} {
		if strings.Contains(s, not) {
			t.Errorf("the plot draws %s, which --metrics did not ask for", not)
		}
	}
	if u, l := strings.Index(s, ">GPU utilization<"), strings.Index(s, ">kernel launches<"); u > l {
		t.Error("bars not in the order of --metrics")
	}
}

// TestPlotOpsSelf: plot --kind ops draws self time, which it says; the
// total of aten::linear (which holds aten::addmm) is not drawn.
func TestPlotOpsSelf(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "ops.svg")
	if _, errOut, code := traceql("plot", gpuRun("eager"), "--kind", "ops", "-o", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(svg)
	if s := string(b); !strings.Contains(s, "self time") || !strings.Contains(s, "host ops by self time") {
		t.Errorf("the ops plot does not say it draws self time")
	}
}

// TestFoldersEverywhere: every command that reads several traces takes a
// DIR, and skips what a folder holds besides traces (a dataset's
// classes.json, ["cat","dog"]) with a note, as summarize does.
func TestFoldersEverywhere(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"eager", "reduce-overhead"} {
		abs, _ := filepath.Abs(gpuRun(n))
		if err := os.Symlink(abs, filepath.Join(dir, filepath.Base(abs))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "classes.json"), []byte(`["cat","dog"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, args := range [][]string{
		{"summarize", dir},
		{"export", dir, "-t", "summary"},
		{"compare", dir},
		{"compare", dir, "-f", "csv"},
		{"diff", dir},
		{"plot", dir, "-o", filepath.Join(out, "k.svg")},
		{"plot", dir, "--kind", "steps", "-o", filepath.Join(out, "s.svg")},
		{"report", dir, "-o", filepath.Join(out, "r.html")},
	} {
		stdout, errOut, code := traceql(args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
			continue
		}
		if !strings.Contains(errOut, "classes.json: skipped, not a trace") {
			t.Errorf("%s: no note of the skipped classes.json: %q", args[0], errOut)
		}
		if args[0] == "compare" || args[0] == "diff" {
			for _, want := range []string{"vit-small_eager_b1", "vit-small_reduce-overhead_b1"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("%s: %s missing from the output", strings.Join(args, " "), want)
				}
			}
		}
	}
	// A folder with one trace is not two runs.
	one := t.TempDir()
	abs, _ := filepath.Abs(gpuRun("eager"))
	os.Symlink(abs, filepath.Join(one, "a.pt.trace.json.gz"))
	for _, cmd := range []string{"compare", "diff"} {
		if _, errOut, code := traceql(cmd, one); code == 0 || !strings.Contains(errOut, "1 trace") {
			t.Errorf("%s of a folder of one trace: exit %d, %q", cmd, code, errOut)
		}
	}
	// --label, one per trace found.
	if _, errOut, code := traceql("compare", dir, "--label", "a"); code != 2 || !strings.Contains(errOut, "1 label for 2 traces") {
		t.Errorf("compare DIR --label a: exit %d, %q", code, errOut)
	}
}

// hostOp is a cpu_op as a test reads it apart from traceql, in file order.
type hostOp struct {
	name, thread string
	start, end   int64
}

// selfTimes sums each op name's self time by brute force: an op's parent
// is, among the ops of its thread that come before it (by start, the
// longer first, then in file order: the caller first) and are still
// running when it starts, the last one; the child's time inside its
// parent is the parent's no more.
func selfTimes(ops []hostOp) map[string]int64 {
	before := func(b, a int) bool { // b is visited before a
		x, y := ops[b], ops[a]
		if x.start != y.start {
			return x.start < y.start
		}
		if x.end != y.end {
			return x.end > y.end
		}
		return b < a
	}
	self := make([]int64, len(ops))
	for a, op := range ops {
		self[a] += op.end - op.start
		parent := -1
		for b, p := range ops {
			if b != a && p.thread == op.thread && before(b, a) && p.end > op.start && (parent < 0 || before(parent, b)) {
				parent = b
			}
		}
		if parent >= 0 {
			self[parent] -= min(op.end, ops[parent].end) - op.start
		}
	}
	out := map[string]int64{}
	for i, op := range ops {
		out[op.name] += self[i]
	}
	return out
}

// TestSmallThings: a label given twice is refused; export -o x.xlsx is
// refused rather than written as CSV; diff and compare say when the runs
// measured different numbers of steps (10 against the warm-up run's 6).
func TestSmallThings(t *testing.T) {
	for _, args := range [][]string{
		{"compare", gpuRun("eager"), gpuRun("default"), "--label", "a,a"},
		{"diff", gpuRun("eager"), gpuRun("default"), "--label", "a,a"},
		{"plot", gpuRun("eager"), gpuRun("default"), "--label", "a,a", "-o", filepath.Join(t.TempDir(), "x.svg")},
	} {
		if _, errOut, code := traceql(args...); code != 2 || !strings.Contains(errOut, "--label a: given twice") {
			t.Errorf("%s --label a,a: exit %d, %q", args[0], code, errOut)
		}
	}
	xlsx := filepath.Join(t.TempDir(), "x.xlsx")
	if _, errOut, code := traceql("export", gpuRun("eager"), "-o", xlsx); code != 2 || !strings.Contains(errOut, "export writes .csv, .json, .jsonl or .parquet, not .xlsx") {
		t.Errorf("export -o x.xlsx: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(xlsx); err == nil {
		t.Error("x.xlsx written")
	}
	warm := "../../testdata/gpu/vit-small_reduce-overhead_b1_warmup.pt.trace.json.gz"
	for _, cmd := range []string{"diff", "compare"} {
		out, errOut, code := traceql(cmd, gpuRun("eager"), warm)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "the runs measured different numbers of steps (") {
			t.Errorf("%s, 10 steps against 6: exit %d, %s; no note of the step counts:\n%s", cmd, code, errOut, out)
		}
		out, _, _ = traceql(cmd, gpuRun("eager"), gpuRun("default"))
		if strings.Contains(out, "different numbers of steps") {
			t.Errorf("%s, 10 steps against 10: a note of different step counts", cmd)
		}
	}
}

// TestTopCutsDrillDowns: --top, given, cuts summarize --by kernel and op
// to that many rows and says how many there are; without it they list
// every row, as before.
func TestTopCutsDrillDowns(t *testing.T) {
	out, errOut, code := traceql("summarize", gpuRun("eager"), "--by", "kernel,op", "--top", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"the top 2 of 12 kernel names (--top); every one: export --table kernel-stats", "the top 2 of 10 ops (--top); every one: without --top"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no note %q:\n%s", want, out)
		}
	}
	out, _, _ = traceql("summarize", gpuRun("eager"), "--by", "kernel,op")
	if strings.Contains(out, "(--top)") {
		t.Errorf("cut without --top:\n%s", out)
	}
}

// TestNamesShortDistinct: summarize --names short lists the real run's
// ten top kernels under ten different names, piped and at 80 columns
// (the cut keeps where they differ); diff --names short of the run
// against itself pairs all 12 kernels, the two GEMMs apart.
func TestNamesShortDistinct(t *testing.T) {
	names := func(out string) []string {
		_, table, _ := strings.Cut(out, "top kernels by total time\n")
		table, _, _ = strings.Cut(table, "\n\n")
		var ns []string
		for _, line := range strings.Split(table, "\n")[1:] {
			if f := strings.Fields(line); len(f) > 7 {
				ns = append(ns, strings.Join(f[7:], " "))
			}
		}
		return ns
	}
	out, errOut, code := traceql("summarize", gpuRun("eager"), "--names", "short")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ios, o, e := testStreams()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(80)
	if code := run(context.Background(), []string{"summarize", gpuRun("eager"), "--names", "short"}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, ns := range [][]string{names(out), names(o.String())} {
		seen := map[string]bool{}
		for _, n := range ns {
			if seen[n] {
				t.Errorf("two kernels named %q", n)
			}
			seen[n] = true
		}
		if len(ns) != 10 {
			t.Errorf("%d kernel rows, want 10: %q", len(ns), ns)
		}
	}
	out, _, _ = traceql("diff", gpuRun("eager"), gpuRun("eager"), "--names", "short")
	if !strings.Contains(out, "12 kernel names in both runs, 0 only in new, 0 only in old") || strings.Count(out, "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_") != 2 {
		t.Errorf("the run against itself, --names short: not its 12 kernels, both GEMMs apart:\n%s", out)
	}
}

// TestReportMade: the report says how it was made (version, date,
// command) and shows an absolute path outside the working directory by
// its base name: the folder (a home directory, a user name) stays home.
func TestReportMade(t *testing.T) {
	abs, _ := filepath.Abs(gpuRun("eager"))
	dir := t.TempDir()
	link := filepath.Join(dir, "run.pt.trace.json.gz")
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "r.html")
	if _, errOut, code := traceql("report", link, "-o", page, "--top", "5"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(page)
	if strings.Contains(string(b), dir) {
		t.Errorf("the page shows the folder %s", dir)
	}
	if !strings.Contains(string(b), "UTC: traceql report run.pt.trace.json.gz --output=r.html --top=5") {
		t.Errorf("no line of how the page was made")
	}
}

// TestTinyCopies: 10 D2H copies of 8 B each (the ViT run's loss read
// back) are no bandwidth headline, and no default compare row; asked for
// by name, the row is there.
func TestTinyCopies(t *testing.T) {
	out, _, _ := traceql("summarize", gpuRun("eager"))
	if !strings.Contains(out, "D2H 80 B in 10 tiny copies") || strings.Contains(out, "0.00519 GB/s") {
		t.Errorf("summarize:\n%s", out)
	}
	out, _, _ = traceql("compare", gpuRun("eager"), gpuRun("default"))
	if strings.Contains(out, "D2H bandwidth") || !strings.Contains(out, "H2D bandwidth") {
		t.Errorf("compare: want H2D's bandwidth, not D2H's:\n%s", out)
	}
	out, _, _ = traceql("compare", gpuRun("eager"), gpuRun("default"), "--metrics", "d2h_gbps")
	if !strings.Contains(out, "D2H bandwidth") {
		t.Errorf("compare --metrics d2h_gbps: no row:\n%s", out)
	}
}
