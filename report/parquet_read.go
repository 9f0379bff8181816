package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/traceql/traceql/metrics"
)

// IsParquet reports whether a file's first bytes are Parquet's magic
// number, "PAR1".
func IsParquet(head []byte) bool { return bytes.HasPrefix(head, []byte("PAR1")) }

// ReadSummaryParquet reads back what export --table summary --format parquet
// wrote: the records of SummaryRecords, text as string, integers as int64
// and floating-point columns as float64, nulls (no value) as nil, so that
// the records are the ones written, exactly. name is the file's name, for errors. A file with other
// columns (another table, another traceql) is an error.
func ReadSummaryParquet(r io.ReaderAt, size int64, name string) (*Table, error) {
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	want := SummaryRecords(nil).Columns
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
	t := &Table{Columns: want}
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
					case v.IsNull(): // no value: SummaryRecords' nil
					case kinds[c] == parquet.ByteArray:
						rec[c] = string(v.ByteArray())
					case kinds[c] == parquet.Double:
						rec[c] = v.Double()
					default:
						rec[c] = v.Int64()
					}
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
