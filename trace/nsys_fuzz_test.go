package trace

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/traceql/traceql/internal/nsysgen"
)

// FuzzNsys edits a small valid export and reads it. Random bytes are not a
// useful SQLite file, so the fuzzer's input is a list of edits instead:
// set one cell of a table to a value of any SQLite type (NULL, integers
// at the limits, reals, numeric and other text, blobs), or delete a row,
// or drop a table. The properties are those of every reader: no panic,
// and a trace returned, leniently or under Strict, passes Validate.
func FuzzNsys(f *testing.F) {
	var bases [][]byte
	for _, shape := range []nsysgen.Shape{nsysgen.Shape2026, nsysgen.Shape2021} {
		path := filepath.Join(f.TempDir(), shape.String()+".sqlite")
		if err := nsysgen.Write(path, multiSpec(shape)); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, b)
	}
	f.Add([]byte{0})
	f.Add([]byte{1, 3, 0, 0, 4, 200})    // a NULL
	f.Add([]byte{0, 5, 1, 2, 2, 0})      // an extreme integer
	f.Add([]byte{0, 5, 2, 1, 5, 1})      // non-numeric text
	f.Add([]byte{1, 9, 0, 0, 7, 2})      // a dropped table
	f.Add([]byte{0, 4, 1, 1, 3, 7, 250}) // a real
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		path := filepath.Join(t.TempDir(), "fuzz.sqlite")
		if err := os.WriteFile(path, bases[int(in[0])%len(bases)], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := applyEdits(path, in[1:]); err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{}, {Strict: true}} {
			tr, err := o.Open(context.Background(), path)
			if err != nil {
				continue
			}
			if err := tr.Validate(); err != nil {
				t.Fatalf("strict=%v: accepted trace fails Validate: %v", o.Strict, err)
			}
		}
	})
}

// applyEdits carries out the edits in b, five bytes each: table, column,
// row, kind of value, and a byte the value is made from. Edits the schema
// refuses (NOT NULL, a type check) are left undone.
func applyEdits(path string, b []byte) error {
	dsn, err := nsysgen.DSN(path, "mode=rw")
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	names := func(q string, args ...any) ([]string, error) {
		rows, err := db.Query(q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, rows.Err()
	}
	for ; len(b) >= 5; b = b[5:] {
		tables, err := names("SELECT name FROM sqlite_master WHERE type = 'table'")
		if err != nil {
			return err
		}
		if len(tables) == 0 {
			return nil
		}
		slices.Sort(tables)
		table := tables[int(b[0])%len(tables)]
		cols, err := names("SELECT name FROM pragma_table_info(?)", table)
		if err != nil {
			return err
		}
		col, kind, arg := cols[int(b[1])%len(cols)], b[3]%8, b[4]
		row := fmt.Sprintf("(SELECT rowid FROM %q LIMIT 1 OFFSET %d)", table, b[2]%4)
		var q string
		var args []any
		switch kind {
		case 7:
			switch arg % 3 {
			case 0:
				q = fmt.Sprintf("DELETE FROM %q WHERE rowid = %s", table, row)
			case 1:
				q = fmt.Sprintf("DELETE FROM %q", table)
			default:
				q = fmt.Sprintf("DROP TABLE %q", table)
			}
		default:
			q = fmt.Sprintf("UPDATE %q SET %q = ? WHERE rowid = %s", table, col, row)
			args = []any{fuzzValue(kind, arg)}
		}
		db.Exec(q, args...) // a refused edit is one the schema does not allow
	}
	return nil
}

// fuzzValue makes a value of an SQLite type from two bytes.
func fuzzValue(kind, arg byte) any {
	switch kind {
	case 0:
		return nil
	case 1:
		return int64(int8(arg))
	case 2:
		limits := []int64{math.MaxInt64, math.MinInt64, -1, 0, 1 << 32, math.MaxUint32, 1 << 62, math.MaxInt64 / 1000}
		return limits[int(arg)%len(limits)]
	case 3:
		reals := []float64{0.5, -2.25, 1e19, -9.3e18, 1e300, 3.0, math.SmallestNonzeroFloat64}
		return reals[int(arg)%len(reals)]
	case 4:
		return strconv.Itoa(int(int8(arg)))
	case 5:
		texts := []string{"", "x", "1e400", "\xff\xfe", "9223372036854775808", " 12 ", "0x10"}
		return texts[int(arg)%len(texts)]
	default:
		return []byte{arg, 0}
	}
}

// TestApplyEdits checks that FuzzNsys's edits reach the reader: deleting
// every row of each table in turn must, for one of them, leave no kernels.
func TestApplyEdits(t *testing.T) {
	base := writeExport(t, "base.sqlite", multiSpec(nsysgen.Shape2026))
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	emptied := false
	for table := range byte(40) {
		path := filepath.Join(t.TempDir(), "edited.sqlite")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := applyEdits(path, []byte{table, 0, 0, 7, 1}); err != nil {
			t.Fatal(err)
		}
		tr, err := Open(context.Background(), path)
		if err == nil && len(tr.Kernels) == 0 {
			emptied = true
		}
	}
	if !emptied {
		t.Error("no edit emptied the kernel table")
	}
}
