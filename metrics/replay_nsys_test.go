package metrics_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// nsysWaitTrace is waitTrace's run as an Nsight export: the same calls
// and kernels, the SYNCHRONIZATION rows Nsight writes for the wait, the
// stream sync and the event sync (the event ones by eventId, the events'
// records in CUDA_EVENT), and each step an NVTX range ProfilerStep#N over
// the host calls, [0,230) and [400,630): no device-side step window, so
// each step is projected from its host range to the last end of its work,
// K5's: 235 ns. Without records, the export has no CUDA_EVENT table, as
// nsys 2021 wrote.
func nsysWaitTrace(t *testing.T, records bool) *trace.Trace {
	spec := nsysgen.Spec{Shape: nsysgen.Shape2026, GPUs: []nsysgen.GPU{{ID: 0, Name: "generated GPU"}}}
	for s := int64(0); s < 2; s++ {
		o := 400 * s
		c := 100 * (s + 1)
		spec.NVTX = append(spec.NVTX, nsysgen.NVTX{Start: o, End: o + 230, Type: 59, Text: trace.StepPrefix + string(rune('1'+s)), PID: 1, TID: 1})
		call := func(name string, start, end, corr int64) nsysgen.API {
			return nsysgen.API{Name: name + "_v3020", PID: 1, TID: 1, Start: o + start, End: o + end, Correlation: c + corr}
		}
		spec.Runtime = append(spec.Runtime,
			call("cudaLaunchKernel", 10, 20, 1), call("cudaEventRecord", 25, 30, 2), call("cudaStreamWaitEvent", 35, 40, 3),
			call("cudaLaunchKernel", 45, 55, 4), call("cudaLaunchKernel", 60, 70, 5), call("cudaStreamSynchronize", 75, 177, 6),
			call("cudaLaunchKernel", 180, 190, 7), call("cudaEventRecord", 192, 195, 8), call("cudaEventSynchronize", 200, 215, 9),
			call("cudaLaunchKernel", 220, 230, 10))
		kernel := func(name string, stream, start, end, corr int64) nsysgen.Kernel {
			return nsysgen.Kernel{Activity: nsysgen.Activity{Stream: stream, Start: o + start, End: o + end, Correlation: c + corr, PID: 1}, Name: name}
		}
		spec.Kernels = append(spec.Kernels, kernel("K1", 7, 15, 115, 1), kernel("K2", 8, 117, 167, 4), kernel("K3", 7, 118, 138, 5),
			kernel("K4", 8, 185, 205, 7), kernel("K5", 7, 225, 235, 10))
		sync := func(typ int, stream, start, end, corr, event int64) nsysgen.Sync {
			return nsysgen.Sync{Activity: nsysgen.Activity{Stream: stream, Start: o + start, End: o + end, Correlation: c + corr, PID: 1}, Type: typ, EventID: event}
		}
		// syncType as nsys 2025.5 and later number them: 2 stream wait, 3
		// stream sync, 1 event sync (no stream).
		spec.Syncs = append(spec.Syncs, sync(2, 8, 36, 38, 3, 1), sync(3, 8, 76, 176, 6, 0), sync(1, 0xFFFFFFFF, 201, 214, 9, 2))
		if records {
			spec.Events = append(spec.Events, nsysgen.Event{Stream: 7, Correlation: c + 2, PID: 1, EventID: 1},
				nsysgen.Event{Stream: 8, Correlation: c + 8, PID: 1, EventID: 2})
		}
		// Process 2 makes cudaEventRecord calls with the correlation ids of
		// process 1's, later: taken for process 1's, they would move the
		// records past K3 and K4's successor.
		spec.Runtime = append(spec.Runtime, nsysgen.API{Name: "cudaEventRecord_v3020", PID: 2, TID: 2, Start: o + 300, End: o + 301, Correlation: c + 2},
			nsysgen.API{Name: "cudaEventRecord_v3020", PID: 2, TID: 2, Start: o + 302, End: o + 303, Correlation: c + 8})
	}
	path := filepath.Join(t.TempDir(), "waits.sqlite")
	if err := nsysgen.Write(path, spec); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Options{Strict: true}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplayWaitsNsys replays nsysWaitTrace as TestReplayWaits does
// waitTrace, each projection against a step worked out by hand: the waits
// Nsight records are modelled as Kineto's; without the events' records
// the event sync waits for the whole device and the wait between streams
// is not seen (K2 keeps its recorded lateness as launch latency).
func TestReplayWaitsNsys(t *testing.T) {
	scale := func(s string) []metrics.KernelScale { return kernelScales(t, s) }
	for _, tt := range []struct {
		name    string
		records bool
		e       metrics.Edits
		want    float64
	}{
		// Each step from its host start to K5's end.
		{"none", true, metrics.Edits{}, 235},
		// K1 lasts 200, [15,215): K2 waits for it, [217,267); the stream
		// sync returns at 277, K4 [285,305), the event sync returns at
		// 315, K5 [325,335): 335.
		{"K1 longer", true, metrics.Edits{Kernels: scale("^K1$=2")}, 335},
		// K3 lasts 200, [118,318): neither sync waits for it; K5's call
		// at 220 queues K5 behind K3, 3 after: [321,331): 331.
		{"K3 longer", true, metrics.Edits{Kernels: scale("^K3$=10")}, 331},
		// K4 lasts 100, [185,285): the event sync waits for it, returns
		// at 295; K5's call at 300, K5 [305,315): 315.
		{"K4 longer", true, metrics.Edits{Kernels: scale("^K4$=5")}, 315},
		{"no records", false, metrics.Edits{}, 235},
		// K1 [15,215): K2 at 117 regardless, the stream sync returns at
		// 177, K4 [185,205); K3 queues behind K1, [218,238); the event
		// sync waits for the device, returns at 248; K5's call at 253,
		// K5 [258,268): 268.
		{"no records, K1 longer", false, metrics.Edits{Kernels: scale("^K1$=2")}, 268},
		// K3 [118,318): the event sync waits for it, returns at 328; K5's
		// call at 333, K5 [338,348): 348.
		{"no records, K3 longer", false, metrics.Edits{Kernels: scale("^K3$=10")}, 348},
		{"no records, K4 longer", false, metrics.Edits{Kernels: scale("^K4$=5")}, 315},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := nsysWaitTrace(t, tt.records)
			s := metrics.Summarize(tr, metrics.Options{})
			if len(s.Devices) != 1 || s.Devices[0].StepMedianNS != 235 {
				t.Fatalf("measured: %d devices, median step %v; want 1, 235", len(s.Devices), s.Devices[0].StepMedianNS)
			}
			p, ok := metrics.Replay(tr, 0, s.Devices[0].StepMedianNS, tt.e)
			if !ok {
				t.Fatal("nothing replayed")
			}
			if p.ReplayStepMedianNS != 235 {
				t.Errorf("replay without edits: median step %v, want 235", p.ReplayStepMedianNS)
			}
			if p.ProjectedStepNS != tt.want {
				t.Errorf("projected step %v, want %v", p.ProjectedStepNS, tt.want)
			}
		})
	}
}
