package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// SchemaVersion is the version of the tables' schema: their names,
// columns, types and units. It is in every JSON document traceql writes
// and grows when a column changes meaning or type or goes away (a new
// column does not change it).
const SchemaVersion = 1

// A TableSchema describes one table traceql writes as CSV, JSON or
// Parquet: what a row is and its columns, declared where the rows are
// made.
type TableSchema struct {
	Name    string
	Row     string // what one row is
	Command string // the command that writes it
	Columns []Column
}

// schemas lists every table's schema: export's tables, then those of
// diff and compare.
func schemas() []TableSchema {
	var out []TableSchema
	for _, t := range exportTables() {
		cmd := "export --table " + t.name
		if t.name == "summary" {
			cmd = "summarize --format csv|json, " + cmd
		} else if t.name == "host" {
			cmd = "summarize --format csv|json of runs without GPU activity, " + cmd
		}
		out = append(out, TableSchema{t.name, t.row, cmd, t.cols})
	}
	return append(out,
		TableSchema{"diff", "one per (device pair, metric)", "diff --format csv|json", DiffRecords(metrics.Diff{}).Columns},
		TableSchema{"compare", "one per (run, device)", "compare --format csv|json", CompareRecords(nil, nil).Columns},
		TableSchema{"host-compare", "one per (run, host metric) and (run, host op)", "compare and diff --format csv|json of runs without GPU activity",
			HostCompareRecords(nil, nil).Columns},
	)
}

// SchemaOf returns the schema of one table.
func SchemaOf(name string) (TableSchema, bool) {
	for _, s := range schemas() {
		if s.Name == name {
			return s, true
		}
	}
	return TableSchema{}, false
}

// typeName is a column's type in the schema.
func typeName(c Column) string {
	if c.Mixed {
		return "number"
	}
	switch c.kind() {
	case 's':
		return "string"
	case 'f':
		return "float"
	}
	return "integer"
}

// unitName is a column's unit in the schema; "" for names and counts.
func unitName(c Column) string {
	switch c.Unit {
	case metrics.NS:
		return "ns"
	case metrics.Bytes:
		return "bytes"
	case metrics.GBps:
		return "GB/s"
	case metrics.Ratio:
		return "ratio"
	case metrics.FLOP:
		return "FLOP"
	case metrics.TFLOPS:
		return "TFLOP/s"
	}
	return ""
}

type schemaColumnJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Unit     string `json:"unit,omitempty"`
	Nullable bool   `json:"nullable"`
	Doc      string `json:"doc"`
}

type schemaJSON struct {
	Version int                `json:"version"`
	Table   string             `json:"table"`
	Row     string             `json:"row"`
	Command string             `json:"command"`
	Columns []schemaColumnJSON `json:"columns"`
}

// WriteSchemaJSON writes a table's schema as one JSON document.
func WriteSchemaJSON(w io.Writer, s TableSchema) error {
	doc := schemaJSON{Version: SchemaVersion, Table: s.Name, Row: s.Row, Command: s.Command, Columns: []schemaColumnJSON{}}
	for _, c := range s.Columns {
		doc.Columns = append(doc.Columns, schemaColumnJSON{c.Name, typeName(c), unitName(c), c.Null, c.Doc})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteSchemaMarkdown writes every table's schema as Markdown, the text
// of docs/schema.md.
func WriteSchemaMarkdown(out io.Writer) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, `# Schema of traceql's tables, version %d

Generated from the column declarations by `+"`go test ./cmd/traceql -run TestSchemaDoc -update`"+`;
`+"`traceql export --schema --table NAME`"+` prints one table's as JSON.

Every table is written the same way by every command:

- CSV: a header row, then one row per line; a value that is missing (the
  quantity is undefined: a mean of no kernels, a bandwidth of no copies) is
  an empty cell.
- JSON (`+"`--format json`"+`): one document, `+"`"+`{"version": %d, "table": NAME, "rows": [...]}`+"`"+`,
  each row an object keyed by column name; a missing value is `+"`null`"+`.
- JSON lines (`+"`export --format jsonl`"+`, or `+"`-o x.jsonl`"+`): one row object a line.
- Parquet (`+"`export --format parquet`"+`): the same columns in the same order,
  integers INT64, floats DOUBLE, strings BYTE_ARRAY (UTF-8); nullable
  columns are OPTIONAL.

Times are integer ns, sizes integer bytes, bandwidths GB/s (GB = 1e9 B),
ratios plain fractions. The version grows when a column changes meaning or
type or goes away; a new column does not change it.
`, SchemaVersion, SchemaVersion)
	for _, s := range schemas() {
		fmt.Fprintf(w, "\n## %s\n\nOne row %s; written by `%s`.\n\n", s.Name, strings.TrimPrefix(s.Row, "one "), s.Command)
		if s.Name == "summary" {
			fmt.Fprint(w, "`summarize --format json` adds to each row `copies` (by kind and memory kinds: kind, src, dst, copies, bytes, ns, gbps)\n"+
				"and `top_kernels` (name, count, total_ns, mean_ns, min_ns, max_ns, share).\n\n")
		}
		fmt.Fprintln(w, "| column | type | unit | nullable | definition |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, c := range s.Columns {
			null := ""
			if c.Null {
				null = "yes"
			}
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", c.Name, typeName(c), unitName(c), null, strings.ReplaceAll(c.Doc, "|", `\|`))
		}
	}
	return w.Flush()
}
