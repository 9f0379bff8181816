package trace

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/traceql/traceql/internal/nsysgen"
)

// BenchmarkNsysOpen reads a generated export of a million kernels with
// the 2026.1 schema.
func BenchmarkNsysOpen(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "kernels.sqlite")
	t0 := time.Now()
	err := nsysgen.Write(path, nsysgen.Spec{
		Version: "2026.1.1.204",
		GPUs:    []nsysgen.GPU{{ID: 0, Name: "bench GPU", SMs: 132}},
		Kernels: nsysgen.ManyKernels(n),
	})
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d kernel rows (%d MB) in %v", n, fi.Size()>>20, time.Since(t0).Round(time.Millisecond))
	runtime.GC() // the generator's garbage is not the reader's
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		tr, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.Kernels) != n {
			b.Fatalf("read %d kernels, want %d", len(tr.Kernels), n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
