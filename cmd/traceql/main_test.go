package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// traceql runs the whole CLI in-process, its stdout and stderr a pipe's
// (testStreams).
func traceql(args ...string) (stdout, stderr string, code int) {
	ios, o, e := testStreams()
	code = run(context.Background(), args, ios)
	return o.String(), e.String(), code
}

// checkRun pins what a user sees of one run: stdout in
// testdata/NAME.golden and stderr, warnings and notes, in
// testdata/NAME.stderr.golden, absent when there is none (benchstat's
// x.stdout and x.stderr).
func checkRun(t *testing.T, name, stdout, stderr string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(stdout))
	golden.CheckOptional(t, filepath.Join("testdata", name+".stderr.golden"), []byte(stderr))
}

// sample is the README's sample trace, made by internal/synth.
const sample = "../../testdata/sample.pt.trace.json.gz"

func TestSummarizeGolden(t *testing.T) {
	realPair := func(t *testing.T) []string {
		rel := realTraces(t)
		return []string{filepath.Join(rel, "hta/trace_compare/base/base.json.gz"), filepath.Join(rel, "kineto/vllm_decode_mi300x_hipgraph.json.gz")}
	}
	tests := []struct {
		name  string
		args  func(t *testing.T) []string
		flags []string
	}{
		{"sample.text", func(*testing.T) []string { return []string{sample} }, nil},
		{"sample.csv", func(*testing.T) []string { return []string{sample} }, []string{"--format", "csv"}},
		{"sample.json", func(*testing.T) []string { return []string{sample} }, []string{"--format", "json", "--top", "3"}},
		{"sample.md", func(*testing.T) []string { return []string{sample} }, []string{"--format", "markdown", "--top", "3"}},
		{"real.text", realPair, nil},
		{"real.csv", realPair, []string{"--format", "csv"}},
		{"cpu_only.text", func(t *testing.T) []string { return []string{filepath.Join(realTraces(t), "hta/cpu_only")} }, nil},
		{"sample.all.text", func(*testing.T) []string { return []string{sample} }, []string{"--all"}},
		{"sample.steps.csv", func(*testing.T) []string { return []string{sample} }, []string{"--steps", "3:", "-f", "csv"}},
		{"sample.by-kernel.text", func(*testing.T) []string { return []string{sample} }, []string{"--by", "kernel", "--names", "short", "--device", "0"}},
		{"compile.text", func(t *testing.T) []string {
			return []string{filepath.Join(realTraces(t), "more/tracelens__inference__xdit_flux.1__split_iteration_1.json.gz")}
		}, []string{"--top", "3"}},
		// Read with its cpu_ops, the ops launching the eager kernels too.
		{"compile.by-op.text", func(t *testing.T) []string {
			return []string{filepath.Join(realTraces(t), "more/tracelens__inference__xdit_flux.1__split_iteration_1.json.gz")}
		}, []string{"--top", "3", "--by", "op"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"summarize"}, tt.flags...)
			args = append(args, tt.args(t)...)
			out, errOut, code := traceql(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkRun(t, tt.name, out, errOut)
		})
	}
}

