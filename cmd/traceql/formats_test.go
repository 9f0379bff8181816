package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/report"
)

// formatRuns writes two small generated runs, an eager one and one with
// graph launches, and returns the folder and their paths.
func formatRuns(t *testing.T) (dir, a, b string) {
	dir = t.TempDir()
	for i, cfg := range []synth.IdleConfig{{Seed: 3, Launches: 24, Steps: 3}, {Seed: 4, Launches: 8, GraphLaunches: 3, FanOut: 4, Steps: 3}} {
		var buf bytes.Buffer
		if _, err := synth.WriteIdle(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, []string{"eager.json", "graphs.json"}[i])
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "eager.json"), filepath.Join(dir, "graphs.json")
}

// TestFormatsGolden pins what a user sees, stdout and stderr, for every
// format of every command that writes tables, and for a missing file:
// testdata/formats/NAME.stdout and NAME.stderr (benchstat's x.stderr).
func TestFormatsGolden(t *testing.T) {
	dir, _, _ := formatRuns(t)
	// Run in the runs' folder with relative names: a temporary folder's
	// name changes length from run to run, and with it the width of
	// every column that shows a path.
	gold, err := filepath.Abs(filepath.Join("testdata", "formats"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	a, b, gone := "eager.json", "graphs.json", "gone.json"
	type tc struct {
		name string
		args []string
		code int
	}
	var tests []tc
	for _, f := range []string{"text", "csv", "json", "markdown"} {
		tests = append(tests,
			tc{"summarize." + f, []string{"summarize", a, b, "-f", f, "--top", "3"}, 0},
			tc{"diff." + f, []string{"diff", a, b, "-f", f, "--top", "3"}, 0},
			tc{"compare." + f, []string{"compare", a, b, "-f", f, "--label", "eager,graphs"}, 0})
	}
	for _, table := range []string{"summary", "kernel-stats", "steps", "gaps", "streams", "copy-stats"} {
		for _, f := range []string{"csv", "json", "jsonl"} {
			tests = append(tests, tc{"export." + table + "." + f, []string{"export", a, b, "--table", table, "-f", f}, 0})
		}
	}
	tests = append(tests,
		tc{"export.schema", []string{"export", "--schema", "--table", "gaps"}, 0},
		tc{"export.host", []string{"export", a, "--table", "host"}, 0},
		tc{"summarize.missing", []string{"summarize", a, gone, "-f", "csv"}, 1},
		tc{"export.missing", []string{"export", gone}, 1},
		tc{"diff.missing", []string{"diff", a, gone}, 1},
		tc{"compare.missing", []string{"compare", a, gone}, 1},
		tc{"plot.missing", []string{"plot", gone, "-o", "p.svg"}, 1},
		tc{"labels.count", []string{"compare", a, b, "--label", "one"}, 2},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, errOut)
			}
			golden.Check(t, filepath.Join(gold, tt.name+".stdout"), []byte(out))
			golden.Check(t, filepath.Join(gold, tt.name+".stderr"), []byte(errOut))
		})
	}
}

// TestRoundTrip: every export table written as CSV, JSON and Parquet
// reads back, without pandas, as the same typed values: integers as
// integers, floats exactly, strings, and no value as an empty CSV cell,
// a JSON null and a Parquet null.
func TestRoundTrip(t *testing.T) {
	dir, a, b := formatRuns(t)
	rows := 0
	for _, table := range report.ExportTables() {
		schema, _ := report.SchemaOf(table)
		files := map[string]string{}
		for _, f := range []string{"csv", "json", "parquet"} {
			files[f] = filepath.Join(dir, table+"."+f)
			args := []string{"export", a, b, "--table", table, "-o", files[f]}
			if _, errOut, code := traceql(args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
		}
		want := readCSVTable(t, files["csv"], schema)
		for name, got := range map[string][][]any{"JSON": readJSONTable(t, files["json"], schema), "Parquet": readParquetTable(t, files["parquet"], schema)} {
			if len(got) != len(want) {
				t.Errorf("%s %s: %d rows, CSV %d", table, name, len(got), len(want))
				continue
			}
			for i := range want {
				for j, c := range schema.Columns {
					if got[i][j] != want[i][j] {
						t.Errorf("%s %s row %d %s: %#v, CSV %#v", table, name, i, c.Name, got[i][j], want[i][j])
					}
				}
			}
		}
		rows += len(want)
	}
	if rows < 100 {
		t.Errorf("%d rows read back over every table, want more", rows)
	}
}

// typed reads a CSV cell as its column's type; nil for an empty cell
// that is not text.
func typed(t *testing.T, s string, c report.Column, typ string) any {
	if typ == "string" {
		return s
	}
	if s == "" {
		return nil
	}
	if typ == "integer" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: %q is not an integer", c.Name, s)
		}
		return v
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s: %q is not a number", c.Name, s)
	}
	return v
}

