package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/traceql/traceql/internal/golden"
)

// flopsPair are the H200 runs recorded with shapes, default and
// reduce-overhead, and the trace of the latter's graph capture.
var flopsPair = []string{"vit-small_default_b1_flops.pt.trace.json.gz", "vit-small_reduce-overhead_b1_flops.pt.trace.json.gz"}

const flopsCapture = "vit-small_reduce-overhead_b1_capture.pt.trace.json.gz"

// TestFlopsGolden pins FLOPs and MFU where runs are compared: compare,
// diff (per step, as the rest), export --table steps and summarize --all's
// steps; runs without shapes say why they have none.
func TestFlopsGolden(t *testing.T) {
	t.Chdir(gpuDir) // relative names: the goldens do not depend on the checkout's path
	labels := []string{"--label", "default,reduce-overhead"}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"flops.compare.text", slices.Concat([]string{"compare", "--flops"}, labels, flopsPair)},
		{"flops.compare.metrics.text", slices.Concat([]string{"compare", "--metrics", "step_median_ns,flops,mfu"}, labels, flopsPair)},
		{"flops.compare.rows.text", slices.Concat([]string{"compare", "--flops", "--layout", "rows"}, labels, flopsPair)},
		{"flops.diff.text", slices.Concat([]string{"diff", "--flops", "--capture", flopsCapture, "--top", "3"}, labels, flopsPair)},
		{"flops.diff.csv", slices.Concat([]string{"diff", "--flops", "-f", "csv"}, labels, flopsPair)},
		{"flops.noshapes.compare.text", []string{"compare", "--flops", "--label", "default,reduce-overhead",
			"vit-small_default_b1.pt.trace.json.gz", "vit-small_reduce-overhead_b1.pt.trace.json.gz"}},
		{"flops.export.steps.csv", slices.Concat([]string{"export", "--table", "steps", "-f", "csv"}, labels, flopsPair)},
		{"flops.summarize.all.text", []string{"summarize", "--all", "--by", "op", "--top", "1", flopsPair[0]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, filepath.Join("../../cmd/traceql/testdata", tt.name+".golden"), []byte(out))
			golden.CheckOptional(t, filepath.Join("../../cmd/traceql/testdata", tt.name+".stderr.golden"), []byte(errOut))
		})
	}
}

// TestFlopsCLI checks what the goldens hold against the numbers: the
// FLOPs and MFU compare and diff give are summarize's, the two modes do
// the same work once the capture names the graphs' ops, and the text
// keeps to 80 columns on a terminal.
func TestFlopsCLI(t *testing.T) {
	t.Chdir(gpuDir)
	csv, errOut, code := traceql("summarize", "--by", "op", "-f", "csv", flopsPair[0])
	if code != 0 {
		t.Fatalf("summarize: exit %d: %s", code, errOut)
	}
	recs := csvRecords(t, csv)
	sum := func(name string) string { return recs[1][slices.Index(recs[0], name)] }
	flops, mfu := sum("flops"), sum("mfu")
	if flops == "" || flops == "0" || mfu == "" {
		t.Fatalf("summarize --by op: flops %q, mfu %q", flops, mfu)
	}

	// compare -f csv keeps totals, as summarize's.
	out, errOut, code := traceql(slices.Concat([]string{"compare", "--flops", "-f", "csv"}, flopsPair)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	recs = csvRecords(t, out)
	if got := recs[1][slices.Index(recs[0], "flops")]; got != flops {
		t.Errorf("compare -f csv: flops %s, summarize's %s", got, flops)
	}
	if got := recs[1][slices.Index(recs[0], "mfu")]; got != mfu {
		t.Errorf("compare -f csv: mfu %s, summarize's %s", got, mfu)
	}
	// Without --flops the columns are empty, not 0.
	out, _, _ = traceql(slices.Concat([]string{"compare", "-f", "csv"}, flopsPair)...)
	recs = csvRecords(t, out)
	for _, c := range []string{"flops", "achieved_tflops", "mfu"} {
		if got := recs[1][slices.Index(recs[0], c)]; got != "" {
			t.Errorf("compare -f csv without --flops: %s %q, want none", c, got)
		}
	}

	// diff -f csv keeps totals too.
	out, errOut, code = traceql(slices.Concat([]string{"diff", "--flops", "--capture", flopsCapture, "-f", "csv"}, flopsPair)...)
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errOut)
	}
	recs = csvRecords(t, out)
	checked := false
	for _, r := range recs[1:] {
		if r[slices.Index(recs[0], "metric")] != "flops" {
			continue
		}
		checked = true
		old, new := r[slices.Index(recs[0], "old")], r[slices.Index(recs[0], "new")]
		if old != flops {
			t.Errorf("diff: old flops %s, summarize's %s", old, flops)
		}
		// The same model, the same inputs: reduce-overhead's graphs,
		// named by their capture, compute what default's kernels do.
		if new != old {
			t.Errorf("diff --capture: new flops %s, old %s", new, old)
		}
	}
	if !checked {
		t.Errorf("diff -f csv: no flops row")
	}

	labels := []string{"--label", "default,reduce-overhead"}
	for _, args := range [][]string{
		slices.Concat([]string{"compare", "--flops"}, labels, flopsPair),
		slices.Concat([]string{"compare", "--flops", "--layout", "rows"}, labels, flopsPair),
		slices.Concat([]string{"diff", "--flops"}, labels, flopsPair),
		{"summarize", "--by", "op", "--all", flopsPair[1]},
	} {
		ios, o, e := testStreams()
		ios.SetStdoutTTY(true)
		ios.SetTerminalWidth(80)
		if code := run(context.Background(), args, ios); code != 0 {
			t.Fatalf("%s: exit %d: %s", args, code, e)
		}
		if !strings.Contains(o.String(), "MFU") {
			t.Errorf("%s: no MFU in\n%s", args, o)
		}
		for line := range strings.Lines(o.String()) {
			if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
				t.Errorf("%s at 80 columns: a line of %d: %q", args[0], n, line)
			}
		}
	}
}
