package trace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/traceql/traceql/internal/synth"
)

var benchFiles sync.Map // "size/gz" → path

// benchTrace writes (once per process) a generated Kineto trace of at
// least size bytes into the benchmark's temp space and returns its path and
// truth.
func benchTrace(b *testing.B, size int64, gz bool) (string, synth.Truth) {
	b.Helper()
	key := fmt.Sprint(size, gz)
	type entry struct {
		path  string
		truth synth.Truth
	}
	if e, ok := benchFiles.Load(key); ok {
		return e.(entry).path, e.(entry).truth
	}
	dir, err := os.MkdirTemp("", "traceql-bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "bench.json")
	if gz {
		path += ".gz"
	}
	truth, err := synth.WriteFile(path, synth.Config{Seed: 1, Devices: 1, Streams: 4, Steps: 1, KernelsPerStep: 2000,
		GraphLaunches: 10, PythonEvents: 4, TargetBytes: size}, gz)
	if err != nil {
		b.Fatal(err)
	}
	benchFiles.Store(key, entry{path, truth})
	return path, truth
}

// BenchmarkKinetoOpen reads a generated 128 MB Kineto trace (the event mix
// of a training trace with python_function stacks).
func BenchmarkKinetoOpen(b *testing.B) {
	for _, gz := range []bool{false, true} {
		b.Run(fmt.Sprintf("gzip=%v", gz), func(b *testing.B) {
			path, truth := benchTrace(b, 128<<20, gz)
			b.SetBytes(truth.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				t, err := Open(context.Background(), path)
				if err != nil {
					b.Fatal(err)
				}
				if len(t.Kernels) != truth.Kernels {
					b.Fatalf("%d kernels, want %d", len(t.Kernels), truth.Kernels)
				}
			}
			b.ReportMetric(float64(truth.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
