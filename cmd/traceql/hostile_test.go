package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	_ "modernc.org/sqlite" // the "sqlite" driver, to write hostile exports

	"github.com/traceql/traceql/internal/mute"
	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/internal/synth"
)

// The hostile inputs of issue 66 that need no limit to reproduce, run in
// process; those that need one, with the built command, are in
// hostile_linux_test.go.

// TestDamagedPart: a summary part damaged in transfer, one byte of its
// last pages changed so that parquet-go's decoder panicked (a 33-line
// stack, exit 2, no overview), is named in one line, exit 1, and the
// overview of the other parts is printed, as for a part that is missing.
func TestDamagedPart(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeRanks(t, dir, 6, -1)
	var parts []string
	for k := range 3 {
		p := filepath.Join(out, fmt.Sprintf("part-%d.parquet", k))
		if _, errOut, code := traceql("export", dir, "--shard", fmt.Sprintf("%d/3", k), "--table", "summary", "-f", "parquet", "-q", "-o", p); code != 0 {
			t.Fatal(errOut)
		}
		parts = append(parts, p)
	}
	good, _, code := traceql("summarize", "--overview", parts[0], parts[1])
	if code != 0 {
		t.Fatalf("the good parts: exit %d", code)
	}
	// The first change of a byte from the end that the decoder panics
	// on: the reader names the panic it recovered.
	b, err := os.ReadFile(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	damaged := false
	for i := len(b) - 1; i >= max(len(b)-1600, 0) && !damaged; i-- {
		for _, x := range []byte{0xff, 0x80, 0x01} {
			c := bytes.Clone(b)
			c[i] ^= x
			restore := mute.Stderr()
			_, err := readSummaryParquet(bytes.NewReader(c), int64(len(c)), "part", 0)
			restore()
			if err != nil && strings.Contains(err.Error(), "a damaged Parquet file") {
				b, damaged = c, true
				break
			}
		}
	}
	if !damaged {
		t.Fatal("no change of one byte panics parquet-go: the test needs another way to damage a part")
	}
	if err := os.WriteFile(parts[2], b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"summarize", "--overview"}, {"summarize"}} {
		got, errOut, code := traceql(append(args, parts...)...)
		if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "traceql: "+parts[2]+": a damaged Parquet file") {
			t.Errorf("%v with a damaged part: exit %d, stderr %q; want 1 and one line naming it", args, code, errOut)
		}
		if got != good {
			t.Errorf("%v: the overview of the good parts:\n%s\nwant\n%s", args, got, good)
		}
	}
}

// TestOutputNamesInputShard: -o naming a trace of DIR that another
// worker's share holds is refused (exit 2), as one in the worker's own
// share is, and the trace stays as it was.
func TestOutputNamesInputShard(t *testing.T) {
	dir := t.TempDir()
	writeRanks(t, dir, 4, -1)
	files := []string{filepath.Join(dir, "rank0.json"), filepath.Join(dir, "rank1.json"), filepath.Join(dir, "rank2.json"), filepath.Join(dir, "rank3.json")}
	mine := (&shard{0, 2}).pick([]string{dir}, files)
	var other string
	for _, f := range files {
		if !strings.Contains(strings.Join(mine, "\n"), f) {
			other = f
			break
		}
	}
	if other == "" {
		t.Fatal("worker 0 of 2 has every file")
	}
	before, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := traceql("export", dir, "--shard", "0/2", "--table", "summary", "-q", "-o", other)
	if code != 2 || errOut != "traceql: -o "+other+" is also an input, which it would replace\n" {
		t.Errorf("-o onto another worker's trace: exit %d, %q; want 2 and one line", code, errOut)
	}
	if after, _ := os.ReadFile(other); !bytes.Equal(before, after) {
		t.Error("the trace was changed")
	}
}

