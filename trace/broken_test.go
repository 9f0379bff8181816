package trace

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestBrokenInputs runs the corpus in testdata/broken: each txtar file holds
// an input and its expected outcome, "FAILURE <text in the error>" or
// "OK kernels=N [warning=<text in a warning>]". A case that is read with a
// warning must fail under --strict.
func TestBrokenInputs(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no corpus", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			expect := strings.TrimSpace(string(ar.Comment))
			var input []byte
			for _, file := range ar.Files {
				if file.Name == "input" {
					input = file.Data
				}
			}
			checkOutcome(t, "in.json", input, expect)
		})
	}
}

func checkOutcome(t *testing.T, name string, input []byte, expect string) {
	t.Helper()
	tr, err := Options{}.read(context.Background(), name, bytes.NewReader(input), int64(len(input)))
	if msg, ok := strings.CutPrefix(expect, "FAILURE "); ok {
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), name) {
			t.Fatalf("error %v; want one naming %s and saying %q", err, name, msg)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error is more than one line: %q", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	rest, ok := strings.CutPrefix(expect, "OK kernels=")
	if !ok {
		t.Fatalf("bad expectation %q", expect)
	}
	nStr, warning, _ := strings.Cut(rest, " warning=")
	n, _ := strconv.Atoi(nStr)
	if len(tr.Kernels) != n {
		t.Errorf("%d kernels, want %d", len(tr.Kernels), n)
	}
	got := strings.Join(tr.Warnings, "; ")
	switch {
	case warning == "" && got != "":
		t.Errorf("unexpected warnings: %s", got)
	case warning != "" && !strings.Contains(got, warning):
		t.Errorf("warnings %q lack %q", got, warning)
	}
	if err := tr.Validate(); err != nil {
		t.Error(err)
	}
	if warning != "" {
		if _, err := (Options{Strict: true}).read(context.Background(), name, bytes.NewReader(input), int64(len(input))); err == nil {
			t.Errorf("--strict accepted an input read with warnings")
		}
	}
}

// TestBrokenBinaryInputs covers the cases a text corpus cannot hold.
func TestBrokenBinaryInputs(t *testing.T) {
	good := []byte(`{"traceEvents":[` + strings.Repeat(`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2},`, 2000) +
		`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}`)
	zipped := gz(good)
	corrupt := bytes.Clone(zipped)
	for i := len(corrupt) / 2; i < len(corrupt)/2+64; i++ {
		corrupt[i] ^= 0x55
	}
	badCRC := bytes.Clone(zipped)
	badCRC[len(badCRC)-8] ^= 0xff
	deep := []byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"x":` +
		strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}}]}`)
	small := gz([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2},` +
		`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":2}]}`))
	deepMeta := []byte(`{"deviceProperties":` + strings.Repeat("[", 1e7) + strings.Repeat("]", 1e7) +
		`,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}`)
	tests := []struct {
		name   string
		input  []byte
		expect string
	}{
		{"random bytes", []byte("\x00\x01\x02\xff\xfe garbage \x7f"), "FAILURE unknown trace format"},
		{"gzip of garbage", gz([]byte("not json at all")), "FAILURE unknown trace format"},
		{"gzip header then garbage", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbagegarbage"), "FAILURE gzip"},
		// Flipped bits decompress to garbage before the checksum is reached.
		{"corrupt gzip stream", corrupt, "FAILURE of the gunzipped content"},
		// Valid JSON, but the trailer's CRC-32 does not match it.
		{"gzip checksum wrong", badCRC, "FAILURE gzip: invalid checksum"},
		// How many kernels survive depends on where the cut falls, so this
		// row asks for some kernels, not a count.
		{"gzip cut short", zipped[:len(zipped)*2/3], "OK kernels=some warning=truncated at byte"},
		// Complete JSON, with the trailer (CRC-32 and size) cut off.
		{"gzip trailer cut", zipped[:len(zipped)-3], "OK kernels=2001 warning=gzip stream is cut short after the JSON text"},
		{"gzip trailer missing", zipped[:len(zipped)-8], "OK kernels=2001 warning=gzip stream is cut short after the JSON text"},
		// Less than the 512 bytes the format is told from come out of it.
		{"small gzip cut short", small[:len(small)/2], "OK kernels=0 warning=truncated at byte"},
		{"gzip cut in its header", zipped[:12], "FAILURE gzip"},
		{"gzip cut before any content", zipped[:11], "FAILURE cut short before any content"},
		{"200000-deep nesting", deep, "OK kernels=1"},
		// gjson, which reads the metadata, checked it by recursion: 10 M
		// levels overflowed the goroutine stack.
		{"deep metadata", deepMeta, "OK kernels=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.expect == "OK kernels=some warning=truncated at byte" {
				// No error, a truncation warning, and at least one kernel.
				tr, err := Options{}.read(context.Background(), "in.json.gz", bytes.NewReader(tt.input), int64(len(tt.input)))
				if err != nil || len(tr.Warnings) == 0 || !strings.Contains(tr.Warnings[0], "truncated at byte") || len(tr.Kernels) == 0 {
					t.Fatalf("err %v, warnings %v", err, tr)
				}
				return
			}
			checkOutcome(t, "in.json.gz", tt.input, tt.expect)
		})
	}
}

// FuzzOpen: sniffing, gunzip and either reader never panic on any bytes.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(events))
	f.Add(gz([]byte(events)))
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte("\x1f\x8b"))
	f.Add([]byte(" \n\t["))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
			return // FuzzOpen has no file on disk for SQLite; nsys_test covers broken exports
		}
		tr, err := Options{}.read(context.Background(), "fuzz", bytes.NewReader(data), int64(len(data)))
		if err == nil {
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
