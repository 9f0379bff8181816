package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestContentSizeAndFootprint: ContentSize reads the trailer of a gzip
// file, told by its first bytes, without reading the rest. Footprint, the
// memory a read is estimated to take, follows the file's kind: half a
// Kineto trace's content, taken from a gzip trailer but as at least eight
// times the compressed size, and three times an Nsight export.
func TestContentSizeAndFootprint(t *testing.T) {
	dir := t.TempDir()
	var content []byte
	for i := range 10_000 {
		content = fmt.Appendf(content, `{"ph": "X", "cat": "kernel", "ts": %d, "dur": %d},`, i*1000, i%10)
	}
	zipped := gz(content)
	if len(zipped)*8 >= len(content) {
		t.Fatalf("the content compresses %.1f times, want more than 8", float64(len(content))/float64(len(zipped)))
	}
	// Compressing far less than a trace, so that its content is taken as
	// eight times its size.
	var noise []byte
	for i := range 100_000 {
		noise = fmt.Appendf(noise, "%x", uint32(i)*2654435761)
	}
	noiseGz := gz(noise)
	sqlite := append([]byte(sqliteMagic), make([]byte, 4096)...)
	n := func(b []byte) int64 { return int64(len(b)) }
	for _, tt := range []struct {
		name               string
		data               []byte
		content, footprint int64
	}{
		{"plain.json", content, n(content), n(content) / 2},
		{"t.json.gz", zipped, n(content), n(content) / 2},    // the trailer's size
		{"renamed.json", zipped, n(content), n(content) / 2}, // told by content, not name
		{"noise.json.gz", noiseGz, n(noise), n(noiseGz) * 8 / 2},
		{"report.sqlite", sqlite, n(sqlite), 3 * n(sqlite)},
		{"empty.json", nil, 0, 0},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ContentSize(path); err != nil || got != tt.content {
			t.Errorf("%s: content size %d, %v; want %d", tt.name, got, err, tt.content)
		}
		if got, err := Footprint(path); err != nil || got != tt.footprint {
			t.Errorf("%s: footprint %d, %v; want %d", tt.name, got, err, tt.footprint)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	if _, err := ContentSize(missing); err == nil {
		t.Error("ContentSize of a missing file: no error")
	}
	if _, err := Footprint(missing); err == nil {
		t.Error("Footprint of a missing file: no error")
	}
}
