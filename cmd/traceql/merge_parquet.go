package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// isParquet reports whether a file's first bytes are Parquet's magic
// number, "PAR1".
func isParquet(head []byte) bool { return bytes.HasPrefix(head, []byte("PAR1")) }

// readSummaryParquet reads back what export --table summary --format parquet
// wrote: the records of report.SummaryRecords, text as string, integers as int64
// and floating-point columns as float64, nulls (no value) as nil, so that
// the records are the ones written, exactly. name is the file's name, for errors. A file with other
// columns (another table, another traceql) is an error.
//
// maxBytes bounds the memory the records may take (recordBytes; 0: no
// bound), as the memory the caller has: a part of half a megabyte can
// hold a million dictionary-encoded rows, gigabytes once read, and is
// refused before it is read when its metadata says so, or once its rows
// pass the bound when the metadata lies.
//
// A damaged file is an error, never a panic: parquet-go's decoders index
// by the file's offsets and lengths unchecked, and a flipped byte panics
// them (slice bounds, a nil page). The file is read in this goroutine
// alone (ReadModeSync; no page index or Bloom filters, which the rows do
// not need), so that the panic can be recovered here and named.
func readSummaryParquet(r io.ReaderAt, size int64, name string, maxBytes int64) (t *report.Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: a damaged Parquet file (%v); export it again", name, p)
		}
	}()
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.FileReadMode(parquet.ReadModeSync))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	want := report.SummaryRecords(nil).Columns
	fields := f.Schema().Fields()
	kinds := make([]parquet.Kind, len(want))
	for i, c := range want {
		kinds[i] = parquet.Int64
		switch {
		case c.Unit == metrics.Text:
			kinds[i] = parquet.ByteArray
		case c.Float:
			kinds[i] = parquet.Double
		}
		if i >= len(fields) || fields[i].Name() != c.Name || !fields[i].Leaf() || fields[i].Type().Kind() != kinds[i] ||
			fields[i].Optional() != c.Null {
			return nil, fmt.Errorf("%s: not traceql's summary table (column %d: want %s %s); write it with export --table summary --format parquet",
				name, i+1, c.Name, kinds[i])
		}
	}
	if len(fields) != len(want) {
		return nil, fmt.Errorf("%s: not traceql's summary table: %d columns, want %d; write it with export --table summary --format parquet",
			name, len(fields), len(want))
	}
	over := func(rows int64) error {
		return fmt.Errorf("%s: %d rows take more than the %s of memory this read may use; read fewer parts at once, or on a machine with more memory",
			name, rows, byteSize(maxBytes))
	}
	if n := f.NumRows(); n < 0 || maxBytes > 0 && n > maxBytes/recordValueBytes/int64(len(want)) {
		return nil, over(n)
	}
	t = &report.Table{Columns: want}
	var used int64
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				rec := make([]any, len(want))
				if len(row) != len(want) {
					rows.Close()
					return nil, fmt.Errorf("%s: row %d: %d values, want %d", name, len(t.Rows)+1, len(row), len(want))
				}
				for _, v := range row {
					c := v.Column()
					if c < 0 || c >= len(want) {
						rows.Close()
						return nil, fmt.Errorf("%s: row %d: an unknown column", name, len(t.Rows)+1)
					}
					switch {
					case v.IsNull(): // no value: report.SummaryRecords' nil
					case kinds[c] == parquet.ByteArray:
						rec[c] = string(v.ByteArray())
					case kinds[c] == parquet.Double:
						rec[c] = v.Double()
					default:
						rec[c] = v.Int64()
					}
				}
				if used += recordBytes(rec); maxBytes > 0 && used > maxBytes {
					rows.Close()
					return nil, over(int64(len(t.Rows) + 1))
				}
				t.Rows = append(t.Rows, rec)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return t, nil
}

// recordValueBytes is what one value of a record read takes at least: the
// interface in the record, the value it boxes, and parquet-go's value.
const recordValueBytes = 48

// recordBytes estimates the memory a record read from a part takes: each
// value's recordValueBytes and its text.
func recordBytes(rec []any) int64 {
	n := int64(len(rec)) * recordValueBytes
	for _, v := range rec {
		if s, ok := v.(string); ok {
			n += int64(len(s))
		}
	}
	return n
}

// byteSize writes n bytes in MiB or GiB.
func byteSize(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