// TestOutputNamesInputPlots: compare --plot X.png writes X.gpu1.png for
// the second device pair; an input of that name is refused (exit 2) and
// left as it was, and X.png is not written either.
func TestOutputNamesInputPlots(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(sample) // two GPUs
	if err != nil {
		t.Fatal(err)
	}
	png0, png1 := filepath.Join(dir, "p.png"), filepath.Join(dir, "p.gpu1.png")
	if err := os.WriteFile(png1, b, 0o644); err != nil { // a trace, by its content
		t.Fatal(err)
	}
	_, errOut, code := traceql("compare", "-q", sample, png1, "--plot", png0)
	if code != 2 || errOut != "traceql: -o "+png1+" is also an input, which it would replace\n" {
		t.Errorf("--plot whose second image is an input: exit %d, %q; want 2 and one line", code, errOut)
	}
	if after, _ := os.ReadFile(png1); !bytes.Equal(b, after) {
		t.Error("the input was replaced")
	}
	if _, err := os.Stat(png0); err == nil {
		t.Error("the first image was written")
	}
}

// TestCSVCells: a kernel name that a spreadsheet would run as a formula
// is written as it is, for pandas, and with --csv-safe prefixed with ';
// a file name that is not UTF-8 is written with U+FFFD for each bad byte,
// as the JSON output writes it, and the CSV stays UTF-8.
func TestCSVCells(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.json")
	if _, err := synth.WriteFile(src, synth.Config{Seed: 3, Steps: 2, KernelsPerStep: 4}, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"name": "void `)) {
		t.Fatal("the generated trace has no kernel named void …")
	}
	path := filepath.Join(dir, "run\xff\xfe.json")
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(`"name": "void `), []byte(`"name": "=1+2 void `)), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, errOut, code := traceql("export", "--table", "kernel-stats", "-f", "csv", "-q", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	safe, errOut, code := traceql("export", "--table", "kernel-stats", "-f", "csv", "-q", "--csv-safe", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(plain, ",=1+2 void ") || strings.Contains(plain, "'=1+2") {
		t.Errorf("without --csv-safe the name is not as recorded:\n%.600s", plain)
	}
	if !strings.Contains(safe, ",'=1+2 void ") || strings.Contains(safe, ",=1+2") {
		t.Errorf("--csv-safe did not prefix the name:\n%.600s", safe)
	}
	wantName := filepath.Join(dir, "run\uFFFD\uFFFD.json")
	for _, tt := range []struct{ name, out string }{{"export", plain}, {"export --csv-safe", safe}} {
		if !utf8.ValidString(tt.out) || !strings.Contains(tt.out, wantName) {
			t.Errorf("%s: the file name is not written with U+FFFD (valid UTF-8: %v)", tt.name, utf8.ValidString(tt.out))
		}
	}
	sum, errOut, code := traceql("summarize", "-f", "csv", "-q", path)
	if code != 0 || !utf8.ValidString(sum) || !strings.Contains(sum, wantName) {
		t.Errorf("summarize -f csv: exit %d, %s; the file name is not written with U+FFFD:\n%.400s", code, errOut, sum)
	}
	js, _, _ := traceql("summarize", "-f", "json", "-q", path)
	if !strings.Contains(js, strings.ReplaceAll(wantName, "\uFFFD", `\ufffd`)) && !strings.Contains(js, wantName) {
		t.Errorf("summarize -f json does not write the name as the CSV does:\n%.400s", js)
	}
}

// TestNsightRowidExtremes: a kernel table whose rowids span the int64
// range, from -2^63 to 2^63-1, is read (max − min + 1 overflowed and the
// export was refused).
func TestNsightRowidExtremes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ends.sqlite")
	spec := nsysgen.Spec{Version: "2026.1.1.204", GPUs: []nsysgen.GPU{{ID: 0, Name: "generated GPU", SMs: 132}}, Kernels: nsysgen.ManyKernels(10)}
	if err := nsysgen.Write(path, spec); err != nil {
		t.Fatal(err)
	}
	want, errOut, code := traceql("summarize", "-f", "csv", "-q", path)
	if code != 0 {
		t.Fatal(errOut)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = -9223372036854775808 WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)",
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 9223372036854775807 WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	got, errOut, code := traceql("summarize", "-f", "csv", "-q", path)
	if code != 0 || got != want {
		t.Errorf("rowids from -2^63 to 2^63-1: exit %d, %s\n%s\nwant\n%s", code, errOut, got, want)
	}
}
