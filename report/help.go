package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// helpWidth is the width of MetricsHelp's lines, for an 80-column terminal.
const helpWidth = 79

// MetricsHelp renders the definitions of metrics.Columns for `summarize
// --help`: each column's CSV and JSON name, the label text tables give it
// where that differs, and its definition, wrapped.
func MetricsHelp() string {
	cols := metrics.Columns()
	name := 0
	for _, c := range cols {
		name = max(name, len(c.Name))
	}
	var b strings.Builder
	b.WriteString("Metrics, per device: the CSV and JSON name, the text table's label in\n" +
		"quotes, and the definition (all times integer ns in CSV and JSON). A metric\n" +
		"that has no value (a mean of no kernels, a bandwidth of no copies, a ratio\n" +
		"against 0) is empty in CSV, null in JSON and Parquet and – in text, not 0:\n")
	writeColumnDocs(&b, name, cols)
	b.WriteString(hostHelp(name))
	b.WriteString(`Also shown: the top kernels by total time (count, total, mean, share of
kernel_ns); with --all, the gap-length histogram (decades from 1 µs to 1 s)
and copies by kind and memory kinds (Pageable/Pinned/Device) with bandwidth.
The copy-bound verdict and the exposed-copy finding set H2D and D2H rates
against the GPU's host link (traceql help links).
`)
	return b.String()
}

// writeColumnDocs writes each column's name, padded to name, and its
// definition (with its label in quotes where that differs), wrapped under
// the definition's column: the layout of every column list in --help.
func writeColumnDocs[R any](b *strings.Builder, name int, cols []metrics.Col[R]) {
	indent := strings.Repeat(" ", 2+name+2)
	for _, c := range cols {
		doc := c.Doc
		if c.Label != c.Name {
			doc = fmt.Sprintf("%q: %s", c.Label, doc)
		}
		for i, line := range wrap(doc, helpWidth-len(indent), helpWidth-len(indent)) {
			if i == 0 {
				fmt.Fprintf(b, "  %-*s  %s\n", name, c.Name, line)
			} else {
				b.WriteString(indent + line + "\n")
			}
		}
	}
}
