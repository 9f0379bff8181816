package metrics_test

import (
	"context"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// BenchmarkSummarizeLaunchBound summarizes a real launch-bound run with
// steps, whose verdict now carries the --graphs projection (a replay):
// what that costs summarize. BenchmarkReplay is the replay alone.
func BenchmarkSummarizeLaunchBound(b *testing.B) {
	t, err := trace.Open(context.Background(), "../testdata/gpu/vit-large_eager_b1.pt.trace.json.gz")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		metrics.Summarize(t, metrics.Options{Workers: 1})
	}
}

func BenchmarkReplay(b *testing.B) {
	t, err := trace.Open(context.Background(), "../testdata/gpu/vit-large_eager_b1.pt.trace.json.gz")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		metrics.ReplayDevices(t, metrics.Edits{Graphs: true})
	}
}

// BenchmarkOpenSummarizeLaunchBound is the whole of a summarize of that
// run, the read included: what a user waits for.
func BenchmarkOpenSummarizeLaunchBound(b *testing.B) {
	for b.Loop() {
		t, err := trace.Open(context.Background(), "../testdata/gpu/vit-large_eager_b1.pt.trace.json.gz")
		if err != nil {
			b.Fatal(err)
		}
		metrics.Summarize(t, metrics.Options{Workers: 1})
	}
}