// TestSummarizeRanks: a folder of rank files summarizes in natural order,
// and the text output ends with the overview of all ranks, whose lowest
// utilization and least communication time are the CSV's.
func TestSummarizeRanks(t *testing.T) {
	dir := t.TempDir()
	for i, rank := range []int{10, 2, 1} {
		cfg := synth.Config{Seed: int64(i + 1), Streams: 2, Steps: 2, KernelsPerStep: 20 + 10*i, Rank: rank, WorldSize: 16}
		if _, err := synth.WriteFile(filepath.Join(dir, fmt.Sprintf("rank%d.json", rank)), cfg, false); err != nil {
			t.Fatal(err)
		}
	}
	csvOut, errOut, code := traceql("summarize", dir, "-f", "csv")
	if code != 0 {
		t.Fatalf("csv: %s", errOut)
	}
	recs := csvRecords(t, csvOut)
	col, commCol := slices.Index(recs[0], "gpu_util"), slices.Index(recs[0], "comm_ns")
	var ranks []string
	var comm []int
	lowest, lowestUtil, least := "", 2.0, ""
	for _, r := range recs[1:] {
		ranks = append(ranks, r[1])
		if u, _ := strconv.ParseFloat(r[col], 64); u < lowestUtil {
			lowest, lowestUtil = r[0], u
		}
		c, _ := strconv.Atoi(r[commCol])
		if len(comm) == 0 || c < slices.Min(comm) {
			least = r[0]
		}
		comm = append(comm, c)
	}
	if want := []string{"1", "2", "10"}; !slices.Equal(ranks, want) {
		t.Errorf("CSV ranks %v, want %v", ranks, want)
	}
	// One file at a time, or all at once: the same rows.
	for _, args := range [][]string{{"summarize", "-j", "1"}, {"summarize", "--jobs", "3"}, {"export", "-j", "1"}, {"export"}} {
		if out, errOut, code := traceql(append(args, dir, "-f", "csv")...); code != 0 || out != csvOut {
			t.Errorf("%v: exit %d, %s\n%s\nwant\n%s", args, code, errOut, out, csvOut)
		}
	}
	if _, errOut, code := traceql("export", dir, "-j", "-1"); code != 2 || !strings.Contains(errOut, "--jobs -1") {
		t.Errorf("-j -1: exit %d, %s; want a usage error", code, errOut)
	}

	out, errOut, code := traceql("summarize", dir)
	if code != 0 {
		t.Fatalf("text: %s", errOut)
	}
	_, overview, ok := strings.Cut(out, "3 traces read; one row per trace and GPU\n")
	if !ok {
		t.Fatalf("no overview in:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(overview), "\n")
	// The generated ranks' communication times are such that the least is
	// under half the median, which the straggler note asks for.
	slices.Sort(comm)
	if comm[0] >= comm[1]/2 {
		t.Fatalf("communication times %v: the least is not under half the median", comm)
	}
	if len(lines) != 10 || !strings.HasPrefix(lines[9], "  GPUs by bound") { // header, 3 ranks, min, median, max, 3 notes
		t.Fatalf("overview:\n%s", overview)
	}
	for i, f := range []string{"rank1.json", "rank2.json", "rank10.json"} {
		if !strings.Contains(lines[1+i], filepath.Join(dir, f)) {
			t.Errorf("row %d is not %s: %s", i, f, lines[1+i])
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[7]), "lowest GPU utilization: "+lowest+" GPU 0, ") {
		t.Errorf("note %q does not name %s", lines[7], lowest)
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[8]), "least communication time: "+least+" GPU 0, ") {
		t.Errorf("note %q does not name %s", lines[8], least)
	}
	// --overview prints that table alone.
	only, errOut, code := traceql("summarize", "--overview", dir)
	if code != 0 || only != "3 traces read; one row per trace and GPU\n"+overview {
		t.Errorf("--overview: exit %d, %s\n%s\nwant the overview alone:\n%s", code, errOut, only, overview)
	}
	if _, errOut, code := traceql("summarize", "--overview", "-f", "csv", dir); code != 2 || !strings.Contains(errOut, "--overview") {
		t.Errorf("--overview with CSV: exit %d, %s; want a usage error", code, errOut)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no args", []string{"summarize"}, 2, "traceql: summarize needs at least 1 FILE or DIR; see traceql summarize --help"},
		{"compare one", []string{"compare", "a"}, 2, "compare needs at least 2 FILEs"},
		{"steps reversed", []string{"summarize", "--steps", "5:3", "x"}, 2, `--steps "5:3": the last step is before the first`},
		{"empty window", []string{"summarize", "--window", "1ms:1ms", "x"}, 2, `--window "1ms:1ms": want an end after the start`},
		{"window after the trace", []string{"summarize", "--window", "100s:", sample}, 1, "--window 100s: starts after the GPU activity, which lasts 18.2 ms"},
		{"skip all steps", []string{"summarize", "--skip-steps", "99", sample}, 1, "sample.pt.trace.json.gz: --skip-steps 99 selects none of steps 2..4"},
		{"bad format", []string{"summarize", "--format", "xml", "x"}, 2, `--format "xml": want one of text, csv, json, markdown`},
		{"md is markdown only", []string{"export", "--format", "md", "x"}, 2, `--format "md": want one of csv, json, jsonl, parquet`},
		{"bad flag", []string{"summarize", "--nope", "x"}, 2, "unknown flag: --nope"},
		{"unknown command", []string{"sumarize"}, 2, "unknown command"},
		{"unknown shell", []string{"completion", "tcsh"}, 2, `completion: no shell "tcsh"`},
		{"missing file", []string{"summarize", filepath.Join(dir, "missing.json")}, 1, "missing.json: no such file"},
		{"empty file", []string{"summarize", write("empty.json", "")}, 1, "empty.json: empty file"},
		{"plain text", []string{"summarize", write("notes.txt", "hello")}, 1, "notes.txt: unknown trace format: expected"},
		{"nsys-rep hint", []string{"summarize", write("r.nsys-rep", "\x00\x01binary")}, 1, "nsys export --type sqlite"},
		{"json syntax", []string{"summarize", write("bad.json", `{"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"dur":2},{"ph":"X","cat":kernel}]}`)}, 1, "bad.json: byte 73: event #1: invalid JSON"},
		{"no traceEvents", []string{"summarize", write("obj.json", `{"a":1}`)}, 1, "obj.json: a JSON object without a traceEvents array"},
		{"events not array", []string{"summarize", write("ev.json", `{"traceEvents":5}`)}, 1, "ev.json: byte 15: traceEvents is not an array"},
		{"top 0", []string{"summarize", "--top", "0", "x"}, 2, "--top 0: want at least 1"},
		{"diff top -1", []string{"diff", "--top", "-1", "a", "b"}, 2, "--top -1: want at least 1"},
		{"plot top -1", []string{"plot", "--kind", "top", "--top", "-1", "-o", "x.png", "a"}, 2, "--top -1: want at least 1"},
		{"plot bins 0", []string{"plot", "--kind", "timeline", "--bins", "0", "-o", "x.png", "a"}, 2, "--bins 0: want at least 1"},
		{"plot bins too many", []string{"plot", "--kind", "timeline", "--bins", "2001", "-o", "x.png", "a"}, 2, "--bins 2001: at most 2000"},
		{"output is a dir", []string{"export", sample, "-o", dir}, 2, "-o " + dir + ": is a directory"},
		{"output dir missing", []string{"export", sample, "-o", filepath.Join(dir, "no", "x.csv")}, 1, filepath.Join(dir, "no", "x.csv") + ": no such file or directory"},
		{"junk dir", []string{"summarize", t.TempDir()}, 1, "no trace files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := traceql(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.want)
			}
			if tt.code == 1 && strings.Count(strings.TrimSpace(errOut), "\n") > 0 || strings.Contains(errOut, "goroutine") {
				t.Errorf("want one line, got %q", errOut)
			}
		})
	}
}

