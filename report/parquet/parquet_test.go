package parquet

import (
	"bytes"
	"math"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

var cols = []report.Column{{Name: "file", Unit: metrics.Text}, {Name: "n"}, {Name: "x", Float: true, Null: true}}

// TestRowWriterRefuses: a short or long record, or a value of another
// type than its column's, is an error, not a row, as in report's formats.
func TestRowWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	rw := NewRowWriter(&buf, cols)
	for _, bad := range [][]any{{"a", 1}, {"a", 1, 0.5, 2}, {"a", 0.5, 0.5}, {1, 1, 0.5}, {"a", 1, uint8(3)}, {"a", nil, 0.5}} {
		if err := rw.WriteRecord(bad); err == nil {
			t.Errorf("%v written", bad)
		}
	}
	if err := rw.WriteRecord([]any{"a", int64(1), nil}); err != nil {
		t.Error(err)
	}
	if err := rw.Flush(); err != nil {
		t.Error(err)
	}
}

// TestRoundTrip: parquet-go reads back the columns in their order, of
// their types, optional where they may have no value, and every row as
// written: integers past float64's 2^53, NaN, nulls, more rows than one
// flush of the buffer holds.
func TestRoundTrip(t *testing.T) {
	const n = 4096 + 3
	want := make([][]any, n)
	for i := range want {
		var x any = float64(i) / 7
		switch i % 3 {
		case 1:
			x = nil
		case 2:
			x = math.NaN()
		}
		want[i] = []any{"f" + string(rune('a'+i%26)), int64(1<<53 + i), x}
	}
	var buf bytes.Buffer
	rw := NewRowWriter(&buf, cols)
	for _, r := range want {
		if err := rw.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	fields := f.Schema().Fields()
	kinds := []parquet.Kind{parquet.ByteArray, parquet.Int64, parquet.Double}
	if len(fields) != len(cols) {
		t.Fatalf("%d columns, want %d", len(fields), len(cols))
	}
	for i, c := range cols {
		if fl := fields[i]; fl.Name() != c.Name || fl.Type().Kind() != kinds[i] || fl.Optional() != c.Null {
			t.Errorf("column %d: %s %v optional=%v; want %s %v optional=%v", i, fl.Name(), fl.Type().Kind(), fl.Optional(), c.Name, kinds[i], c.Null)
		}
	}
	if f.NumRows() != n {
		t.Fatalf("%d rows, want %d", f.NumRows(), n)
	}
	got := parquet.NewGenericReader[any](f)
	defer got.Close()
	rows := make([]parquet.Row, n)
	read := 0
	for read < n {
		k, err := got.ReadRows(rows[read:])
		read += k
		if err != nil && read < n {
			t.Fatalf("after %d rows: %v", read, err)
		}
	}
	for i, row := range rows {
		w := want[i]
		if string(row[0].ByteArray()) != w[0] || row[1].Int64() != w[1] {
			t.Fatalf("row %d: %v, want %v", i, row, w)
		}
		switch x := w[2].(type) {
		case nil:
			if !row[2].IsNull() {
				t.Errorf("row %d: x %v, want null", i, row[2])
			}
		case float64:
			if g := row[2].Double(); row[2].IsNull() || g != x && !(math.IsNaN(g) && math.IsNaN(x)) {
				t.Errorf("row %d: x %v, want %v", i, row[2], x)
			}
		}
	}
}
