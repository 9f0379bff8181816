package main

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// smallModes are the four vit-small b1 runs, eager first.
func smallModes() []string {
	return []string{gpuRun("eager"), gpuRun("default"), gpuRun("reduce-overhead"), gpuRun("max-autotune")}
}

// TestCompareRows: --layout rows puts a run a row, answers first which
// run's median step is shortest (the README's numbers: reduce-overhead
// 911 µs, eager 5.66 ms), and on an 80-column terminal leaves columns out
// to fit, saying so. Above 4 runs rows are the default.
func TestCompareRows(t *testing.T) {
	out, errOut, code := traceql(append([]string{"compare", "--layout", "rows"}, smallModes()...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkRun(t, "compare_rows", out, errOut)
	first, _, _ := strings.Cut(out, "\n")
	if want := "vit-small_reduce-overhead_b1: shortest median step, 911 µs, 6.21× shorter than"; !strings.HasPrefix(strings.TrimSpace(first), want) {
		t.Errorf("first line %q, want the answer %q…", first, want)
	}

	ios, o, e := testStreams()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(80)
	if code := run(context.Background(), append([]string{"compare", "--layout", "rows"}, smallModes()...), ios); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for line := range strings.Lines(o.String()) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("80 columns: a line of %d: %q", n, line)
		}
	}
	if !strings.Contains(o.String(), "left out to fit") {
		t.Errorf("80 columns: no note of the columns left out:\n%s", o)
	}

	five := append(smallModes(), gpuRun("eager"))
	out, errOut, code = traceql(append([]string{"compare", "--label", "a,b,c,d,e"}, five...)...)
	if code != 0 || !strings.Contains(out, "a row per run") {
		t.Errorf("5 runs: exit %d, %s; want rows by default:\n%s", code, errOut, out)
	}
	out, _, _ = traceql(append([]string{"compare", "--label", "a,b,c,d,e", "--layout", "columns"}, five...)...)
	if strings.Contains(out, "a row per run") {
		t.Errorf("--layout columns: rows")
	}
}

// TestCompareParts: --parts names the labels' parts as columns and
// --group-by answers each group apart; a run whose label has other parts
// is refused when named, left out with a note when a folder's.
func TestCompareParts(t *testing.T) {
	args := append([]string{"compare", "--parts", "model,mode,batch", "--group-by", "model,batch"}, smallModes()...)
	out, errOut, code := traceql(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "  vit-small b1: reduce-overhead: shortest median step, 911 µs") {
		t.Errorf("the group's answer names the run by its other parts:\n%s", out)
	}
	if !strings.Contains(out, "model      mode") {
		t.Errorf("no part columns:\n%s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--group-by", "mode"}, "--group-by names parts of the labels: name them with --parts"},
		{[]string{"--parts", "a,b", "--group-by", "c"}, "--group-by c: not one of --parts a,b"},
		{[]string{"--parts", "a,a"}, "each part once"},
		{[]string{"--parts", "a,b", "--layout", "columns"}, "--parts names the leading columns of --layout rows"},
		{[]string{"--parts", "a,b"}, "label vit-small_eager_b1 has 3 parts; --parts names 2"},
	} {
		_, errOut, code := traceql(append(append([]string{"compare"}, tt.args...), smallModes()...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2, %q", tt.args, code, errOut, tt.want)
		}
	}
}
