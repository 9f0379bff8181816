package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/traceql/traceql/internal/mute"
	"github.com/traceql/traceql/report"
)

// readSummaryParts reads the files as traceql's own summary Parquet exports
// (export --table summary --format parquet, one per --shard worker) and
// returns their records in natural order of file, each file's rows in
// their order: the order summarize gives a DIR argument's traces. ok is
// false when no file is Parquet; traces and Parquet files do not mix. A
// part that cannot be read (damaged in transfer, another table, too large
// for the memory) is named in one line on errOut and counted in failed,
// and the others are read, as summarize does with traces; their records
// together may take at most the memory budget.
func readSummaryParts(files []string, errOut io.Writer, budget int64) (rec *report.Table, ok bool, failed int, err error) {
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
			return nil, false, 0, err
		}
		if isParquet(head) {
			parts = append(parts, f)
		} else {
			traces = append(traces, f)
		}
	}
	if len(parts) == 0 {
		return nil, false, 0, nil
	}
	if len(traces) > 0 {
		return nil, true, 0, usageError{fmt.Errorf("%s is a Parquet file and %s is not: give traces, or the Parquet parts of export --table summary", parts[0], traces[0])}
	}
	rec = &report.Table{Columns: report.SummaryRecords(nil).Columns}
	left := budget // 0: no bound
	for _, p := range parts {
		restore := mute.Stderr()
		t, err := readSummaryPart(p, left)
		restore()
		if err != nil {
			complain(errOut, errorMessage(err))
			failed++
			continue
		}
		rec.Rows = append(rec.Rows, t.Rows...)
		if budget > 0 {
			for _, r := range t.Rows {
				left -= recordBytes(r)
			}
			left = max(left, 1)
		}
	}
	slices.SortStableFunc(rec.Rows, func(a, b []any) int { return naturalCompare(a[0].(string), b[0].(string)) })
	return rec, true, failed, nil
}

func readSummaryPart(path string, maxBytes int64) (*report.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readSummaryParquet(f, st.Size(), path, maxBytes)
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
	if opts.Format == "json" {
		return usageError{fmt.Errorf("--format json has each trace's copies and top kernels, which Parquet parts do not: use csv, text or markdown")}
	}
	out := tableOutput(opts.IO, opts.Format, opts.CSV, "")
	if out.Records() {
		return report.Write(opts.IO.Out, out, rec)
	}
	o := report.OverviewOfRecords(rec)
	if o == nil {
		return fmt.Errorf("the Parquet parts hold fewer than two traces with GPU activity: no overview")
	}
	return report.Write(opts.IO.Out, out, o)
}
