package metrics

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace"
)

// BenchmarkSummarize summarizes a generated 128 MB training trace (read
// once, outside the timing): per-device statistics, the launch join, gap
// classes and steps. records/s counts kernels, copies, memsets, API calls
// and host ops.
func BenchmarkSummarize(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.json")
	if _, err := synth.WriteFile(path, synth.Config{Seed: 1, Devices: 1, Streams: 4, Steps: 1, KernelsPerStep: 2000,
		GraphLaunches: 10, PythonEvents: 4, TargetBytes: 128 << 20}, false); err != nil {
		b.Fatal(err)
	}
	t, err := trace.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	records := len(t.Kernels) + len(t.Memcpys) + len(t.Memsets) + len(t.APICalls) + len(t.Ops)
	b.ReportAllocs()
	for b.Loop() {
		if s := Summarize(t, Options{}); s.Devices[0].Kernels != len(t.Kernels) {
			b.Fatalf("%d kernels, want %d", s.Devices[0].Kernels, len(t.Kernels))
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
