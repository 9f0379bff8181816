package report

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/traceql/traceql/metrics"
)

// parquetRows writes tidy rows as a Parquet file (zstd), for DuckDB, Spark
// or pandas when a trace set outgrows one machine.
type parquetRows struct {
	w     *parquet.Writer
	index []int // column position in the schema (a Group sorts by name)
	row   parquet.Row
	buf   []parquet.Row
}

func newParquetRows(w io.Writer, cols []Column) *parquetRows {
	g := parquet.Group{}
	for _, c := range cols {
		switch {
		case c.Unit == metrics.Text:
			g[c.Name] = parquet.String()
		case c.Float:
			g[c.Name] = parquet.Leaf(parquet.DoubleType)
		default:
			g[c.Name] = parquet.Int(64)
		}
	}
	schema := parquet.NewSchema("traceql", g)
	p := &parquetRows{w: parquet.NewWriter(w, schema, parquet.Compression(&zstd.Codec{})), row: make(parquet.Row, len(cols))}
	for _, c := range cols {
		leaf, _ := schema.Lookup(c.Name)
		p.index = append(p.index, leaf.ColumnIndex)
	}
	return p
}

func (p *parquetRows) write(vals []any) error {
	row := make(parquet.Row, len(vals))
	for i, v := range vals {
		var pv parquet.Value
		switch x := v.(type) {
		case string:
			pv = parquet.ByteArrayValue([]byte(x))
		case int:
			pv = parquet.Int64Value(int64(x))
		case int64:
			pv = parquet.Int64Value(x)
		case float64:
			pv = parquet.DoubleValue(x)
		default:
			return fmt.Errorf("parquet: column %d: unsupported value %T", i, v)
		}
		row[p.index[i]] = pv.Level(0, 0, p.index[i])
	}
	p.buf = append(p.buf, row)
	if len(p.buf) == 4096 {
		return p.flushRows()
	}
	return nil
}

func (p *parquetRows) flushRows() error {
	_, err := p.w.WriteRows(p.buf)
	p.buf = p.buf[:0]
	return err
}

func (p *parquetRows) close() error {
	if err := p.flushRows(); err != nil {
		return err
	}
	return p.w.Close()
}
