package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/width"

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

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s           string
		first, rest int
		want        []string
	}{
		{"", 10, 10, []string{""}},
		{"one two three", 13, 13, []string{"one two three"}},
		{"one two three", 12, 12, []string{"one two", "three"}},
		{"one two three four", 7, 5, []string{"one two", "three", "four"}},
		{"a averyveryverylongword b", 5, 5, []string{"a", "averyveryverylongword", "b"}},
		{"日本語 ab", 7, 7, []string{"日本語", "ab"}}, // wide characters count two columns
		{"gaps of 1 ms or more", 10, 10, []string{"gaps of", "1 ms or", "more"}},
		{"in 1,792 gaps", 8, 8, []string{"in", "1,792 gaps"}},
		{"ratio −0.5 x", 8, 8, []string{"ratio", "−0.5 x"}},
		{"at 1", 3, 3, []string{"at", "1"}},
		// "0," ends a clause: the next number keeps its unit, not the 0.
		{"GPU 0, 0.4 % (median)", 10, 10, []string{"GPU 0,", "0.4 %", "(median)"}},
	} {
		got := wrap(c.s, c.first, c.rest)
		if !slices.Equal(got, c.want) {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", c.s, c.first, c.rest, got, c.want)
		}
	}
}

// TestColumns: wide and fullwidth characters take two columns, from the
// first of them (U+1100); others, halfwidth ones too, one.
func TestColumns(t *testing.T) {
	for s, want := range map[string]int{"": 0, "aten::mm": 8, "é−µ": 3, "\u10ff": 1, "\u1100": 2, "日本語 ab": 9, "ｱ": 1, "Ａ": 2} {
		if got := columns(s); got != want {
			t.Errorf("columns(%q) = %d, want %d", s, got, want)
		}
	} // columns looks no rune before U+1100 up: none is wide.
	for r := rune(0); r < 0x1100; r++ {
		if k := width.LookupRune(r).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
			t.Errorf("%U is %v", r, k)
		}
	}
}

func TestWriteTextNotes(t *testing.T) {
	note := strings.Repeat("word ", 40) + "end"
	var b strings.Builder
	tb := &Table{Columns: []Column{{Name: "metric", Unit: metrics.Text}}, Rows: [][]any{{"x"}}, Notes: []string{note, "short"}}
	if err := WriteText(&b, tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"  metric",
		"  x",
		// 80 columns: 2 + 15 words of 5, then 4 + 15 words.
		"  " + strings.TrimSpace(strings.Repeat("word ", 15)),
		"    " + strings.TrimSpace(strings.Repeat("word ", 15)),
		"    " + strings.TrimSpace(strings.Repeat("word ", 10)) + " end",
		"  short",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
