package main

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"

	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/internal/usns"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// writeHostRuns writes an eager and a compiled host-only run of the same
// generated program, the compiled one twice as fast, as eager.json and
// compiled.json, and returns their paths and what was written.
func writeHostRuns(t *testing.T) (paths []string, runs []synth.CompileTrace) {
	t.Helper()
	dir := t.TempDir()
	for i, name := range []string{"eager", "compiled"} {
		path := filepath.Join(dir, name+".json")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := synth.WriteCompile(f, synth.CompileConfig{Seed: 7, Calls: 12, HostOnly: true, Speed: int64(i + 1), Recompiles: []int{0, 2}})
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err != nil {
			t.Fatal(err)
		}
		paths, runs = append(paths, path), append(runs, tr)
	}
	return paths, runs
}

// TestHostOnly: runs without GPU activity summarize, compare and diff by
// their host sides; the numbers are checked against what the generator
// wrote, and the tables pinned by goldens.
func TestHostOnly(t *testing.T) {
	paths, runs := writeHostRuns(t)
	totals := make([]map[string]int64, len(runs))
	for i, r := range runs {
		totals[i] = map[string]int64{}
		for _, op := range r.Ops {
			if !strings.HasPrefix(op.Name, "ProfilerStep#") { // steps, not ops
				totals[i][op.Name] += op.End - op.Start
			}
		}
	}

	t.Run("summarize csv", func(t *testing.T) {
		out, errOut, code := traceql(append([]string{"summarize", "-f", "csv"}, paths...)...)
		if code != 0 || errOut != "" {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) != 3 {
			t.Fatalf("%d records (%v), want a header and a row a run:\n%s", len(recs), err, out)
		}
		col := map[string]int{}
		for i, n := range recs[0] {
			col[n] = i
		}
		for i, r := range runs {
			lo, hi := r.Ops[0].Start, r.Ops[0].End
			ops := 0
			for _, op := range r.Ops {
				lo, hi = min(lo, op.Start), max(hi, op.End)
				if !strings.HasPrefix(op.Name, "ProfilerStep#") {
					ops++
				}
			}
			want := map[string]string{"host_ops": strconv.Itoa(ops), "host_span_ns": strconv.FormatInt(hi-lo, 10),
				"host_steps": "4"}
			for name, v := range want {
				if got := recs[i+1][col[name]]; got != v {
					t.Errorf("%s: %s = %s, want %s", paths[i], name, got, v)
				}
			}
		}
	})

	t.Run("compare csv", func(t *testing.T) {
		out, errOut, code := traceql(append([]string{"compare", "-f", "csv"}, paths...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		recs := csvRecords(t, out)
		ops := 0
		for _, r := range recs[1:] {
			if r[2] != "op_total_ns" {
				continue
			}
			ops++
			i := map[string]int{"eager": 0, "compiled": 1}[r[0]]
			if want := strconv.FormatInt(totals[i][r[3]], 10); r[4] != want {
				t.Errorf("%s %s: total %s, want %s", r[0], r[3], r[4], want)
			}
			if want := fmt.Sprint(float64(totals[i][r[3]]) / float64(totals[0][r[3]])); r[5] != want {
				t.Errorf("%s %s: ratio %s, want %s", r[0], r[3], r[5], want)
			}
		}
		if ops != len(totals[0])+len(totals[1]) {
			t.Errorf("%d op rows, want %d", ops, len(totals[0])+len(totals[1]))
		}
	})

	for _, tt := range []struct {
		name string
		args []string
	}{
		{"compare_host", []string{"compare"}},
		{"diff_host", []string{"diff"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(append(tt.args, paths...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, p := range paths { // temporary
				errOut = strings.ReplaceAll(errOut, p, filepath.Base(p))
			}
			checkRun(t, tt.name, out, errOut)
		})
	}

	t.Run("summarize text", func(t *testing.T) {
		out, _, code := traceql("summarize", paths[1])
		if code != 0 {
			t.Fatal(out)
		}
		for _, want := range []string{"torch.compile: 12 compiled regions of 2 frames", "Dynamo cache lookups", "top host ops by total time"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
	})
}

// TestHostExport: the host and host-ops tables have rows for host-only
// traces, op totals as the generator wrote them, and say so on stderr
// for a GPU trace.
func TestHostExport(t *testing.T) {
	paths, runs := writeHostRuns(t)
	out, errOut, code := traceql(append([]string{"export", "--table", "host-ops"}, paths...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := csvRecords(t, out)
	want := map[string]int64{}
	for i, r := range runs {
		for _, op := range r.Ops {
			if !strings.HasPrefix(op.Name, "ProfilerStep#") {
				want[paths[i]+"|"+op.Name] += op.End - op.Start
			}
		}
	}
	if len(recs)-1 != len(want) {
		t.Errorf("%d rows, want %d", len(recs)-1, len(want))
	}
	at := map[string]int{}
	for j, name := range recs[0] {
		at[name] = j
	}
	for _, r := range recs[1:] {
		file, name := r[at["file"]], r[at["name"]]
		if got := r[at["total_ns"]]; got != strconv.FormatInt(want[file+"|"+name], 10) {
			t.Errorf("%s %s: total_ns %s, want %d", file, name, got, want[file+"|"+name])
		}
	}
	out, errOut, code = traceql("export", "--table", "host", paths[0], sample)
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(errOut, sample+": GPU activity; the host table has rows for traces without") {
		t.Errorf("exit %d, stderr %q, want a header and one row:\n%s", code, errOut, out)
	}
}

// TestHostPlot: runs without GPU activity plot their host steps and ops
// (checkOpsPlot, against the ops the generator wrote); a GPU kind says
// what such a run can plot instead.
func TestHostPlot(t *testing.T) {
	paths, runs := writeHostRuns(t)
	dir := t.TempDir()
	totals := make([]map[string]int64, len(runs)) // self times, as drawn
	for i, r := range runs {
		var ops []hostOp
		for _, op := range r.Ops {
			if !strings.HasPrefix(op.Name, "ProfilerStep#") { // user_annotations: no parent of a cpu_op's
				ops = append(ops, hostOp{op.Name, fmt.Sprint(op.TID), op.Start, op.End})
			}
		}
		totals[i] = selfTimes(ops)
	}
	checkOpsPlot(t, paths, totals, 4)

	png := filepath.Join(dir, "steps.png")
	if out, errOut, code := traceql(append([]string{"plot", "--kind", "steps", "-o", png}, paths...)...); code != 0 {
		t.Fatalf("steps: exit %d: %s%s", code, out, errOut)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Errorf("steps: no image (%v)", err)
	}

	_, errOut, code := traceql("plot", "--kind", "kernels", "-o", filepath.Join(dir, "k.png"), paths[0])
	if code != 1 || !strings.Contains(errOut, paths[0]+": no GPU activity to plot; of a run without it, plot --kind steps or ops") {
		t.Errorf("kernels of a host-only run: exit %d, %q", code, errOut)
	}
}

// TestHostCompareMetrics: --metrics picks host metrics of runs without
// GPU activity, in the order given, shown alone; device metrics are
// refused for them, and host-only metrics for GPU runs.
func TestHostCompareMetrics(t *testing.T) {
	paths, runs := writeHostRuns(t)
	out, errOut, code := traceql(append([]string{"compare", "--metrics", "host_steps,host_span_ns"}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(strings.TrimSpace(lines[2]), "steps ") || !strings.HasPrefix(strings.TrimSpace(lines[3]), "host span ") {
		t.Fatalf("want a title, a header, steps then host span:\n%s", out)
	}
	for i, r := range runs {
		lo, hi := r.Ops[0].Start, r.Ops[0].End
		for _, op := range r.Ops {
			lo, hi = min(lo, op.Start), max(hi, op.End)
		}
		if span := report.Format(hi-lo, metrics.NS); !strings.Contains(lines[3], span) {
			t.Errorf("run %d: host span %s not in %q", i, span, lines[3])
		}
	}
	for _, tt := range []struct {
		files []string
		flag  string
		want  string
	}{
		{paths, "kernels", "--metrics: kernels is not a metric of runs without GPU activity"},
		{[]string{sample, sample}, "host_span_ns", "--metrics: host_span_ns is not a metric of runs with GPU activity"},
		{paths, "nonesuch", `--metrics "nonesuch": want one of device, kernels, `},
	} {
		_, errOut, code := traceql(append([]string{"compare", "--metrics", tt.flag}, tt.files...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("--metrics %s: exit %d, %q, want exit 2 and %q", tt.flag, code, errOut, tt.want)
		}
	}
}

// TestHostPlotReal: the real CPU-only trace plots its ops, each bar
// labelled with the op's total time summed from its cpu_op events here,
// and compares by host metrics.
func TestHostPlotReal(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(realTraces(t), "hta/cpu_only/*.json.gz"))
	if len(paths) != 1 {
		t.Fatalf("want one trace in hta/cpu_only, found %d", len(paths))
	}
	in := paths[0]
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Ts, Dur       json.Number
		} `json:"traceEvents"`
	}
	d := json.NewDecoder(bytes.NewReader(readJSON(t, in)))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	totals := map[string]int64{}
	var ivs [][2]int64
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" && e.Cat == "cpu_op" {
			totals[e.Name] += usns.Parse(t, e.Dur.String())
			start := usns.Parse(t, e.Ts.String())
			ivs = append(ivs, [2]int64{start, start + usns.Parse(t, e.Dur.String())})
		}
	}
	// Time in ops: the union of the ops' intervals.
	slices.SortFunc(ivs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var busy, reach int64
	for i, iv := range ivs {
		if i == 0 || iv[0] > reach {
			busy, reach = busy+iv[1]-iv[0], iv[1]
		} else if iv[1] > reach {
			busy, reach = busy+iv[1]-reach, iv[1]
		}
	}
	if len(totals) == 0 {
		t.Fatal("no cpu_op in the CPU-only trace: nothing to check")
	}
	svg := filepath.Join(t.TempDir(), "ops.svg")
	mustRun(t, "plot", "-q", "--kind", "ops", "-o", svg, in, in)
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for name, ns := range totals {
		label := ">" + report.Format(float64(ns), metrics.NS) + "<"
		if strings.Count(string(b), label) < 2 || !strings.Contains(string(b), html.EscapeString(name)) {
			t.Errorf("%s: no bar pair labelled %s", name, label)
		}
	}
	mustRun(t, "plot", "-q", "--kind", "steps", "-o", filepath.Join(t.TempDir(), "steps.png"), in)
	out := mustRun(t, "compare", "-q", "--metrics", "op_busy_ns", in, in)
	if want := "time in ops " + report.Format(busy, metrics.NS); !strings.Contains(blank.ReplaceAllString(out, " "), want) || !strings.Contains(out, "×1.00") {
		t.Errorf("compare --metrics op_busy_ns of the trace with itself:\n%s", out)
	}
}

// TestReportHost: the report of an eager and a compiled run without GPU
// activity compares their host sides and ops, as compare does, draws the
// ops' bars and the CPU steps, and Chromium, when there, renders it.
func TestReportHost(t *testing.T) {
	paths, _ := writeHostRuns(t)
	page, errOut := writeReport(t, append(paths, "--label", "eager,compiled"))
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "<svg"); n != 2 {
		t.Errorf("%d plots, want the ops' bars and the steps", n)
	}
	// The comparison says what compare says, table for table.
	cmpText := mustRun(t, append([]string{"compare"}, paths...)...)
	text := pageText(string(b))
	for _, f := range paths {
		text = strings.ReplaceAll(text, f, filepath.Base(f))
		cmpText = strings.ReplaceAll(cmpText, f, filepath.Base(f))
	}
	flat := blank.ReplaceAllString(strings.ReplaceAll(text, " | ", " "), " ")
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(cmpText), "\n") {
		if line = strings.TrimSpace(blank.ReplaceAllString(line, " ")); line == "" {
			continue
		}
		if !strings.Contains(flat, line) {
			t.Errorf("the page lacks compare's line %q", line)
		}
		rows++
	}
	if rows < 10 {
		t.Errorf("compare wrote %d lines: nothing to check", rows)
	}
	// The version and the date change; the command stays.
	text = regexp.MustCompile(`(?m)^traceql [^\n]* UTC: traceql report`).ReplaceAllString(text, "traceql VERSION, DATE: traceql report")
	golden.Check(t, filepath.Join("testdata", "report_host.txt.golden"), []byte(text))
	for _, f := range paths {
		errOut = strings.ReplaceAll(errOut, f, filepath.Base(f))
	}
	golden.CheckOptional(t, filepath.Join("testdata", "report_host.stderr.golden"), []byte(errOut))

	dom := chromiumDOM(t, page)
	for _, want := range []string{"<h2>Comparison</h2>", "<caption>host ops: total time per run</caption>", "<svg"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("Chromium's DOM of the page lacks %q", want)
		}
	}
}

// checkOpsPlot runs plot --kind ops --top top on paths and checks the
// drawing against totals, each run's total time by cpu_op name: the top
// ops by their longest total in any run are drawn, and no other, each with
// a bar per run labelled with the run's total, or "none".
func checkOpsPlot(t *testing.T, paths []string, totals []map[string]int64, top int) {
	t.Helper()
	longest := map[string]int64{}
	for _, run := range totals {
		for n, v := range run {
			longest[n] = max(longest[n], v)
		}
	}
	var names []string
	for n := range longest {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(longest[b], longest[a]), cmp.Compare(a, b)) })
	svg := filepath.Join(t.TempDir(), "ops.svg")
	if out, errOut, code := traceql(append([]string{"plot", "--kind", "ops", "--top", strconv.Itoa(top), "-o", svg}, paths...)...); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	b := readFile(t, svg)
	var texts []string // each text element
	for _, m := range regexp.MustCompile(`>([^<]*)<`).FindAllStringSubmatch(string(b), -1) {
		texts = append(texts, html.UnescapeString(m[1]))
	}
	for k, n := range names {
		// A name cut to fit is drawn up to its ellipsis.
		drawn := false
		for _, tx := range texts {
			cut, ok := strings.CutSuffix(tx, "…")
			drawn = drawn || tx == n || ok && len(cut) > 20 && strings.HasPrefix(n, cut)
		}
		if drawn != (k < top) {
			t.Errorf("op %q (longest %d ns, rank %d): drawn %v, want the top %d only", n, longest[n], k, drawn, top)
		}
		if k >= top {
			continue
		}
		for i, run := range totals {
			label := "none"
			if v, ok := run[n]; ok {
				label = report.Format(float64(v), metrics.NS)
			}
			if !strings.Contains(string(b), ">"+label+"<") {
				t.Errorf("op %q: no bar labelled %s, the self time of run %d", n, label, i)
			}
		}
	}
}
