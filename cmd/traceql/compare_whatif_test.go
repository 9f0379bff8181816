package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/golden"
)

// TestCompareWhatif pins compare --whatif graphs on the small ViT at
// batch 1, eager, default and reduce-overhead: the projections apart, in
// a table titled and noted as such, in both layouts; CSV and JSON refuse
// it in one line.
func TestCompareWhatif(t *testing.T) {
	t.Chdir(gpuDir)
	var runs []string
	for _, mode := range []string{"default", "eager", "reduce-overhead"} {
		runs = append(runs, filepath.Base(gpuFile("small", mode, 1)))
	}
	for _, tt := range []struct{ name, layout string }{{"gpu.compare_whatif.text", "columns"}, {"gpu.compare_whatif_rows.text", "rows"}} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(append([]string{"compare", "--whatif", "graphs", "--layout", tt.layout}, runs...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, "(a projection, not a measurement)") {
				t.Errorf("no projection's table in:\n%s", out)
			}
			golden.Check(t, filepath.Join("../../cmd/traceql/testdata", tt.name+".golden"), []byte(out))
		})
	}
	out, errOut, code := traceql(append([]string{"compare", "--whatif", "graphs", "-f", "csv"}, runs...)...)
	if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "traceql whatif -f csv") {
		t.Errorf("-f csv: exit %d, stdout %q, stderr %q; want exit 2 and one line", code, out, errOut)
	}
}
