package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// stepRuns writes the same generated run profiled for 4 and for 10 steps.
func stepRuns(t *testing.T) (four, ten string) {
	dir := t.TempDir()
	four, ten = filepath.Join(dir, "four.json"), filepath.Join(dir, "ten.json")
	for path, steps := range map[string]int{four: 4, ten: 10} {
		if _, err := synth.WriteFile(path, synth.Config{Seed: 3, Steps: steps, KernelsPerStep: 20}, false); err != nil {
			t.Fatal(err)
		}
	}
	return four, ten
}

// rowCells returns the cells after the label of the text row whose label
// is label.
func rowCells(t *testing.T, out, label string) []string {
	t.Helper()
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), label+"  "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("no row %q in\n%s", label, out)
	return nil
}

// TestComparePerStep: 4 steps against 10 of one model read kernels ×2.50
// as totals (the old output, --per-step=false) and ×1.00 per step, the
// default when both runs have steps; the title says so, rates stay, and
// the line on the different step counts stays.
func TestComparePerStep(t *testing.T) {
	four, ten := stepRuns(t)
	args := []string{"compare", four, ten, "--label", "a,b", "--metrics", "kernels,gpu_util,steps"}
	totals, errOut, code := traceql(append(args, "--per-step=false")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	perStep, errOut, code := traceql(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := rowCells(t, totals, "kernels"); got[len(got)-1] != "×2.50" {
		t.Errorf("totals: kernels %v, want ×2.50", got)
	}
	if got := rowCells(t, perStep, "kernels"); strings.Join(got, " ") != "20 20 ×1.00" {
		t.Errorf("per step: kernels %v, want 20 20 ×1.00", got)
	}
	for _, row := range []string{"GPU utilization", "steps"} {
		if a, b := rowCells(t, totals, row), rowCells(t, perStep, row); strings.Join(a, " ") != strings.Join(b, " ") {
			t.Errorf("%s: %v per step, %v in total; want the same", row, b, a)
		}
	}
	if !strings.Contains(perStep, "per step (a 4 steps, b 10 steps)") || strings.Contains(totals, "per step (") {
		t.Errorf("titles: per step\n%s\ntotals\n%s", perStep, totals)
	}
	for _, out := range []string{totals, perStep} {
		if !strings.Contains(out, "different numbers of steps (a 4, b 10)") {
			t.Errorf("no line on the step counts:\n%s", out)
		}
	}
	// diff: the same, and the per-step kernel time is the total over the
	// steps, rounded once, as the CSV's totals give it.
	d, errOut, code := traceql("diff", four, ten)
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	if got := rowCells(t, d, "kernels"); strings.Join(got, " ") != "20 20 0 0 %" {
		t.Errorf("diff per step: kernels %v", got)
	}
	csvOut, _, _ := traceql("compare", four, ten, "-f", "csv")
	recs := csvRecords(t, csvOut)
	col := func(name string) int {
		for i, n := range recs[0] {
			if n == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	if recs[2][col("kernels")] != "200" {
		t.Errorf("CSV keeps totals: kernels %s, want 200", recs[2][col("kernels")])
	}
	ns, err := strconv.ParseInt(recs[2][col("kernel_ns")], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := traceql("compare", four, ten, "--label", "a,b", "--metrics", "kernel_ns")
	want := report.Format((ns+5)/10, metrics.NS) // b's 10 steps, halves up
	if got := rowCells(t, out, "kernel time"); got[2]+" "+got[3] != want {
		t.Errorf("b's kernel time per step %v, want %s (%d ns over 10 steps)", got, want, ns)
	}
}

// TestPerStepRefused: --per-step with a run without steps, or in CSV,
// says why; without the flag a step-less run gives totals.
func TestPerStepRefused(t *testing.T) {
	four, _ := stepRuns(t)
	bare := writeTrace(t, "bare.json", `{"traceEvents":[`+
		`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":3,"args":{"device":0,"stream":7}}]}`)
	if _, errOut, code := traceql("compare", four, bare, "--per-step"); code != 1 || !strings.Contains(errOut, "--per-step: bare has no ProfilerStep#N on GPU 0") {
		t.Errorf("step-less run: exit %d, %s", code, errOut)
	}
	if out, errOut, code := traceql("compare", four, bare); code != 0 || strings.Contains(out, "per step (") {
		t.Errorf("default with a step-less run: exit %d, %s\n%s; want totals", code, errOut, out)
	}
	if _, errOut, code := traceql("diff", four, four, "--per-step", "-f", "csv"); code != 2 || !strings.Contains(errOut, "--format csv keeps totals") {
		t.Errorf("csv: exit %d, %s", code, errOut)
	}
}
