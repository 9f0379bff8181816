package report

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/text/width"

	"github.com/traceql/traceql/metrics"
)

// A Table is a titled grid of values with units, rendered by WriteText,
// WriteMarkdown or WriteCSVWith (Write chooses by format).
type Table struct {
	Title   string
	Columns []Column
	Rows    [][]any // int, int64, float64 or string, one per column
	Notes   []string
	// DropNote, when set, is the note text output adds when it leaves out
	// the Optional columns to fit a terminal.
	DropNote string
}

// A Column names a table column and says how to format its values.
type Column struct {
	Name  string
	Unit  metrics.Unit
	Float bool // non-text values are float64 (else integers); for typed outputs (Parquet)
	Null  bool // some rows have no value (null, empty in CSV)
	// Mixed columns hold integers in some rows and floats in others (the
	// value of a metric in a table of a row per metric).
	Mixed bool
	Doc   string
	// Optional columns are left out of text output on a terminal the
	// table is wider than (Table.DropNote says where they are).
	Optional bool
}

// cell formats one value for people (scaled units) or machines (raw).
func cell(v any, u metrics.Unit, human bool) string {
	if c, ok := v.(Cell); ok {
		v, u = c.V, c.Unit
	}
	if human {
		return Printable(Format(v, u))
	}
	return Raw(v)
}

// WriteText writes tables for a terminal: aligned columns, scaled units,
// text left-aligned and numbers right-aligned. It returns the first error
// writing w.
func WriteText(out io.Writer, tables ...*Table) error {
	return WriteTextWidth(out, 0, tables...)
}

// WriteTextWidth is WriteText for a terminal of the given columns (0:
// unknown, a file or pipe): notes wrap within it even where a table is
// wider, so that the terminal does not break their words.
func WriteTextWidth(out io.Writer, termWidth int, tables ...*Table) error {
	w := bufio.NewWriter(out) // keeps the first error
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if t.Title != "" {
			writeTitle(w, printableLines(t.Title), termWidth)
		}
		if len(t.Columns) == 0 { // a title and notes only
			writeNotes(w, t.Notes, noteWidth)
			continue
		}
		grid, widths := textGrid(t)
		if termWidth > 0 && t.DropNote != "" && gridWidth(widths) > termWidth {
			t, grid, widths = withoutOptional(t)
		}
		wide := 0
		for _, line := range grid {
			var b strings.Builder
			for j, s := range line {
				pad := strings.Repeat(" ", widths[j]-columns(s))
				if j > 0 {
					b.WriteString("  ")
				}
				if t.Columns[j].Unit == metrics.Text {
					b.WriteString(s)
					if j < len(line)-1 {
						b.WriteString(pad)
					}
				} else {
					b.WriteString(pad + s)
				}
			}
			row := "  " + strings.TrimRight(b.String(), " ")
			wide = max(wide, columns(row))
			fmt.Fprintln(w, row)
		}
		width := max(wide, noteWidth)
		if termWidth > 0 {
			width = min(width, max(termWidth, noteWidth/2))
		}
		writeNotes(w, t.Notes, width)
	}
	return w.Flush()
}

// writeTitle writes a title, each of its lines wider than a terminal of
// termWidth columns (0: none) wrapped within it, further lines indented
// two more than the line's own indent.
func writeTitle(w io.Writer, title string, termWidth int) {
	for _, line := range strings.Split(title, "\n") {
		body := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(body)]
		if termWidth <= 0 || columns(line) <= termWidth {
			fmt.Fprintln(w, line)
			continue
		}
		limit := max(termWidth-len(indent), 20)
		for i, l := range wrap(body, limit, limit-2) {
			if i > 0 {
				l = "  " + l
			}
			fmt.Fprintln(w, indent+l)
		}
	}
}

// textGrid is t's header and rows as text for people, and each column's
// width.
func textGrid(t *Table) ([][]string, []int) {
	grid := [][]string{make([]string, len(t.Columns))}
	for j, c := range t.Columns {
		grid[0][j] = Printable(c.Name)
	}
	for _, r := range t.Rows {
		line := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			line[j] = cell(r[j], c.Unit, true)
		}
		grid = append(grid, line)
	}
	widths := make([]int, len(t.Columns))
	for _, line := range grid {
		for j, s := range line {
			widths[j] = max(widths[j], columns(s))
		}
	}
	return grid, widths
}

// gridWidth is the width of a text table whose columns are widths wide:
// an indent of two and two between columns.
func gridWidth(widths []int) int {
	n := 2 * len(widths)
	for _, w := range widths {
		n += w
	}
	return n
}

// withoutOptional is a copy of t without its Optional columns, saying so
// in a note, and its grid.
func withoutOptional(t *Table) (*Table, [][]string, []int) {
	var keep []int
	for j, col := range t.Columns {
		if !col.Optional {
			keep = append(keep, j)
		}
	}
	c := *t
	c.keepColumns(keep...)
	c.Notes = append(slices.Clip(t.Notes), t.DropNote)
	grid, widths := textGrid(&c)
	return &c, grid, widths
}

