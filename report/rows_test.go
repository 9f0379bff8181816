package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// TestRowWriterRefuses: a short or long record, or a value of another
// type than its column's, is an error, not a row that repeats the one
// before (CSV) or a panic (JSON).
func TestRowWriterRefuses(t *testing.T) {
	cols := []Column{{Name: "file", Unit: metrics.Text}, {Name: "n"}, {Name: "x", Float: true, Null: true}}
	for _, format := range []string{"csv", "json", "jsonl"} {
		var buf bytes.Buffer
		rw, err := NewRowWriter(&buf, format, "t", cols)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]any{{"a", 1}, {"a", 1, 0.5, 2}, {"a", 0.5, 0.5}, {1, 1, 0.5}, {"a", 1, uint8(3)}, {"a", nil, 0.5}} {
			if err := rw.WriteRecord(bad); err == nil {
				t.Errorf("%s: %v written", format, bad)
			}
		}
		if err := rw.WriteRecord([]any{"a", int64(1), nil}); err != nil {
			t.Errorf("%s: %v", format, err)
		}
		if err := rw.Flush(); err != nil {
			t.Error(err)
		}
	}
}

// TestExportColumnsDeclared: every export table's columns have a name, a
// definition, and names unique in the table.
func TestExportColumnsDeclared(t *testing.T) {
	for _, table := range ExportTables() {
		cols, ok := ExportColumns(table)
		if !ok || len(cols) == 0 {
			t.Fatalf("%s: no columns", table)
		}
		seen := map[string]bool{}
		for _, c := range cols {
			if c.Name == "" || seen[c.Name] {
				t.Errorf("%s: column %q empty or repeated", table, c.Name)
			}
			seen[c.Name] = true
			if strings.TrimSpace(c.Doc) == "" {
				t.Errorf("%s.%s: no definition", table, c.Name)
			}
		}
	}
}

// TestCSVLikeEncodingCSV: the row writer's CSV is encoding/csv's, for
// names that need quotes and names that do not.
func TestCSVLikeEncodingCSV(t *testing.T) {
	names := []string{"", "a", "a,b", `say "hi"`, "two\nlines", "cr\rhere", " lead", "\u3000wide space", `\.`, "trail ", "ünï", "tab\tin"}
	cols := []Column{{Name: "name", Unit: metrics.Text}, {Name: "n"}, {Name: "x", Float: true, Null: true}}
	var got, want bytes.Buffer
	rw, err := NewRowWriter(&got, "csv", "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(&want)
	cw.Write([]string{"name", "n", "x"})
	for i, n := range names {
		x := any(float64(i) / 3)
		if i%2 == 0 {
			x = nil
		}
		if err := rw.WriteRecord([]any{n, i - 3, x}); err != nil {
			t.Fatal(err)
		}
		cw.Write([]string{n, Raw(i - 3), Raw(x)})
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	cw.Flush()
	if got.String() != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}