// TestTruncatedIsAWarning: every command reads a truncated trace up to the
// cut and says so on stderr, where a redirect of the output cannot hide it.
func TestTruncatedIsAWarning(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cut.json")
	full := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":2},`
	os.WriteFile(p, []byte(full+`{"ph":"X","ca`), 0o644)
	want := "traceql: warning: " + p + ": truncated at byte 155: 2 events read\n"
	for _, args := range [][]string{
		{"summarize", p},
		{"summarize", "--overview", p},
		{"summarize", "-f", "csv", p},
		{"diff", p, sample},
		{"compare", p, sample},
		{"plot", p, "-o", filepath.Join(dir, "k.png")},
		{"pprof", p, "-o", filepath.Join(dir, "p.pb.gz")},
		{"export", p},
	} {
		out, errOut, code := traceql(args...)
		if code != 0 || errOut != want || strings.Contains(out, "truncated") {
			t.Errorf("%v: exit %d, stderr %q, want %q only there", args, code, errOut, want)
		}
	}
	_, errOut, code := traceql("summarize", "--strict", p)
	if code != 1 || !strings.Contains(errOut, "truncated at byte") {
		t.Errorf("--strict: exit %d, %q", code, errOut)
	}
}

// TestHelpShowsDefinitions: every metric's name, label (where it differs)
// and definition is in summarize --help (wrapped: compared with whitespace collapsed).
func TestHelpShowsDefinitions(t *testing.T) {
	out, _, code := traceql("summarize", "--help")
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, c := range metrics.Columns() {
		want := []string{c.Name + " ", c.Doc}
		if c.Label != c.Name {
			want = append(want, strconv.Quote(c.Label)+": ")
		}
		for _, s := range want {
			if !strings.Contains(flat, strings.Join(strings.Fields(s), " ")) {
				t.Errorf("--help lacks %q", s)
			}
		}
	}
}

