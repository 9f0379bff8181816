package metrics_test

import (
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// waitTrace is a run on two streams whose waits are known by
// construction, two steps 400 ns apart on one host thread, each:
//
//	cudaLaunchKernel [10,20) → K1 on stream 7, ready 5 after the call: [15,115)
//	cudaEventRecord [25,30) on stream 7 (after K1)
//	cudaStreamWaitEvent [35,40): stream 8 waits for that record
//	cudaLaunchKernel [45,55) → K2 on stream 8: waits for K1, starts 2 after it: [117,167)
//	cudaLaunchKernel [60,70) → K3 on stream 7, queued 3 after K1: [118,138)
//	cudaStreamSynchronize(stream 8) [75,177): K2 ends at 167, returns 10 later
//	cudaLaunchKernel [180,190) → K4 on stream 8: [185,205)
//	cudaEventRecord [192,195) on stream 8 (after K4)
//	cudaEventSynchronize [200,215): K4 ends at 205, returns 10 later
//	cudaLaunchKernel [220,230) → K5 on stream 7: [225,235)
//
// with the sync records Kineto writes for them (cuda_sync). The
// device-side step runs from K1's start to K5's end: 220 ns.
func waitTrace(t *testing.T) *trace.Trace {
	tr := &trace.Trace{Source: "waits", Meta: trace.Meta{Format: trace.Kineto, Rank: -1},
		Devices: []trace.Device{{ID: 0}}, Streams: []trace.Stream{{Device: 0, ID: 7}, {Device: 0, ID: 8}}}
	for s := int64(0); s < 2; s++ {
		o := 400 * s
		c := 100 * (s + 1) // correlations c+1…
		name := trace.StepPrefix + string(rune('1'+s))
		tr.Ops = append(tr.Ops,
			trace.Op{Name: name, Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: o, End: o + 400},
			trace.Op{Name: name, Kind: trace.GPUAnnotation, PID: 0, TID: 7, Start: o + 15, End: o + 235})
		call := func(name string, start, end, corr int64) trace.APICall {
			return trace.APICall{Name: name, PID: 1, TID: 1, Start: o + start, End: o + end, Correlation: c + corr}
		}
		tr.APICalls = append(tr.APICalls,
			call("cudaLaunchKernel", 10, 20, 1), call("cudaEventRecord", 25, 30, 2), call("cudaStreamWaitEvent", 35, 40, 3),
			call("cudaLaunchKernel", 45, 55, 4), call("cudaLaunchKernel", 60, 70, 5), call("cudaStreamSynchronize", 75, 177, 6),
			call("cudaLaunchKernel", 180, 190, 7), call("cudaEventRecord", 192, 195, 8), call("cudaEventSynchronize", 200, 215, 9),
			call("cudaLaunchKernel", 220, 230, 10))
		kernel := func(name string, stream, start, end, corr int64) trace.Kernel {
			return trace.Kernel{Activity: trace.Activity{Device: 0, Stream: stream, Start: o + start, End: o + end, Correlation: c + corr}, Name: name}
		}
		tr.Kernels = append(tr.Kernels, kernel("K1", 7, 15, 115, 1), kernel("K2", 8, 117, 167, 4), kernel("K3", 7, 118, 138, 5),
			kernel("K4", 8, 185, 205, 7), kernel("K5", 7, 225, 235, 10))
		sync := func(kind string, stream, start, end, corr, waitStream, waitRecord int64) trace.Sync {
			return trace.Sync{Activity: trace.Activity{Device: 0, Stream: stream, Start: o + start, End: o + end, Correlation: c + corr},
				Kind: kind, WaitStream: waitStream, WaitRecord: waitRecord}
		}
		tr.Syncs = append(tr.Syncs, sync("Stream Wait Event", 8, 36, 38, 3, 7, c+2), sync("Stream Sync", 8, 76, 176, 6, 0, 0),
			sync("Event Sync", 8, 201, 214, 9, 8, c+8))
	}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplayWaits replays the run of waitTrace without edits and with
// kernels made longer, each against a step worked out by hand: a stream
// sync waits for its stream only, an event sync for the work before its
// record, and a stream's wait on an event holds its next work until the
// other stream reaches the record.
func TestReplayWaits(t *testing.T) {
	tr := waitTrace(t)
	s := metrics.Summarize(tr, metrics.Options{})
	if got := s.Devices[0].StepMedianNS; got != 220 {
		t.Fatalf("measured median step %v, want 220", got)
	}
	scale := func(s string) []metrics.KernelScale { return kernelScales(t, s) }
	for _, tt := range []struct {
		name string
		e    metrics.Edits
		want float64
		path metrics.CriticalPath
	}{
		// Back from K5's end: K5 (10), its launch latency (5), host work
		// (5), the event sync's 10 past K4, K4 (20), its launch latency
		// (5), host work (3), the stream sync's 10 past K2, K2 (50), its
		// 2 after K1, K1 (100).
		{"none", metrics.Edits{}, 220, metrics.CriticalPath{180, 0, 12, 8, 20}},
		// K1 lasts 200, [15,215): K2 waits for it, [217,267); K3 queues
		// behind it, [218,238); the stream sync returns at 277, K4's call
		// at 280, K4 [285,305); the event sync at 300 returns at 315, K5's
		// call at 320, K5 [325,335): 320.
		{"K1 longer", metrics.Edits{Kernels: scale("^K1$=2")}, 320, metrics.CriticalPath{280, 0, 12, 8, 20}},
		// K3 lasts 200, [118,318): the stream sync on stream 8 does not
		// wait for it (177), nor the event sync (215); K5's call at 220
		// queues it behind K3, 3 after: [321,331): 316.
		{"K3 longer", metrics.Edits{Kernels: scale("^K3$=10")}, 316, metrics.CriticalPath{310, 0, 6, 0, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := metrics.Replay(tr, 0, s.Devices[0].StepMedianNS, tt.e)
			if !ok {
				t.Fatal("nothing replayed")
			}
			if p.ReplayStepMedianNS != 220 {
				t.Errorf("replay without edits: median step %v, want 220", p.ReplayStepMedianNS)
			}
			if p.ProjectedStepNS != tt.want {
				t.Errorf("projected step %v, want %v", p.ProjectedStepNS, tt.want)
			}
			if p.After != tt.path {
				t.Errorf("critical path %v, want %v", p.After, tt.path)
			}
		})
	}
}

// kernelScales parses one --kernel edit, failing the test on an error.
func kernelScales(t *testing.T, s string) []metrics.KernelScale {
	t.Helper()
	k, err := metrics.ParseKernelScale(s)
	if err != nil {
		t.Fatal(err)
	}
	return []metrics.KernelScale{k}
}
