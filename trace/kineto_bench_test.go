package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace/internal/blocks"
)

// benchTrace returns a generated Kineto trace of at least size bytes and
// its truth. It is written once into the system's temp directory and
// reused by later runs (the generator is deterministic); the name says
// which generator wrote it, and must change when its output does.
func benchTrace(b *testing.B, size int64, gz bool) (string, synth.Truth) {
	b.Helper()
	kernels := 2000 // a step of them takes 7.6 MB
	if size < 8<<20 {
		kernels = 100
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("traceql-bench-%d-%dk-kineto-layout.json", size, kernels))
	if gz {
		path += ".gz"
	}
	var truth synth.Truth
	if tb, err := os.ReadFile(path + ".truth"); err == nil && json.Unmarshal(tb, &truth) == nil {
		if _, err := os.Stat(path); err == nil {
			return path, truth
		}
	}
	truth, err := synth.WriteFile(path, synth.Config{Seed: 1, Devices: 1, Streams: 4, Steps: 1, KernelsPerStep: kernels,
		GraphLaunches: 10, PythonEvents: 4, TargetBytes: size}, gz)
	if err != nil {
		b.Fatal(err)
	}
	tb, _ := json.Marshal(truth)
	if err := os.WriteFile(path+".truth", tb, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, truth
}

// BenchmarkKinetoOpen reads a generated 128 MB Kineto trace (the event mix
// of a training trace with python_function stacks), plain and gzipped, and
// a 1 MB one, as the ranks of a short profile are: what it allocates a read
// is most of the cost of a folder of such files. The reads share Workers,
// as a command's do, and with them their buffers. lean reads as the
// summary does (Options.Needs).
func BenchmarkKinetoOpen(b *testing.B) {
	workers := NewWorkers(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name     string
		size     int64
		gz, lean bool
	}{{"gzip=false", 128 << 20, false, false}, {"gzip=true", 128 << 20, true, false}, {"1MB", 1 << 20, false, false},
		{"lean", 128 << 20, false, true}} {
		b.Run(tc.name, func(b *testing.B) {
			path, truth := benchTrace(b, tc.size, tc.gz)
			b.SetBytes(truth.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				o := Options{Workers: workers}
				if tc.lean {
					o.Needs = &Needs{}
				}
				t, err := o.Open(context.Background(), path)
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

// BenchmarkEventDecoder decodes the events array of a trace on one
// goroutine, from memory, a block at a time as the workers do: the JSON
// parser alone, without reading or stitching. generated is the 128 MB
// trace; real is HTA's negative_queue_length_values_check rank 0 (27 MB
// unzipped, nearly every event kept), the trace `tracegen -repeat` makes
// the README's real-layout row of.
func BenchmarkEventDecoder(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		path, truth := benchTrace(b, 128<<20, false)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		benchDecoder(b, data, truth.Kernels, truth.Events)
	})
	b.Run("real", func(b *testing.B) {
		path := filepath.Join(shared.Traces(b), "hta/negative_queue_length_values_check/rank0.json.gz")
		t, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		benchDecoder(b, gunzipFile(b, path), len(t.Kernels), t.Meta.Events)
	})
}

// benchDecoder decodes the events array of the trace in data, which holds
// kernels kernels in events events.
func benchDecoder(b *testing.B, data []byte, kernels, events int) {
	k := bytes.Index(data, []byte(`"traceEvents"`))
	if k < 0 {
		b.Fatal("no traceEvents")
	}
	array := data[k+bytes.IndexByte(data[k:], '[')+1:]
	dec := newEventDecoder(&input{})
	b.SetBytes(int64(len(array)))
	for b.Loop() {
		got, st := 0, blocks.First
		for off := 0; st != blocks.End; {
			n, next, p := dec.Decode(array[off:min(off+defaultBlockBytes, len(array))], int64(off), st)
			if p.err != nil || n == 0 {
				b.Fatalf("at %d: error %v, read %d bytes", off, p.err, n)
			}
			got += len(p.t.Kernels)
			p.recycle()
			off, st = off+n, next
		}
		if got != kernels {
			b.Fatalf("%d kernels, want %d", got, kernels)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