// realTraces returns the path of ../shared/traces relative to this package,
// so that golden output does not depend on where the checkout lives.
func realTraces(t *testing.T) string {
	dir := shared.Traces(t)
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestDiffCompareGolden(t *testing.T) {
	tests := []struct {
		name string
		args func(dir string) []string
	}{
		{"diff_resnet_workers", func(d string) []string {
			return []string{"diff", d + "/kineto/resnet50_v100_workers0.pt.trace.json.gz", d + "/kineto/resnet50_v100_workers4.pt.trace.json.gz", "--top", "10"}
		}},
		{"diff_hta_family", func(d string) []string {
			return []string{"diff", d + "/hta/trace_diff/control/control.json.gz", d + "/hta/trace_diff/test/test.json.gz", "--group", "family", "--top", "10"}
		}},
		{"diff_hta.csv", func(d string) []string {
			return []string{"diff", d + "/hta/trace_diff/control/control.json.gz", d + "/hta/trace_diff/test/test.json.gz", "--format", "csv"}
		}},
		{"diff_resnet_by_op", func(d string) []string {
			return []string{"diff", d + "/kineto/resnet50_v100_workers0.pt.trace.json.gz", d + "/kineto/resnet50_v100_workers4.pt.trace.json.gz",
				"--by", "op", "--top", "5", "--names", "short"}
		}},
		{"compare_resnet_metrics.md", func(d string) []string {
			return []string{"compare", d + "/kineto/resnet50_v100_workers0.pt.trace.json.gz", d + "/kineto/resnet50_v100_workers4.pt.trace.json.gz",
				"--label", "workers0,workers4", "--metrics", "span_ns,idle_launch_ns,launch_mean_ns,queue_delay_median_ns", "-f", "markdown"}
		}},
		{"compare_cpu_only", func(d string) []string {
			return []string{"compare", d + "/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", d + "/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", "--label", "a,b"}
		}},
		{"compare_resnet", func(d string) []string {
			return []string{"compare", d + "/kineto/resnet50_v100_workers0.pt.trace.json.gz", d + "/kineto/resnet50_v100_workers4.pt.trace.json.gz",
				d + "/nsys/nsys2024.2.1_mmagic_pytorch.sqlite", "--label", "workers0,workers4,nsys"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(tt.args(realTraces(t))...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkRun(t, tt.name, out, errOut)
		})
	}
}

// TestMarkdownAlias holds -f md to -f markdown in every command with a
// markdown output.
func TestMarkdownAlias(t *testing.T) {
	for _, args := range [][]string{{"summarize", sample}, {"diff", sample, sample}, {"compare", sample, sample}} {
		md, errOut, code := traceql(append(args, "-f", "md")...)
		if code != 0 {
			t.Fatalf("%v -f md: exit %d: %s", args, code, errOut)
		}
		markdown, _, _ := traceql(append(args, "-f", "markdown")...)
		if md != markdown || !strings.Contains(md, "\n|") {
			t.Errorf("%v: -f md wrote %q, -f markdown %q", args, md, markdown)
		}
	}
}

// TestDiffKnownDeltas diffs two generated traces whose true numbers are
// known and checks the deltas the CSV reports.
func TestDiffKnownDeltas(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json.gz")
	ta, err := synth.WriteFile(a, synth.Config{Seed: 1, Streams: 2, Steps: 4, KernelsPerStep: 30}, false)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := synth.WriteFile(b, synth.Config{Seed: 2, Streams: 3, Steps: 4, KernelsPerStep: 50, GraphLaunches: 2}, true)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := traceql("diff", a, b, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := csvRecords(t, out)
	got := map[string][]string{}
	for _, r := range rows[1:] {
		got[r[4]] = r[5:8] // old, new, delta
	}
	da, db := ta.Devices[0], tb.Devices[0]
	want := map[string][3]int64{
		"kernels":   {int64(da.Kernels), int64(db.Kernels), int64(db.Kernels - da.Kernels)},
		"busy_ns":   {da.BusyNS, db.BusyNS, db.BusyNS - da.BusyNS},
		"idle_ns":   {da.IdleNS, db.IdleNS, db.IdleNS - da.IdleNS},
		"idle_gaps": {int64(da.IdleGaps), int64(db.IdleGaps), int64(db.IdleGaps - da.IdleGaps)},
		"h2d_bytes": {da.H2D.Bytes, db.H2D.Bytes, db.H2D.Bytes - da.H2D.Bytes},
	}
	for m, w := range want {
		if g := got[m]; len(g) != 3 || g[0] != fmt.Sprint(w[0]) || g[1] != fmt.Sprint(w[1]) || g[2] != fmt.Sprint(w[2]) {
			t.Errorf("%s: old,new,delta = %v, want %v", m, g, w)
		}
	}
}

// TestExportSteps checks the steps table against a generated trace's
// truth: each device's gpu_user_annotation window of each step, and the
// step's kernels over all devices.
func TestExportSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.json")
	truth, err := synth.WriteFile(path, synth.Config{Seed: 3, Devices: 2, Streams: 2, Steps: 5, KernelsPerStep: 25}, false)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := traceql("export", path, "--table", "steps")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := csvRecords(t, out)
	type key struct{ dev, step string }
	got := map[key][]string{}
	for _, r := range rows[1:] {
		got[key{r[1], r[2]}] = r
	}
	n := 0
	for _, st := range truth.Steps {
		kernels := 0
		for _, w := range st.GPU {
			r := got[key{fmt.Sprint(w.Device), fmt.Sprint(st.Number)}]
			if r == nil {
				t.Errorf("no row for GPU %d, step %d", w.Device, st.Number)
				continue
			}
			n++
			// The annotation spans the step's GPU activity and 1 ns either side.
			if want := []string{fmt.Sprint(w.StartNS - 1), fmt.Sprint(w.EndNS + 1), fmt.Sprint(w.EndNS - w.StartNS + 2)}; !slices.Equal(r[3:6], want) {
				t.Errorf("GPU %d, step %d: start, end, dur %v, want %v", w.Device, st.Number, r[3:6], want)
			}
			if src := r[slices.Index(rows[0], "source")]; src != "gpu" {
				t.Errorf("GPU %d, step %d: source %q, want gpu", w.Device, st.Number, src)
			}
			k, _ := strconv.Atoi(r[6])
			kernels += k
			// The busy classes split busy_ns; with idle_ns, the step.
			var classes, busy, idle, dur int64
			for i, h := range rows[0] {
				v, _ := strconv.ParseInt(r[i], 10, 64)
				switch h {
				case "compute_ns", "comm_exposed_ns", "h2d_exposed_ns", "d2h_exposed_ns", "other_copy_exposed_ns", "memset_exposed_ns":
					classes += v
				case "busy_ns":
					busy = v
				case "idle_ns":
					idle = v
				case "dur_ns":
					dur = v
				}
			}
			if classes != busy || busy+idle != dur || busy == 0 {
				t.Errorf("GPU %d, step %d: classes %d, busy %d, idle %d, dur %d", w.Device, st.Number, classes, busy, idle, dur)
			}
		}
		if kernels != st.Kernels {
			t.Errorf("step %d: %d kernels over the devices, want %d", st.Number, kernels, st.Kernels)
		}
	}
	if n == 0 || n != len(rows)-1 {
		t.Errorf("%d rows, %d of them matched to the truth's steps", len(rows)-1, n)
	}
}

func TestPlotAndExportFiles(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"kernels", "gaps", "timeline", "top", "steps", "breakdown"} {
		out := filepath.Join(dir, kind+".png")
		args := []string{"plot", sample, sample, "--label", "a,b", "--kind", kind, "-o", out}
		if kind == "top" { // one run's kernels
			args = []string{"plot", sample, "--kind", kind, "-o", out}
		}
		if _, errOut, code := traceql(args...); code != 0 {
			t.Fatalf("plot %s: exit %d: %s", kind, code, errOut)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() < 400 {
			t.Errorf("%s: %v, bounds %v", kind, err, img.Bounds())
		}
	}
	if _, errOut, code := traceql("compare", sample, sample, "--plot", filepath.Join(dir, "modes.svg")); code != 0 {
		t.Fatalf("compare --plot: %s", errOut)
	}
	if _, errOut, code := traceql("plot", sample, "-o", filepath.Join(dir, "x.pdf")); code != 2 || !strings.Contains(errOut, ".png or .svg") {
		t.Errorf("plot to .pdf: exit %d, %q", code, errOut)
	}
	out := filepath.Join(dir, "k.csv")
	if _, errOut, code := traceql("export", sample, "--table", "kernels", "-o", out); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), "\n"); n != 1+208 {
		t.Errorf("kernels.csv has %d lines, want header + 208 kernels", n)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestComparePlotSet: compare --plot checks the image's name before it
// reads anything and says what is wrong in one line; it names each image
// it wrote unless -q; when one image of the set cannot be written, the
// others written in the run are removed.
func TestComparePlotSet(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	bmp := filepath.Join(dir, "p.bmp")
	_, errOut, code := traceql("compare", "-q", sample, missing, "--plot", bmp)
	if code != 2 || errOut != "traceql: "+bmp+": plots are written as .png or .svg\n" {
		t.Errorf("--plot p.bmp: exit %d, %q; want 2 and one line", code, errOut)
	}
	if _, errOut, code := traceql("compare", sample, sample, "--plot", filepath.Join(dir, "p.png"), "--plot-size", "1x1"); code != 2 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("--plot-size 1x1: exit %d, %q; want 2 and one line", code, errOut)
	}
	png0, png1 := filepath.Join(dir, "p.png"), filepath.Join(dir, "p.gpu1.png")
	if _, errOut, code := traceql("compare", "-q", sample, sample, "--plot", png0); code != 0 || errOut != "" {
		t.Errorf("-q: exit %d, stderr %q; want 0 and none", code, errOut)
	}
	_, errOut, code = traceql("compare", sample, sample, "--plot", png0)
	if want := "traceql: plot of device pair 1: " + png0 + "\ntraceql: plot of device pair 2: " + png1 + "\n"; code != 0 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
	for _, p := range []string{png0, png1} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
		os.Remove(p)
	}
	if err := os.Mkdir(png1, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = traceql("compare", sample, sample, "--plot", png0)
	if code != 1 || errOut != "traceql: "+png1+": is a directory\n" {
		t.Errorf("second image unwritable: exit %d, %q; want 1 and one line", code, errOut)
	}
	if _, err := os.Stat(png0); err == nil {
		t.Errorf("the first image of a failed set is left behind")
	}
}

func TestExportParquet(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		table string
		rows  int64
		col   string
	}{{"kernels", 208, "dur_ns"}, {"summary", 2, "idle_ns"}, {"steps", 6, "gpu_util"}, {"gaps", 101, "class"}} {
		out := filepath.Join(dir, tt.table+".parquet")
		if _, errOut, code := traceql("export", sample, "--table", tt.table, "--format", "parquet", "-o", out); code != 0 {
			t.Fatalf("export %s: %s", tt.table, errOut)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		if pf.NumRows() != tt.rows {
			t.Errorf("%s: %d rows, want %d", tt.table, pf.NumRows(), tt.rows)
		}
		if _, ok := pf.Schema().Lookup(tt.col); !ok {
			t.Errorf("%s: no column %s in %s", tt.table, tt.col, pf.Schema())
		}
		// The columns come in the CSV's order, not sorted by name.
		csvOut, errOut, code := traceql("export", sample, "--table", tt.table)
		if code != 0 {
			t.Fatalf("export %s: %s", tt.table, errOut)
		}
		var names []string
		for _, c := range pf.Schema().Columns() {
			names = append(names, strings.Join(c, "."))
		}
		if head, _, _ := strings.Cut(csvOut, "\n"); strings.Join(names, ",") != head {
			t.Errorf("%s: Parquet columns\n%s\nwant the CSV's\n%s", tt.table, strings.Join(names, ","), head)
		}
		f.Close()
	}
}

// TestInputsUnchanged: no command modifies its inputs (bytes and mtime).
func TestInputsUnchanged(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.json.gz")
	if err := os.WriteFile(in, data, 0o444); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(in)
	for _, args := range [][]string{
		{"summarize", in}, {"diff", in, in}, {"compare", in, in}, {"export", in, "-t", "kernels"},
		{"plot", in, "-o", filepath.Join(dir, "p.png")}, {"pprof", in, "-o", filepath.Join(dir, "p.pb.gz")},
	} {
		if _, errOut, code := traceql(args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	// An output named like an input (or through a link to it) is refused.
	link := filepath.Join(dir, "link.json.gz")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"export", dir, "-o", in}, {"pprof", in, "-o", link}, {"plot", in, "-o", in},
		{"compare", in, in, "--plot", link},
	} {
		_, errOut, code := traceql(args...)
		if code != 2 || !strings.Contains(errOut, "is also an input") {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, errOut)
		}
	}
	after, _ := os.Stat(in)
	got, _ := os.ReadFile(in)
	if !bytes.Equal(got, data) || !after.ModTime().Equal(before.ModTime()) || after.Mode() != before.Mode() {
		t.Errorf("input changed: bytes equal %v, mtime %v -> %v, mode %v -> %v",
			bytes.Equal(got, data), before.ModTime(), after.ModTime(), before.Mode(), after.Mode())
	}
}

func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.Symlink(b, a)
	os.Symlink(a, b)
	_, errOut, code := traceql("summarize", a)
	if code != 1 || !strings.Contains(errOut, "a.json") || !strings.Contains(errOut, "too many levels of symbolic links") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	// A directory holding the loop: the links are not regular files, so skipped.
	_, errOut, code = traceql("summarize", dir)
	if code != 1 || !strings.Contains(errOut, "no trace files") {
		t.Errorf("dir: exit %d, %q", code, errOut)
	}
}

