package trace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestContentSizeOfFile: ContentSize reads the trailer of a gzip file, told by
// its first bytes, without reading the rest.
func TestContentSizeOfFile(t *testing.T) {
	dir := t.TempDir()
	var content []byte // compressing about as well as a trace: under gzipMaxRatio
	for i := range 10_000 {
		content = fmt.Appendf(content, `{"ph": "X", "cat": "kernel", "ts": %d, "dur": %d},`, i*7919, i*i%997)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(content)
	zw.Close()
	for _, tt := range []struct {
		name string
		data []byte
		want int64
	}{
		{"plain.json", content, int64(len(content))},
		{"t.json.gz", gz.Bytes(), int64(len(content))},    // the trailer's size
		{"renamed.json", gz.Bytes(), int64(len(content))}, // told by content, not name
		{"empty.json", nil, 0},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ContentSize(path); err != nil || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
	if _, err := ContentSize(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

// TestFootprint: the memory a read is estimated to take follows the file's
// kind, told by its first bytes: half a Kineto trace's content, taken from
// a gzip trailer but as at least eight times the compressed size, and
// three times an Nsight export.
func TestFootprint(t *testing.T) {
	dir := t.TempDir()
	var content []byte
	for i := range 10_000 {
		content = fmt.Appendf(content, `{"ph": "X", "cat": "kernel", "ts": %d, "dur": %d},`, i*1000, i%10)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(content)
	zw.Close()
	if gz.Len()*8 >= len(content) {
		t.Fatalf("the content compresses %.1f times, want more than 8", float64(len(content))/float64(gz.Len()))
	}
	// Compressing far less than a trace, so that its content is taken as
	// eight times its size.
	var noise bytes.Buffer
	zw = gzip.NewWriter(&noise)
	for i := range 100_000 {
		fmt.Fprintf(zw, "%x", uint32(i)*2654435761)
	}
	zw.Close()
	sqlite := append([]byte(sqliteMagic), make([]byte, 4096)...)
	for _, tt := range []struct {
		name string
		data []byte
		want int64
	}{
		{"plain.json", content, int64(len(content)) / 2},
		{"t.json.gz", gz.Bytes(), int64(len(content)) / 2},
		{"noise.json.gz", noise.Bytes(), int64(noise.Len()) * 8 / 2},
		{"report.sqlite", sqlite, 3 * int64(len(sqlite))},
		{"renamed.json", sqlite, 3 * int64(len(sqlite))}, // told by content, not name
		{"empty.json", nil, 0},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Footprint(path); err != nil || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
	if _, err := Footprint(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}
