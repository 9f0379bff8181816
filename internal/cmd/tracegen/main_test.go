package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/synth"
)

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"123", 123}, {"100MB", 100e6}, {"1GB", 1e9}, {"512kb", 512e3}, {"2MiB", 2 << 20}, {"7 B", 7},
	} {
		if got, err := parseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "MB", "-1", "1TB", "x"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q): no error", bad)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	trace, truthPath := filepath.Join(dir, "t.pt.trace.json.gz"), filepath.Join(dir, "truth.json")
	var stdout, stderr bytes.Buffer
	args := []string{"-o", trace, "-truth", truthPath, "-devices", "1", "-steps", "2", "-kernels", "8", "-era", "2021", "-container", "array"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // auto: the name ends in .gz
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var truth synth.Truth
	raw, err := os.ReadFile(truthPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &truth); err != nil {
		t.Fatal(err)
	}
	if truth.Bytes != int64(len(data)) || truth.Era != "2021" || truth.Container != "array" || len(truth.Steps) != 2 || data[0] != '[' {
		t.Errorf("truth %+v for %d bytes", truth, len(data))
	}

	for _, bad := range [][]string{{}, {"-o"}, {"-o", trace, "-era", "1999"}, {"-o", trace, "-size", "big"}, {"-o", trace, "-gzip", "maybe"}, {"-o", trace, "extra"}} {
		if code := run(bad, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
	if code := run([]string{"-o", trace, "-devices", "-3"}, &stdout, &stderr); code != 1 {
		t.Errorf("-devices -3: exit %d, want 1", code)
	}
}

// TestRepeatFlag repeats the shipped sample (gzipped) to 2 MB.
func TestRepeatFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "big.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-o", out, "-size", "2MB", "-repeat", "../../../testdata/sample.pt.trace.json.gz"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 2e6 || !json.Valid(data) {
		t.Errorf("%d bytes, valid JSON %v", len(data), json.Valid(data))
	}
	if code := run([]string{"-o", out, "-repeat", "no/such/file"}, &stdout, &stderr); code != 1 {
		t.Errorf("missing -repeat file: exit %d, want 1", code)
	}
}