// TestComplain: an error quoting a file's bytes stays one line of valid
// UTF-8.
func TestComplain(t *testing.T) {
	var b bytes.Buffer
	complain(&b, "x.sqlite: column start: 12\ngoroutine 1\r\x1b[31m \xff\xfe names µs")
	if got, want := b.String(), "traceql: x.sqlite: column start: 12\\ngoroutine 1\\r\\x1b[31m \uFFFD names µs\n"; got != want {
		t.Errorf("complain wrote %q, want %q", got, want)
	}
}

// TestWindowFarOff: a window starting past any time a trace can hold is
// refused as after the GPU activity; the bound once wrapped around and
// took the whole trace.
func TestWindowFarOff(t *testing.T) {
	k := `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1700000000000000,"dur":2,"args":{"device":0,"stream":7}}`
	path := writeTrace(t, "epoch.json", `{"traceEvents":[`+k+`]}`)
	_, errOut, code := traceql("summarize", "--window", "9000000000s:", path)
	if code != 1 || !strings.HasSuffix(errOut, ": --window 9000000000s: starts after the GPU activity, which lasts 2 µs\n") {
		t.Errorf("exit %d, %s; want the window after the trace's GPU activity", code, errOut)
	}
}

// TestRangeOfAnOp: --range measures the GPU work launched in the ops of
// that name, cpu_ops too (which other reads skip), and names a missing one.
func TestRangeOfAnOp(t *testing.T) {
	text := `{"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":5,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":250,"dur":5,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"mm","pid":0,"tid":7,"ts":300,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"other","pid":0,"tid":7,"ts":500,"dur":20,"args":{"device":0,"stream":7,"correlation":2}}]}`
	path := writeTrace(t, "range.json", text)
	out, errOut, code := traceql("export", "--range", "aten::mm", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v:\n%s", err, out)
	}
	col := func(name string) string { return rows[1][slices.Index(rows[0], name)] }
	// From the op's start to the end of the kernel it launched.
	if col("kernels") != "1" || col("kernel_ns") != "10000" || col("span_ns") != "10000" {
		t.Errorf("kernels %s, kernel_ns %s, span_ns %s; want the one kernel aten::mm launched",
			col("kernels"), col("kernel_ns"), col("span_ns"))
	}
	_, errOut, code = traceql("summarize", "--range", "aten::add", path)
	if code != 1 || !strings.Contains(errOut, `no range, annotation or op named "aten::add"`) {
		t.Errorf("exit %d, %s; want no such range", code, errOut)
	}
}

