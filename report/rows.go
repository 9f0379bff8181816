package report

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// A Value is one typed cell of a record: an integer, a float, a string or
// no value at all (null), so that writers never guess a type from a Go
// value and a missing value is never a zero.
type Value struct {
	kind byte // 0: none (null); 'i', 'f', 's'
	i    int64
	f    float64
	s    string
}

// Kind is v's kind: 'i' (Int), 'f' (Float), 's' (Text), or 0 for no value.
func (v Value) Kind() byte { return v.kind }

// Int is an 'i' value.
func (v Value) Int() int64 { return v.i }

// Float is an 'f' value.
func (v Value) Float() float64 { return v.f }

// Text is an 's' value.
func (v Value) Text() string { return v.s }

// valueOf types a record's cell: int or int64, float64, string, or nil for
// no value.
func valueOf(v any) (Value, bool) {
	switch x := v.(type) {
	case nil:
		return Value{}, true
	case int:
		return Value{kind: 'i', i: int64(x)}, true
	case int64:
		return Value{kind: 'i', i: x}, true
	case float64:
		return Value{kind: 'f', f: x}, true
	case string:
		return Value{kind: 's', s: x}, true
	}
	return Value{}, false
}

// kind is the value kind a column holds.
func (c Column) kind() byte {
	switch {
	case c.Unit == metrics.Text:
		return 's'
	case c.Float:
		return 'f'
	}
	return 'i'
}

// An opt is a float that may have no value (null in JSON and Parquet,
// empty in CSV): a bandwidth without time, a ratio against nothing.
type opt struct {
	V  float64
	OK bool
}

// An optInt is an integer that may have no value: a kernel's correlation
// id when the trace gives none.
type optInt struct {
	V  int64
	OK bool
}

// someInt is an optInt with a value.
func someInt(v int64) optInt { return optInt{v, true} }

var optType, optIntType = reflect.TypeFor[opt](), reflect.TypeFor[optInt]()

// A rowType is a struct whose fields are the columns of a table, in
// order: its rows can be neither short nor long. Each field has a tag
// `col:"name,unit"` (unit: count, ns, bytes, gbps or ratio; strings are
// text) and `doc:"…"`, the column's definition in the schema. An
// embedded struct (a row key, deviceKey or fileKey) gives its fields'
// columns in its place: the columns every table begins with, declared
// once.
type rowType struct {
	typ    reflect.Type
	cols   []Column
	fields [][2]int // the field, and in an embedded key its field (else -1)
}

// deviceKey begins the rows of the tables with a row per device and
// something: the columns that say whose the row is.
type deviceKey struct {
	File   string `col:"file" doc:"the trace file, as given or found in a folder"`
	Device int    `col:"device" doc:"device id"`
}

// fileKey begins the rows of the tables of a trace's host side.
type fileKey struct {
	File string `col:"file" doc:"the trace file, as given or found in a folder"`
}

// deviceKey is the key of the rows of device d of the trace in.
func (in *ExportInput) deviceKey(d int) deviceKey { return deviceKey{in.Trace.Source, d} }

// fileKey is the key of the rows of the trace in.
func (in *ExportInput) fileKey() fileKey { return fileKey{in.Trace.Source} }

func rowTypeOf[T any]() rowType {
	typ := reflect.TypeFor[T]()
	var rt rowType
	rt.typ = typ
	units := map[string]metrics.Unit{"": metrics.Count, "count": metrics.Count, "ns": metrics.NS, "bytes": metrics.Bytes,
		"gbps": metrics.GBps, "ratio": metrics.Ratio,
		"flop": metrics.FLOP, "tflops": metrics.TFLOPS}
	type field struct {
		f    reflect.StructField
		path [2]int
	}
	var fields []field
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.Anonymous {
			fields = append(fields, field{f, [2]int{i, -1}})
			continue
		}
		for j := range f.Type.NumField() {
			fields = append(fields, field{f.Type.Field(j), [2]int{i, j}})
		}
	}
	for _, ff := range fields {
		f := ff.f
		tag, ok := f.Tag.Lookup("col")
		if !ok {
			continue
		}
		name, unit, _ := strings.Cut(tag, ",")
		u, ok := units[unit]
		if !ok {
			panic(fmt.Sprintf("report: %s.%s: unit %q", typ.Name(), f.Name, unit)) // a programming error, caught by every test
		}
		c := Column{Name: name, Unit: u, Doc: f.Tag.Get("doc")}
		switch f.Type.Kind() {
		case reflect.String:
			c.Unit = metrics.Text
		case reflect.Float64:
			c.Float = true
		case reflect.Struct:
			switch f.Type {
			case optType:
				c.Float, c.Null = true, true
			case optIntType:
				c.Null = true
			default:
				panic(fmt.Sprintf("report: %s.%s: type %s", typ.Name(), f.Name, f.Type))
			}
		}
		rt.cols = append(rt.cols, c)
		rt.fields = append(rt.fields, ff.path)
	}
	return rt
}

// values lays a row of the type out as typed cells.
func (rt *rowType) values(dst []Value, row reflect.Value) []Value {
	dst = dst[:0]
	for _, p := range rt.fields {
		f := row.Field(p[0])
		if p[1] >= 0 {
			f = f.Field(p[1])
		}
		switch f.Kind() {
		case reflect.String:
			dst = append(dst, Value{kind: 's', s: f.String()})
		case reflect.Float64:
			dst = append(dst, Value{kind: 'f', f: f.Float()})
		case reflect.Struct: // opt or optInt: no value unless OK
			switch {
			case !f.Field(1).Bool():
				dst = append(dst, Value{})
			case f.Type() == optType:
				dst = append(dst, Value{kind: 'f', f: f.Field(0).Float()})
			default:
				dst = append(dst, Value{kind: 'i', i: f.Field(0).Int()})
			}
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
			dst = append(dst, Value{kind: 'i', i: int64(f.Uint())})
		default:
			dst = append(dst, Value{kind: 'i', i: f.Int()})
		}
	}
	return dst
}

// appendJSON appends v as JSON: null for no value, and for a float that
// JSON cannot hold (NaN, ±Inf).
func (v Value) appendJSON(b []byte) []byte {
	switch v.kind {
	case 'i':
		return strconv.AppendInt(b, v.i, 10)
	case 'f':
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return append(b, "null"...)
		}
		return strconv.AppendFloat(b, v.f, 'f', -1, 64)
	case 's':
		return appendJSONString(b, v.s)
	}
	return append(b, "null"...)
}
