package main

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

// TestCompileLogCheckExport: check and export --table findings take
// --compile-log as summarize does: recompile and graph-break count what
// the log records (2 recompiles of frame 1, 1 graph break, as
// writeCompileRun writes them), not the trace's guess from frame numbers;
// the log's errors are one line naming it, exit 1; export refuses it for
// tables it does not change (issue 63).
func TestCompileLogCheckExport(t *testing.T) {
	dir := t.TempDir()
	tracePath, logPath := writeCompileRun(t, dir)
	want := map[string]int{"recompile": 2, "graph-break": 1}

	// export: the findings rows, with the log and without.
	counts := func(args ...string) map[string]int {
		t.Helper()
		out, errOut, code := traceql(append([]string{"export", tracePath, "--table", "findings"}, args...)...)
		if code != 0 {
			t.Fatalf("export %v: exit %d, %s", args, code, errOut)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) < 1 {
			t.Fatalf("export %v: %v\n%s", args, err, out)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		got := map[string]int{}
		for _, r := range recs[1:] {
			n, _ := strconv.Atoi(r[col["count"]])
			got[r[col["rule"]]] = n
		}
		return got
	}
	guess, logged := counts(), counts("--compile-log", logPath)
	for rule, n := range want {
		if logged[rule] != n {
			t.Errorf("export --compile-log: %s count %d, the log holds %d", rule, logged[rule], n)
		}
	}
	if guess["recompile"] == want["recompile"] && guess["graph-break"] == want["graph-break"] {
		t.Fatalf("without the log the trace guesses the log's counts (%v): the case shows nothing", guess)
	}

	// check: the same counts in its table, one row a finding.
	out, errOut, code := traceql("check", tracePath, "--fail-on", "high", "--compile-log", logPath)
	if code > 1 || errOut != "" && !strings.Contains(errOut, "at or above high") {
		t.Fatalf("check --compile-log: exit %d, %s", code, errOut)
	}
	seen := 0
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		for i, w := range f {
			if n, ok := want[w]; ok && i+1 < len(f) {
				seen++
				if f[i+1] != strconv.Itoa(n) {
					t.Errorf("check --compile-log: %q; want count %d", line, n)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("check --compile-log: %d of the %d rules shown:\n%s", seen, len(want), out)
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"check, missing log", []string{"check", tracePath, "--compile-log", dir + "/nope.log"}, 1, "nope.log: no such file or directory"},
		{"export, missing log", []string{"export", tracePath, "--table", "findings", "--compile-log", dir + "/nope.log"}, 1, "nope.log: no such file or directory"},
		{"export, other table", []string{"export", tracePath, "--table", "kernels", "--compile-log", logPath}, 2, "it is for --table findings"},
	} {
		out, errOut, code := traceql(tt.args...)
		if code != tt.code || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tt.name, code, out, errOut, tt.code, tt.want)
		}
	}
}