// TestStrictChecksHostOps: a GPU trace's cpu_ops are skipped, unread,
// except with --strict, which checks every event.
func TestStrictChecksHostOps(t *testing.T) {
	text := `{"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":"soon","dur":100},
 {"ph":"X","cat":"kernel","name":"mm","pid":0,"tid":7,"ts":300,"dur":10,"args":{"device":0,"stream":7}}]}`
	path := writeTrace(t, "badop.json", text)
	if _, errOut, code := traceql("summarize", path); code != 0 || errOut != "" {
		t.Errorf("exit %d, stderr %q; want the op skipped unread", code, errOut)
	}
	_, errOut, code := traceql("summarize", "--strict", path)
	if code != 1 || !strings.Contains(errOut, "cpu_op events with a bad ts skipped") {
		t.Errorf("--strict: exit %d, %s; want the bad op reported", code, errOut)
	}
}

// TestWindowInAGap: a window of a GPU trace with no GPU activity in it,
// here also the range of an op that launched nothing, is summarized by its
// host side, which the lean read leaves out: the ops and calls shown are
// those of a full read (--strict).
func TestWindowInAGap(t *testing.T) {
	text := `{"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":90,"dur":5,"args":{"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":120,"dur":60},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamQuery","pid":1,"tid":1,"ts":130,"dur":1,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":190,"dur":5,"args":{"correlation":3}},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":200,"dur":10,"args":{"device":0,"stream":7,"correlation":3}}]}`
	path := writeTrace(t, "gap.json", text)
	for _, args := range [][]string{{"summarize", "--window", "20us:90us"}, {"summarize", "--window", "20us:90us", "-f", "json"},
		{"summarize", "--range", "aten::copy_"}} {
		lean, errOut, code := traceql(append(args, path)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		full, _, _ := traceql(append(args, "--strict", path)...)
		if lean != full {
			t.Errorf("%v:\n%s\nwith --strict:\n%s", args, lean, full)
		}
	}
	out, _, _ := traceql("summarize", "--window", "20us:90us", path)
	if !strings.Contains(out, "1 host ops, 2 runtime/driver calls") || !strings.Contains(out, "aten::copy_") {
		t.Errorf("want the copy, the poll and the launch at the end in the window:\n%s", out)
	}
}

// TestNoGPUSaysSo: CSV output that leaves out a trace without GPU activity,
// or a GPU without a counterpart, says so on stderr. (summarize of host-only
// traces writes their host rows: TestHostOnly.)
func TestNoGPUSaysSo(t *testing.T) {
	cpu := writeTrace(t, "cpu.json", `{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2}]}`)
	noRows := "traceql: " + cpu + ": no GPU activity (no kernel, memcpy or memset events); no row written\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"export", cpu}, noRows},
		{[]string{"diff", "-f", "csv", cpu, sample}, "traceql: GPU 0 has no counterpart in the old trace\ntraceql: GPU 1 has no counterpart in the old trace\n"},
	} {
		out, errOut, code := traceql(tt.args...)
		if code != 0 || errOut != tt.want || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q and a header only:\n%s", tt.args, code, errOut, tt.want, out)
		}
	}
}

// TestBadRankGoesOn: summarize and export report a trace that fails and
// go on with the others, then exit 1.
func TestBadRankGoesOn(t *testing.T) {
	bad := writeTrace(t, "rank1.json", `{"traceEvents":[{"ph":"X",]}`)
	for _, cmd := range [][]string{{"summarize", "-f", "csv"}, {"export"}} {
		out, errOut, code := traceql(append(cmd, sample, bad, sample)...)
		rows := strings.Count(out, "\n") - 1 // less the header
		if code != 1 || rows != 4 || !strings.HasPrefix(errOut, "traceql: "+bad+": byte 26:") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, %d rows, stderr %q; want exit 1, the sample's 2 rows twice and one error", cmd[0], code, rows, errOut)
		}
	}
}

