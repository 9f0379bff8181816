// Package parquet writes export's tidy rows as a Parquet file (zstd), for
// DuckDB, Spark or pandas when a trace set outgrows one machine. It is
// report's RowSink in a package of its own, so that report, and what
// imports it, do not link parquet-go.
package parquet

import (
	"fmt"
	"io"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// NewRowWriter starts a Parquet file whose columns are cols, in their
// order.
func NewRowWriter(w io.Writer, cols []report.Column) *report.RowWriter {
	return report.NewSinkWriter(newRows(w, cols), cols)
}

// rows is the RowSink that writes a Parquet file.
type rows struct {
	w   *parquet.GenericWriter[any]
	buf []parquet.Row
	opt []bool // by column: OPTIONAL, a null where a row has no value
}

// newRows starts a file whose columns are cols, in their order. The
// schema is that of a struct type made for them: parquet-go keeps a
// struct's field order, where a parquet.Group (a map) sorts its columns by
// name and SELECT * would list them alphabetically.
func newRows(w io.Writer, cols []report.Column) *rows {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		typ := reflect.TypeFor[int64]()
		switch {
		case c.Unit == metrics.Text:
			typ = reflect.TypeFor[string]()
		case c.Float:
			typ = reflect.TypeFor[float64]()
		}
		tag := c.Name
		if c.Null {
			tag += ",optional"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	schema := parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Interface())
	opt := make([]bool, len(cols))
	for i, c := range cols {
		opt[i] = c.Null
	}
	return &rows{w: parquet.NewGenericWriter[any](w, schema, parquet.Compression(&zstd.Codec{})), opt: opt}
}

func (p *rows) WriteRow(vals []report.Value) error {
	row := make(parquet.Row, len(vals))
	for i, v := range vals {
		var pv parquet.Value
		switch v.Kind() {
		case 's':
			pv = parquet.ByteArrayValue([]byte(v.Text()))
		case 'i':
			pv = parquet.Int64Value(v.Int())
		case 'f':
			pv = parquet.DoubleValue(v.Float())
		default:
			if !p.opt[i] {
				return fmt.Errorf("parquet: column %d: no value", i)
			}
			row[i] = parquet.NullValue().Level(0, 0, i)
			continue
		}
		def := 0
		if p.opt[i] {
			def = 1
		}
		row[i] = pv.Level(0, def, i)
	}
	p.buf = append(p.buf, row)
	if len(p.buf) == 4096 {
		return p.flush()
	}
	return nil
}

func (p *rows) flush() error {
	_, err := p.w.WriteRows(p.buf)
	p.buf = p.buf[:0]
	return err
}

func (p *rows) Close() error {
	if err := p.flush(); err != nil {
		return err
	}
	return p.w.Close()
}
