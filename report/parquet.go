package report

import (
	"fmt"
	"io"
	"math"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/traceql/traceql/metrics"
)

// parquetRows writes tidy rows as a Parquet file (zstd), for DuckDB, Spark
// or pandas when a trace set outgrows one machine.
type parquetRows struct {
	w     *parquet.GenericWriter[any]
	buf   []parquet.Row
	float []bool // by column: DOUBLE
}

// newParquetRows starts a file whose columns are cols, in their order. The
// schema is that of a struct type made for them: parquet-go keeps a
// struct's field order, where a parquet.Group (a map) sorts its columns by
// name and SELECT * would list them alphabetically.
func newParquetRows(w io.Writer, cols []Column) *parquetRows {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		typ := reflect.TypeFor[int64]()
		switch {
		case c.Unit == metrics.Text:
			typ = reflect.TypeFor[string]()
		case c.Float:
			typ = reflect.TypeFor[float64]()
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: typ, Tag: reflect.StructTag(`parquet:"` + c.Name + `"`)}
	}
	schema := parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Interface())
	float := make([]bool, len(cols))
	for i, c := range cols {
		float[i] = c.Unit != metrics.Text && c.Float
	}
	return &parquetRows{w: parquet.NewGenericWriter[any](w, schema, parquet.Compression(&zstd.Codec{})), float: float}
}

func (p *parquetRows) write(vals []value) error {
	row := make(parquet.Row, len(vals))
	for i, v := range vals {
		var pv parquet.Value
		switch v.kind {
		case 's':
			pv = parquet.ByteArrayValue([]byte(v.s))
		case 'i':
			pv = parquet.Int64Value(v.i)
		case 'f':
			pv = parquet.DoubleValue(v.f)
		default:
			if !p.float[i] {
				return fmt.Errorf("parquet: column %d: no value", i)
			}
			pv = parquet.DoubleValue(math.NaN()) // no value, as CSV's empty cell
		}
		row[i] = pv.Level(0, 0, i)
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
