package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// TestWrite: each format goes to its own writer, byte for byte, and a
// format for programs refuses more than one table.
func TestWrite(t *testing.T) {
	tab := &Table{Title: "t", Columns: []Column{{Name: "name", Unit: metrics.Text}, {Name: "time", Unit: metrics.NS}},
		Rows: [][]any{{"=a,b", int64(1500)}}}
	direct := map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteTextWidth(b, 40, tab, tab) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, tab, tab) },
		"csv":      func(b *bytes.Buffer) error { return WriteCSVWith(b, tab, CSVOptions{Safe: true}) },
		"json":     func(b *bytes.Buffer) error { return WriteJSON(b, "x", tab) },
	}
	for format, write := range direct {
		o := Output{Format: format, Width: 40, CSV: CSVOptions{Safe: true}, Name: "x"}
		tables := []*Table{tab, tab}
		if o.Records() {
			tables = tables[:1]
		}
		var got, want bytes.Buffer
		if err := Write(&got, o, tables...); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if err := write(&want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || got.Len() == 0 {
			t.Errorf("%s: Write wrote\n%s\nits writer\n%s", format, got.String(), want.String())
		}
	}
	for _, format := range []string{"csv", "json"} {
		if err := Write(&bytes.Buffer{}, Output{Format: format}, tab, tab); err == nil || !strings.Contains(err.Error(), "one table") {
			t.Errorf("%s of two tables: err %v", format, err)
		}
	}
	if err := Write(&bytes.Buffer{}, Output{Format: "yaml"}, tab); err == nil {
		t.Error("an unknown format wrote")
	}
}
