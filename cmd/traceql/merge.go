package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/traceql/traceql/report"
)

// readSummaryParts reads the files as traceql's own summary Parquet exports
// (export --table summary --format parquet, one per --shard worker) and
// returns their records in natural order of file, each file's rows in
// their order: the order summarize gives a DIR argument's traces. ok is
// false when no file is Parquet; traces and Parquet files do not mix.
func readSummaryParts(files []string) (rec *report.Table, ok bool, err error) {
	var parts, traces []string
	for _, f := range files {
		// A trace unless a regular file: a part is read at offsets, and a
		// FIFO or a shell's <(…) can be read only once, by the trace reader.
		if st, err := os.Stat(f); f == stdinName || err != nil || !st.Mode().IsRegular() {
			traces = append(traces, f)
			continue
		}
		head, err := readHead(f, 4)
		if err != nil {
			return nil, false, err
		}
		if report.IsParquet(head) {
			parts = append(parts, f)
		} else {
			traces = append(traces, f)
		}
	}
	if len(parts) == 0 {
		return nil, false, nil
	}
	if len(traces) > 0 {
		return nil, true, usageError{fmt.Errorf("%s is a Parquet file and %s is not: give traces, or the Parquet parts of export --table summary", parts[0], traces[0])}
	}
	rec = &report.Table{}
	for _, p := range parts {
		t, err := readSummaryPart(p)
		if err != nil {
			return nil, true, err
		}
		rec.Columns = t.Columns
		rec.Rows = append(rec.Rows, t.Rows...)
	}
	slices.SortStableFunc(rec.Rows, func(a, b []any) int { return naturalCompare(a[0].(string), b[0].(string)) })
	return rec, true, nil
}

func readSummaryPart(path string) (*report.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return report.ReadSummaryParquet(f, st.Size(), path)
}

// readHead reads up to n bytes from the start of a file.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	m, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return head[:m], nil
}

// writeMerged writes what summarize prints of the parts' records: the
// overview as text or markdown, or the rows again as CSV.
func writeMerged(opts *summarizeOptions, rec *report.Table) error {
	switch opts.Format {
	case "csv":
		return report.WriteCSV(opts.IO.Out, rec)
	case "json":
		return usageError{fmt.Errorf("--format json has each trace's copies and top kernels, which Parquet parts do not: use csv, text or markdown")}
	}
	o := report.OverviewOfRecords(rec)
	if o == nil {
		return fmt.Errorf("the Parquet parts hold fewer than two traces with GPU activity: no overview")
	}
	if opts.Format == "text" {
		return report.WriteTextWidth(opts.IO.Out, opts.IO.TerminalWidth(), o)
	}
	return report.WriteMarkdown(opts.IO.Out, o)
}
