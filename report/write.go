package report

import (
	"fmt"
	"io"
)

// An Output says how Write writes tables: the format and what it needs.
type Output struct {
	Format string     // text (also ""), markdown, csv or json
	Width  int        // text: the terminal's columns (0: a file or pipe)
	CSV    CSVOptions // csv: how text cells are written
	Name   string     // json: the document's table name
}

// Records reports whether o's format is one for programs (csv, json),
// which take the records of a result, one row per value, rather than the
// tables laid out for people.
func (o Output) Records() bool { return o.Format == "csv" || o.Format == "json" }

// Write writes tables in o's format, the one switch from a format to its
// writer (as pprof's Generate): text (WriteTextWidth) and markdown any
// number of tables; csv and json one, the records.
func Write(w io.Writer, o Output, tables ...*Table) error {
	switch o.Format {
	case "text", "":
		return WriteTextWidth(w, o.Width, tables...)
	case "markdown":
		return WriteMarkdown(w, tables...)
	case "csv", "json":
		if len(tables) != 1 {
			return fmt.Errorf("%s writes one table of records, not %d", o.Format, len(tables))
		}
		if o.Format == "csv" {
			return WriteCSVWith(w, tables[0], o.CSV)
		}
		return WriteJSON(w, o.Name, tables[0])
	}
	return fmt.Errorf("no writer for format %q", o.Format)
}
