package metrics

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace"
)

// BenchmarkSummarize summarizes a trace read once, outside the timing:
// per-device statistics, the launch join, gap classes and steps.
// generated is a generated 128 MB training trace; real is HTA's
// negative_queue_length_values_check rank 0 (8 GPUs' worth of records on
// one, and a recorded API call for one in 3.3 correlation ids, as CUPTI
// numbers them). records/s counts kernels, copies, memsets, API calls and
// host ops.
func BenchmarkSummarize(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bench.json")
		if _, err := synth.WriteFile(path, synth.Config{Seed: 1, Devices: 1, Streams: 4, Steps: 1, KernelsPerStep: 2000,
			GraphLaunches: 10, PythonEvents: 4, TargetBytes: 128 << 20}, false); err != nil {
			b.Fatal(err)
		}
		benchSummarize(b, path)
	})
	b.Run("real", func(b *testing.B) {
		benchSummarize(b, filepath.Join(shared.Traces(b), "hta/negative_queue_length_values_check/rank0.json.gz"))
	})
}

func benchSummarize(b *testing.B, path string) {
	t, err := trace.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	records := len(t.Kernels) + len(t.Memcpys) + len(t.Memsets) + len(t.APICalls) + len(t.Ops)
	b.ReportAllocs()
	for b.Loop() {
		s := Summarize(t, Options{})
		kernels := 0
		for _, d := range s.Devices {
			kernels += d.Kernels
		}
		if kernels != len(t.Kernels) {
			b.Fatalf("%d kernels, want %d", kernels, len(t.Kernels))
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
