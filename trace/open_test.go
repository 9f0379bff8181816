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