// columnTypes are the schema's types of a table's columns, as
// docs/schema.md names them.
func columnTypes(t *testing.T, s report.TableSchema) []string {
	var buf bytes.Buffer
	if err := report.WriteSchemaJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Columns []struct{ Name, Type string }
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range doc.Columns {
		out = append(out, c.Type)
	}
	return out
}

func readCSVTable(t *testing.T, path string, s report.TableSchema) [][]any {
	recs := csvRecords(t, string(readFile(t, path)))
	types := columnTypes(t, s)
	for j, c := range s.Columns {
		if recs[0][j] != c.Name {
			t.Fatalf("%s: column %d is %s, the schema's %s", path, j, recs[0][j], c.Name)
		}
	}
	var out [][]any
	for _, r := range recs[1:] {
		row := make([]any, len(r))
		for j, v := range r {
			row[j] = typed(t, v, s.Columns[j], types[j])
		}
		out = append(out, row)
	}
	return out
}

func readJSONTable(t *testing.T, path string, s report.TableSchema) [][]any {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int
		Table   string
		Rows    []map[string]any
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if doc.Version != report.SchemaVersion || doc.Table != s.Name {
		t.Errorf("%s: version %d table %q", path, doc.Version, doc.Table)
	}
	types := columnTypes(t, s)
	var out [][]any
	for _, r := range doc.Rows {
		if len(r) != len(s.Columns) {
			t.Errorf("%s: a row of %d members, want %d", path, len(r), len(s.Columns))
		}
		row := make([]any, len(s.Columns))
		for j, c := range s.Columns {
			v, ok := r[c.Name]
			if !ok {
				t.Fatalf("%s: a row without %s", path, c.Name)
			}
			switch x := v.(type) {
			case nil:
			case string:
				row[j] = x
			case json.Number:
				if types[j] == "integer" {
					row[j], err = x.Int64()
				} else {
					row[j], err = x.Float64()
				}
				if err != nil {
					t.Fatalf("%s: %s: %v", path, c.Name, err)
				}
			default:
				t.Fatalf("%s: %s: %T", path, c.Name, v)
			}
		}
		out = append(out, row)
	}
	return out
}

func readParquetTable(t *testing.T, path string, s report.TableSchema) [][]any {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fields := f.Schema().Fields()
	for j, c := range s.Columns {
		if fields[j].Name() != c.Name || fields[j].Optional() != c.Null {
			t.Fatalf("%s: column %d is %s (optional %v), the schema's %s (nullable %v)", path, j, fields[j].Name(), fields[j].Optional(), c.Name, c.Null)
		}
	}
	var out [][]any
	buf := make([]parquet.Row, 64)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				row := make([]any, len(s.Columns))
				for _, v := range r {
					switch j := v.Column(); {
					case v.IsNull():
					case v.Kind() == parquet.ByteArray:
						row[j] = string(v.ByteArray())
					case v.Kind() == parquet.Double:
						row[j] = v.Double()
					default:
						row[j] = v.Int64()
					}
				}
				out = append(out, row)
			}
			if err != nil {
				break
			}
		}
		rows.Close()
	}
	return out
}
