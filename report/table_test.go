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
