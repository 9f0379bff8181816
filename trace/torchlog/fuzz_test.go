package torchlog

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, and a log it reads has compiles in
// order, each with a frame, and times that are not negative.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.log*")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				f.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				f.Fatal(err)
			}
		}
		if len(data) > 8<<10 { // the fuzzer mutates small inputs best
			data = data[:8<<10]
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(bytes.NewReader(data), "fuzz.log")
		if err != nil {
			return
		}
		for i, c := range l.Compiles {
			if c.ID.Frame < 0 && c.ID.Autograd < 0 || c.CompileNS < 0 || c.CudagraphifyNS < 0 {
				t.Fatalf("compile %d: %+v", i, c)
			}
			if i > 0 {
				p := l.Compiles[i-1].ID
				if p.Autograd > c.ID.Autograd || p.Autograd == c.ID.Autograd && (p.Frame > c.ID.Frame || p.Frame == c.ID.Frame && p.Compile >= c.ID.Compile) {
					t.Fatalf("compiles out of order: %s then %s", p, c.ID)
				}
			}
		}
	})
}
