package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestDecompressionBombs: a small gzip file that inflates to one huge
// string, or to arrays nested tens of millions deep, inside an event or
// at the top level, is refused with one line naming the file once it
// passes a bound derived from the memory available (here a Go memory
// limit of 256 MiB: a 16 MiB bound), having allocated a multiple of that
// bound, not of the content (512 MiB each).
func TestDecompressionBombs(t *testing.T) {
	old := debug.SetMemoryLimit(256 << 20)
	defer debug.SetMemoryLimit(old)
	dir := t.TempDir()
	bomb := func(name, head string, fill byte, n int) string {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write([]byte(head))
		chunk := bytes.Repeat([]byte{fill}, 1<<20)
		for range n >> 20 {
			zw.Write(chunk)
		}
		zw.Write([]byte(`"}]}`))
		zw.Close()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const size = 512 << 20 // inflated: 32 times the bound
	for _, tt := range []struct {
		path, want string
	}{
		{bomb("string.json.gz", `{"traceEvents":[{"ph":"X","cat":"kernel","name":"`, 'A', size), "an event larger than 16 MiB"},
		{bomb("nested.json.gz", `{"traceEvents":[{"ph":"X","cat":"kernel","args":`, '[', size), "an event larger than 16 MiB"},
		{bomb("top.json.gz", `{"schemaVersion":1,"x":"`, 'A', size), "a single JSON value larger than 16 MiB"},
		{bomb("topnested.json.gz", `{"schemaVersion":1,"x":`, '[', size), "a single JSON value larger than 16 MiB"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, errOut, code := traceql("summarize", "-q", tt.path)
		runtime.ReadMemStats(&after)
		if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "traceql: "+tt.path+": ") || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q; want 1 and one line saying %q", filepath.Base(tt.path), code, errOut, tt.want)
		}
		// Allocated in all, not at once: the retries of a growing event
		// allocate again. Less than half the content, whatever its size.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Errorf("%s: %d MiB allocated before the refusal, for a 16 MiB bound", filepath.Base(tt.path), alloc>>20)
		}
	}
}