// keepColumns leaves t with only the columns numbered idx, in that order,
// in its header and rows; the slices are new, so a copy of t is unchanged.
func (t *Table) keepColumns(idx ...int) {
	pick := func(xs []any) []any {
		out := make([]any, len(idx))
		for k, j := range idx {
			out[k] = xs[j]
		}
		return out
	}
	cols := make([]Column, len(idx))
	for k, j := range idx {
		cols[k] = t.Columns[j]
	}
	rows := make([][]any, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = pick(r)
	}
	t.Columns, t.Rows = cols, rows
}

// printableLines is Printable for each line of a title, which may have
// several: the text from traces and paths in it was made Printable where
// the title was built.
func printableLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Printable(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}

// noteWidth is how many columns a line of a note fills at most, unless
// its table or one word is wider.
const noteWidth = 80

// writeNotes writes notes indented, each wrapped at width columns with its
// further lines indented more, so that where one note ends shows.
func writeNotes(w io.Writer, notes []string, width int) {
	for _, n := range notes {
		for i, line := range wrap(Printable(n), width-2, width-4) {
			if i == 0 {
				fmt.Fprintln(w, "  "+line)
			} else {
				fmt.Fprintln(w, "    "+line)
			}
		}
	}
}

// wrap breaks s at spaces into lines of at most first columns, then of at
// most rest; a word longer than its line stands alone. A number stays on
// the line of the word after it, its unit most often: "1 ms", "97 %".
func wrap(s string, first, rest int) []string {
	var words []string
	for _, w := range strings.Split(s, " ") {
		if k := len(words) - 1; k >= 0 && isNumber(words[k][strings.LastIndexByte(words[k], ' ')+1:]) {
			words[k] += " " + w
			continue
		}
		words = append(words, w)
	}
	var lines []string
	limit := first
	line, n := "", 0
	for _, word := range words {
		k := columns(word)
		if n > 0 && n+1+k > limit {
			lines = append(lines, line)
			line, n, limit = "", 0, rest
		}
		if n > 0 {
			line += " "
			n++
		}
		line += word
		n += k
	}
	return append(lines, line)
}

// isNumber reports whether w is a number as tables write them: digits,
// with a sign, a point or thousands separators; "0," ends a clause.
func isNumber(w string) bool {
	w = strings.TrimLeft(w, "+−-")
	return w != "" && w[0] >= '0' && w[0] <= '9' && w[len(w)-1] >= '0' && w[len(w)-1] <= '9' && strings.Trim(w, "0123456789.,") == ""
}

// mdEscape keeps text literal in GitHub-flavoured Markdown: a kernel's
// <float> is not an HTML tag, a * or _ not emphasis, a | not a cell's end.
var mdEscape = strings.NewReplacer("\\", `\\`, "|", `\|`, "<", `\<`, ">", `\>`, "*", `\*`, "_", `\_`,
	"`", "\\`", "[", `\[`, "]", `\]`, "~", `\~`, "\n", " ")

// WriteMarkdown writes tables as GitHub-flavoured Markdown. It returns the
// first error writing w.
func WriteMarkdown(out io.Writer, tables ...*Table) error {
	w := bufio.NewWriter(out) // keeps the first error
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if t.Title != "" {
			fmt.Fprintf(w, "**%s**\n\n", mdEscape.Replace(printableLines(t.Title)))
		}
		if len(t.Columns) == 0 {
			// A paragraph each: lines would run into one.
			for j, n := range t.Notes {
				if j > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%s\n", mdEscape.Replace(Printable(n)))
			}
			continue
		}
		var head, rule []string
		for _, c := range t.Columns {
			head = append(head, mdEscape.Replace(Printable(c.Name)))
			if c.Unit == metrics.Text {
				rule = append(rule, "---")
			} else {
				rule = append(rule, "---:")
			}
		}
		fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(rule, " | "))
		for _, r := range t.Rows {
			var cells []string
			for j, c := range t.Columns {
				cells = append(cells, mdEscape.Replace(cell(r[j], c.Unit, true)))
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		for _, n := range t.Notes {
			fmt.Fprintf(w, "\n%s\n", mdEscape.Replace(Printable(n)))
		}
	}
	return w.Flush()
}

// WriteCSVWith writes one table as CSV with a header row and raw values
// (integer ns, bytes, plain ratios), for pandas, text cells as o says.
func WriteCSVWith(w io.Writer, t *Table, o CSVOptions) error {
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		head[j] = c.Name
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		line := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			line[j] = cell(r[j], c.Unit, false)
			if c.Unit == metrics.Text {
				line[j] = csvText(line[j], o)
			}
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// columns returns how many terminal columns s takes: two for each wide
// (CJK) character, one for others. A record_function label in Chinese
// shifted every column after it.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n++
		// No character before U+1100 is wide: kernel names are looked up
		// no further.
		if r < 0x1100 {
			continue
		}
		if k := width.LookupRune(r).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
			n++
		}
	}
	return n
}