// writeTrace writes text to a file of this name in a fresh temporary
// folder, and returns its path.
func writeTrace(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSteady: a generated run whose first two steps compile, and the same
// run recorded from its third step on, compare at ×1 on every metric with
// --steady, which leaves the warm-up out; without it, compare says which
// run starts with warm-up, and summarize names the window in every format.
func TestSteady(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	gen, err := synth.WriteIdle(&buf, synth.IdleConfig{Seed: 5, Launches: 300, Steps: 6, WarmupSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	warm, cold := filepath.Join(dir, "warm.json"), filepath.Join(dir, "cold.json")
	if err := os.WriteFile(warm, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := gen.From(3).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cold, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := traceql("compare", warm, cold, "--steady", "-f", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := csvRecords(t, out)
	// A row per run: every measure of warm's steady steps is cold's.
	head, rows := recs[0], map[string][]string{}
	for _, r := range recs[1:] {
		rows[r[0]] = r
	}
	checked := 0
	for j, col := range head {
		switch col {
		case "label", "run", "file", "rank", "world_size", "start_ns", "end_ns", "window":
			continue
		}
		w, c := rows["warm"], rows["cold"]
		if w == nil || c == nil {
			t.Fatalf("rows %v, want warm and cold", recs)
		}
		if c[j] != w[j] {
			t.Errorf("%s: %s with --steady, cold %s", col, w[j], c[j])
		}
		if c[j] != "" && c[j] != "0" {
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("%d values checked, want every nonzero metric", checked)
	}
	out, _, _ = traceql("compare", warm, cold, "--metrics", "span_ns")
	if !strings.Contains(out, "warm: the first 2 steps took over twice the median step time (warm-up or compilation?): --steady leaves them out") ||
		strings.Contains(out, "cold: the first") {
		t.Errorf("compare without --steady does not flag the warm-up of warm alone:\n%s", out)
	}
	for _, steady := range []bool{false, true} {
		args := []string{"export", warm, "--table", "steps"}
		if steady {
			args = append(args, "--steady")
		}
		_, errOut, code := traceql(args...)
		if noted := strings.Contains(errOut, "note: "+warm+": the first 2 steps took over twice the median"); code != 0 || noted == steady {
			t.Errorf("export --steady=%v: exit %d, stderr %q: want the warm-up noted only without --steady", steady, code, errOut)
		}
	}
	for format, want := range map[string]string{
		"text":     "measured: steady: steps 3–6 (warm-up steps 1–2 left out)",
		"csv":      ",steady: steps 3–6 (warm-up steps 1–2 left out),",
		"json":     `"window":"steady: steps 3–6 (warm-up steps 1–2 left out)"`,
		"markdown": "measured: steady: steps 3–6 (warm-up steps 1–2 left out)",
	} {
		out, errOut, code := traceql("summarize", warm, "--steady", "-f", format)
		if code != 0 || !strings.Contains(strings.ReplaceAll(out, `": "`, `":"`), want) {
			t.Errorf("summarize -f %s --steady: exit %d, %s; want %q in:\n%s", format, code, errOut, want, out)
		}
	}
}

// TestUnknownCommand: a misspelt command is one line with the nearest
// commands, exit 2; --version prints the version line.
func TestUnknownCommand(t *testing.T) {
	_, errOut, code := traceql("summarise", sample)
	if code != 2 || errOut != "traceql: unknown command \"summarise\"; did you mean summarize? (see traceql --help)\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out, _, code := traceql("--version")
	v, _, _ := traceql("version")
	if code != 0 || !strings.HasPrefix(out, "traceql ") || !strings.Contains(out, ", go1.") || out != v {
		t.Errorf("--version: exit %d, %q; version: %q", code, out, v)
	}
}

// TestInterrupted: a run cancelled by Ctrl-C prints one line and exits
// 130, as a shell reports SIGINT, not "context canceled" once per file.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"summarize", sample, sample, sample}, {"export", sample, sample}, {"compare", sample, sample},
		{"diff", sample, sample},
	} {
		ios, _, errOut := testStreams()
		code := run(ctx, args, ios)
		if code != 130 || errOut.String() != "traceql: interrupted\n" {
			t.Errorf("%v: exit %d, stderr %q; want 130 and one line", args[0], code, errOut.String())
		}
	}
}

// TestNegativeBytes: a copy with a negative byte count is not taken as
// is ("H2D bytes -1 kB"): it counts as 0 bytes, with a warning, and is an
// error under --strict.
func TestNegativeBytes(t *testing.T) {
	path := writeTrace(t, "neg.json", `{"traceEvents":[`+
		`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5,"args":{"device":0,"stream":7}},`+
		`{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":10,"dur":2,"args":{"device":0,"stream":7,"bytes":-1000}},`+
		`{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":20,"dur":2,"args":{"device":0,"stream":7,"bytes":4000}}]}`)
	out, errOut, code := traceql("summarize", "-f", "csv", path)
	want := "traceql: warning: " + path + ": 1 copies or memsets with a negative byte count (the first: -1000): counted as 0 bytes\n"
	if code != 0 || errOut != want {
		t.Fatalf("exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v:\n%s", err, out)
	}
	for i, name := range recs[0] {
		if name == "h2d_copies" && recs[1][i] != "2" || name == "h2d_bytes" && recs[1][i] != "4000" {
			t.Errorf("%s = %s", name, recs[1][i])
		}
	}
	if _, errOut, code := traceql("summarize", "--strict", path); code != 1 || !strings.Contains(errOut, "negative byte count") {
		t.Errorf("--strict: exit %d, %q", code, errOut)
	}
}

// TestZeroSpan: a device whose activity all falls at one instant has no
// utilization (busy/0): "–" in text, an empty CSV cell, null in JSON,
// NaN in Parquet; not 100 %.
func TestZeroSpan(t *testing.T) {
	path := writeTrace(t, "instant.json", `{"traceEvents":[`+
		`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":0,"args":{"device":0,"stream":7}}]}`)
	out, errOut, code := traceql("summarize", "--all", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var busy, util string
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "GPU" && f[1] == "utilization" {
			util = f[2]
		} else if len(f) > 2 && f[0] == "GPU" && f[1] == "busy" {
			busy = f[2]
		}
	}
	if util != "–" || busy != "–" {
		t.Errorf("text: GPU busy %q, GPU utilization %q, want – for both:\n%s", busy, util, out)
	}
	out, _, _ = traceql("summarize", "-f", "csv", path)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v:\n%s", err, out)
	}
	for i, name := range recs[0] {
		if name == "gpu_util" && recs[1][i] != "" {
			t.Errorf("csv: gpu_util %q, want empty", recs[1][i])
		}
	}
	if out, _, _ = traceql("summarize", "-f", "json", path); !strings.Contains(out, `"gpu_util": null`) {
		t.Errorf("json: no null gpu_util:\n%s", out)
	}
	pq := filepath.Join(t.TempDir(), "s.parquet")
	if _, errOut, code := traceql("export", path, "-o", pq); code != 0 {
		t.Errorf("parquet: exit %d: %s", code, errOut)
	}
}

// TestOverviewCounts: the overview counts every trace read, saying how
// many had no GPU activity, and --overview means it alone even for one
// trace with GPU activity.
func TestOverviewCounts(t *testing.T) {
	host := filepath.Join(t.TempDir(), "cpu.json")
	if err := os.WriteFile(host, []byte(`{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := traceql("summarize", sample, sample, host)
	if code != 0 || !strings.Contains(out, "\n3 traces read, 1 of them without GPU activity (no rows); one row per trace and GPU\n") {
		t.Errorf("exit %d, %s; the overview does not count the host-only trace:\n%s", code, errOut, out)
	}
	out, errOut, code = traceql("summarize", "--overview", sample)
	if code != 0 || !strings.HasPrefix(out, "1 trace read; one row per trace and GPU\n") || strings.Contains(out, "top kernels") {
		t.Errorf("--overview of one trace: exit %d, %s:\n%s", code, errOut, out)
	}
}

// TestFilters: --kernel, --device and --stream keep the kernels a direct
// count over the trace keeps, and the window column says so.
func TestFilters(t *testing.T) {
	tr, err := trace.Open(context.Background(), sample)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{} // device → kernels kept
	for _, k := range tr.Kernels {
		if k.Device == 1 && k.Stream == 7 && strings.HasPrefix(k.Name, "triton") {
			want[strconv.Itoa(k.Device)]++
		}
	}
	out, errOut, code := traceql("summarize", sample, "--kernel", "^triton", "--device", "1", "--stream", "7", "-f", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := csvRecords(t, out)
	col := func(name string) int { return slices.Index(recs[0], name) }
	if len(recs) != 2 || recs[1][col("device")] != "1" || recs[1][col("kernels")] != strconv.Itoa(want["1"]) || want["1"] == 0 ||
		recs[1][col("window")] != "whole; only kernels matching ^triton, device 1, stream 7" {
		t.Errorf("rows %q; want one row of device 1 with %d kernels", recs, want["1"])
	}
	if recs[1][col("bound")] != "none" {
		t.Errorf("bound %q: a device measured in part has no verdict", recs[1][col("bound")])
	}
	if _, errOut, code := traceql("summarize", sample, "--kernel", "("); code != 2 || !strings.Contains(errOut, "--kernel") {
		t.Errorf("--kernel (: exit %d, %s", code, errOut)
	}
}

// TestFiltersKeepNothing: a --device, --stream or --kernel that keeps none
// of a trace's GPU activity is an error that says what the trace has, not
// a summary of a trace whose activity was lost.
func TestFiltersKeepNothing(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--device", "5"}, 1, sample + ": --device 5: no such device; it has devices 0, 1\n"},
		{[]string{"--device", "1", "--stream", "99"}, 1, sample + ": --stream 99: no such stream; it has streams 7, 20, 21\n"},
		{[]string{"--kernel", "^nomatch$"}, 1, sample + ": --kernel \"^nomatch$\" matches none of its kernels\n"},
		{[]string{"--device", "-1"}, 2, "--device -1: want a device number, 0 or more\n"},
	} {
		for _, cmd := range [][]string{{"summarize", sample}, {"compare", sample, sample}, {"export", sample}} {
			out, errOut, code := traceql(append(cmd, tt.args...)...)
			if code != tt.code || errOut != "traceql: "+tt.want || out != "" {
				t.Errorf("%s %q: exit %d, stderr %q, stdout %d bytes; want exit %d, %q", cmd, tt.args, code, errOut, len(out), tt.code, tt.want)
			}
		}
	}
}

// csvRecords parses CSV text, failing t when it is not CSV.
func csvRecords(t *testing.T, text string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// readFile returns the bytes of path, failing t when it cannot be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
