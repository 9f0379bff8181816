package metrics

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace"
)

// BenchmarkSummarize summarizes a trace: per-device statistics, the launch
// join, gap classes and steps. generated is a generated 128 MB training
// trace of one GPU, generated-8gpu one of eight; real is HTA's
// negative_queue_length_values_check rank 0 (8 GPUs' worth of records on
// one, and a recorded API call for one in 3.3 correlation ids, as CUPTI
// numbers them). records/s counts kernels, copies, memsets, API calls and
// host ops.
func BenchmarkSummarize(b *testing.B) {
	benchTraces(b, func(b *testing.B, t *trace.Trace) {
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
	})
}

// BenchmarkKernelStacks attributes the kernels of the same two traces to
// their launching host stacks, as pprof does; kernels/s counts kernels.
func BenchmarkKernelStacks(b *testing.B) {
	benchTraces(b, func(b *testing.B, t *trace.Trace) {
		b.ReportAllocs()
		for b.Loop() {
			kernels := 0
			for _, s := range KernelStacks(t) {
				kernels += s.Kernels
			}
			if kernels != len(t.Kernels) {
				b.Fatalf("%d kernels, want %d", kernels, len(t.Kernels))
			}
		}
		b.ReportMetric(float64(len(t.Kernels))*float64(b.N)/b.Elapsed().Seconds(), "kernels/s")
	})
}

// benchTraces runs bench on each benchmark trace, read once, outside the
// timing.
func benchTraces(b *testing.B, bench func(*testing.B, *trace.Trace)) {
	open := func(b *testing.B, path string) *trace.Trace {
		t, err := trace.Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	for _, g := range []struct {
		name    string
		devices int
	}{{"generated", 1}, {"generated-8gpu", 8}} {
		b.Run(g.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "bench.json")
			if _, err := synth.WriteFile(path, synth.Config{Seed: 1, Devices: g.devices, Streams: 4, Steps: 1, KernelsPerStep: 2000,
				GraphLaunches: 10, PythonEvents: 4, TargetBytes: 128 << 20}, false); err != nil {
				b.Fatal(err)
			}
			bench(b, open(b, path))
		})
	}
	b.Run("real", func(b *testing.B) {
		bench(b, open(b, filepath.Join(shared.Traces(b), "hta/negative_queue_length_values_check/rank0.json.gz")))
	})
}
