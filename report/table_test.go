package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// TestWriteMarkdownLiteral: names keep their characters when the Markdown
// is rendered (GitHub drops <float> as an HTML tag), and a table of notes
// alone has no empty cells.
func TestWriteMarkdownLiteral(t *testing.T) {
	var buf bytes.Buffer
	tab := &Table{Columns: []Column{{Name: "kernel", Unit: metrics.Text}}, Rows: [][]any{{"void f<float>(a*b, c_d) | x"}}}
	notes := &Table{Title: "t", Notes: []string{"GPU 1 has no counterpart"}}
	if err := WriteMarkdown(&buf, tab, notes); err != nil {
		t.Fatal(err)
	}
	want := "| kernel |\n| --- |\n| void f\\<float\\>(a\\*b, c\\_d) \\| x |\n\n**t**\n\nGPU 1 has no counterpart\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	buf.Reset()
	if err := WriteText(&buf, notes); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); strings.TrimSpace(got) != "t\n  GPU 1 has no counterpart" {
		t.Errorf("text: %q", got)
	}
}

// TestWriteTextWide: a name in Chinese takes two columns a character, and
// the columns after it stay aligned.
func TestWriteTextWide(t *testing.T) {
	var buf bytes.Buffer
	tab := &Table{Columns: []Column{{Name: "host op", Unit: metrics.Text}, {Name: "count", Unit: metrics.Count}},
		Rows: [][]any{{"训练步骤", 1}, {"aten::mm", 22}}}
	if err := WriteText(&buf, tab); err != nil {
		t.Fatal(err)
	}
	want := "  host op   count\n  训练步骤      1\n  aten::mm     22\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
