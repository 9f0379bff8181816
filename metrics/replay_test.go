package metrics_test

import (
	"fmt"

	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// replayTrace is a run whose dependencies are known by construction, two
// steps 300 ns apart on one host thread and one stream, each:
//
//	host work 10, cudaLaunchKernel [10,20) → K1, ready 5 after the call: [15,115)
//	host work 10, cudaLaunchKernel [30,40) → K2, queued 2 after K1: [117,217)
//	host work 10, cudaStreamSynchronize [50,227): the stream drains at 217, returns 10 later
//	host work 3, cudaMemcpyAsync D2H to pageable [230,260) → copy [235,250), returns 10 after it
//	host work 40 to the step's end at 300
//
// The device-side step runs from K1's start to the copy's end: 235 ns.
func replayTrace(t *testing.T) *trace.Trace {
	tr := &trace.Trace{Source: "replay", Meta: trace.Meta{Format: trace.Kineto, Rank: -1},
		Devices: []trace.Device{{ID: 0}}, Streams: []trace.Stream{{Device: 0, ID: 7}}}
	for s := int64(0); s < 2; s++ {
		o := 300 * s
		corr := 10 * (s + 1)
		name := trace.StepPrefix + string(rune('1'+s))
		tr.Ops = append(tr.Ops,
			trace.Op{Name: name, Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: o, End: o + 300},
			trace.Op{Name: name, Kind: trace.GPUAnnotation, PID: 0, TID: 7, Start: o + 15, End: o + 250})
		tr.APICalls = append(tr.APICalls,
			trace.APICall{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: o + 10, End: o + 20, Correlation: corr + 1},
			trace.APICall{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: o + 30, End: o + 40, Correlation: corr + 2},
			trace.APICall{Name: "cudaStreamSynchronize", PID: 1, TID: 1, Start: o + 50, End: o + 227, Correlation: corr + 3},
			trace.APICall{Name: "cudaMemcpyAsync", PID: 1, TID: 1, Start: o + 230, End: o + 260, Correlation: corr + 4})
		tr.Kernels = append(tr.Kernels,
			trace.Kernel{Activity: trace.Activity{Device: 0, Stream: 7, Start: o + 15, End: o + 115, Correlation: corr + 1}, Name: "K1"},
			trace.Kernel{Activity: trace.Activity{Device: 0, Stream: 7, Start: o + 117, End: o + 217, Correlation: corr + 2}, Name: "K2"})
		tr.Memcpys = append(tr.Memcpys, trace.Memcpy{Activity: trace.Activity{Device: 0, Stream: 7, Start: o + 235, End: o + 250, Correlation: corr + 4},
			Kind: trace.DtoH, Src: trace.DeviceMem, Dst: trace.Pageable, Bytes: 8})
	}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplayKnown replays the run of replayTrace without edits and with
// each edit, against steps worked out by hand (see each case).
func TestReplayKnown(t *testing.T) {
	tr := replayTrace(t)
	s := metrics.Summarize(tr, metrics.Options{})
	if got := s.Devices[0].StepMedianNS; got != 235 {
		t.Fatalf("measured median step %v, want 235", got)
	}
	half, err := metrics.ParseKernelScale("^K1$=0.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		e    metrics.Edits
		want float64
	}{
		// The replay lands every event where the trace has it.
		{"none", metrics.Edits{}, 235},
		// The host no longer waits: the device runs K1, K2 and the copy
		// back to back, 2 ns apart (the trace's gap between queued work):
		// 100+2+100+2+15.
		{"no-syncs", metrics.Edits{NoSyncs: true}, 219},
		// The stream sync before the copy drains the stream anyway: the
		// copy's call no longer waiting changes nothing, and 8 bytes are
		// under pinnedCopyMinBytes: the copy lasts as long.
		{"pinned", metrics.Edits{Pinned: true}, 235},
		// K1 lasts 50: 50+2+100, the sync waits, 3 ns of host work and the
		// copy's call, the copy 5 ns after it: 15+50+2+100+10+3+5+15 − 15.
		{"kernel", metrics.Edits{Kernels: []metrics.KernelScale{half}}, 185},
		// K1 and K2 become one graph launch at 10 of GraphReplayHostNS +
		// 2×GraphLaunchNodeNS; K1 runs once it returns, K2 GraphNodeNS
		// later; the sync is called 10 after the launch returns, well
		// before the kernels end, and returns 10 after they do; the copy
		// is called 3 later and starts 5 after that: 100+N+100+10+3+5+15.
		{"graphs", metrics.Edits{Graphs: true}, 233 + metrics.GraphNodeNS},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := metrics.Replay(tr, 0, s.Devices[0].StepMedianNS, tt.e)
			if !ok {
				t.Fatal("nothing replayed")
			}
			// Back from the copy's end: the copy (15), its launch latency
			// (5), host work (3), the sync's 10 past the drain, K2 (100),
			// the gap after K1 (2), K1 (100).
			if want := (metrics.CriticalPath{200, 15, 7, 3, 10}); p.Before != want {
				t.Errorf("critical path without edits %v, want %v", p.Before, want)
			}
			if p.ReplayStepMedianNS != 235 {
				t.Errorf("replay without edits: median step %v, want 235", p.ReplayStepMedianNS)
			}
			if p.ProjectedStepNS != tt.want {
				t.Errorf("projected step %v, want %v", p.ProjectedStepNS, tt.want)
			}
			var sum int64
			for _, v := range p.After {
				sum += v
			}
			if float64(sum) != tt.want {
				t.Errorf("critical path %v adds up to %d, want the step, %v", p.After, sum, tt.want)
			}
			if tt.e.Graphs && (p.Captures != 2 || p.GraphNodes != 4) {
				t.Errorf("%d captures of %d nodes, want 2 of 4", p.Captures, p.GraphNodes)
			}
		})
	}
}

// TestReplaySynth replays generated runs (internal/synth's idle traces:
// eager launches, graph replays, host pauses, blocking calls in many
// spellings, steps) without edits: every step comes back as generated.
func TestReplaySynth(t *testing.T) {
	cfgs := map[string]synth.IdleConfig{}
	for mode, cfg := range synth.IdleModes {
		cfgs["mode-"+mode] = cfg
	}
	for seed := int64(1); seed <= 4; seed++ {
		cfgs[fmt.Sprintf("seed-%d", seed)] = synth.IdleConfig{Seed: seed, Launches: 300, GraphLaunches: 10, Steps: 6}
	}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			_, tr := writeIdle(t, cfg)
			s := metrics.Summarize(tr, metrics.Options{})
			d := s.Devices[0]
			p, ok := metrics.Replay(tr, d.Device, d.StepMedianNS, metrics.Edits{})
			if !ok {
				t.Fatal("nothing replayed")
			}
			if p.ReplayStepMedianNS != d.StepMedianNS || p.ProjectedSpanNS != p.SpanNS {
				t.Errorf("replayed median step %v, span %d; measured %v, %d (unlaunched %d)", p.ReplayStepMedianNS, p.ProjectedSpanNS, d.StepMedianNS, p.SpanNS, p.Unlaunched)
			}
		})
	}
}

// TestReplayGraphsWarmup projects --graphs on small generated
// reduce-overhead runs: a warm-up step that launches a 2 ms kernel and
// waits for it, then steady steps of two launches each, graph replays
// among them. The capture cuts at the warm-up's wait, so no steady step
// queues behind the warm-up kernel: each steady step is one graph launch
// whose nodes are ready together once it returns (the stream is idle by
// then: the launch costs GraphReplayHostNS, far longer than the step
// before), and run back to back on their own streams, GraphNodeNS
// apart. A steady step lasts its longest stream's nodes and gaps; the
// warm-up step lasts over 2 ms, so the median of the three is the longer
// steady step.
func TestReplayGraphsWarmup(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			cfg := synth.IdleConfig{Seed: seed, Launches: 3, GraphLaunches: 3, FanOut: 3, Steps: 3, WarmupSteps: 1, QuietHost: true}
			gen, tr := writeIdle(t, cfg)
			if len(gen.Steps) != 3 {
				t.Fatalf("%d steps, want 3", len(gen.Steps))
			}
			var want int64
			for _, st := range gen.Steps[1:] {
				corrs := map[int64]bool{}
				for _, c := range gen.Calls {
					if c.Start >= st.Start && c.Start < st.End {
						if c.Blocking {
							t.Fatalf("a blocking call in step %d: the step is not one capture", st.Number)
						}
						corrs[c.Corr] = true
					}
				}
				busy := map[int64]int64{} // each stream's nodes and the gaps between them
				for _, k := range gen.Kernels {
					if corrs[k.Corr] {
						if busy[k.Stream] > 0 {
							busy[k.Stream] += metrics.GraphNodeNS
						}
						busy[k.Stream] += k.End - k.Start
					}
				}
				for _, b := range busy {
					want = max(want, b)
				}
			}
			d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
			p, ok := metrics.Replay(tr, d.Device, d.StepMedianNS, metrics.Edits{Graphs: true})
			if !ok {
				t.Fatal("nothing replayed")
			}
			if p.ProjectedStepNS != float64(want) {
				t.Errorf("projected median step %v, want %d", p.ProjectedStepNS, want)
			}
		})
	}
}

// TestReplayGraphsGraphed projects --graphs on tracegen's reduce-overhead
// run (issue #64), whose steps already replay CUDA graphs after two
// warm-up steps of a 2 s kernel each. The steady steps are launched after
// the host waited for the warm-ups, so none of them can last as long as a
// warm-up kernel: the median step stays within the span less the warm-up
// kernels. And the edit can lengthen the run by no more than it charges:
// each capture's host time (GraphReplayHostNS, GraphLaunchNodeNS a node)
// and GraphNodeNS a node on the device, while the launch calls, host work
// and latencies it removes only shorten it.
func TestReplayGraphsGraphed(t *testing.T) {
	cfg := synth.IdleModes["reduce-overhead"]
	gen, tr := writeIdle(t, cfg)
	d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
	p, ok := metrics.Replay(tr, d.Device, d.StepMedianNS, metrics.Edits{Graphs: true})
	if !ok {
		t.Fatal("nothing replayed")
	}
	var warmup int64
	for _, k := range gen.Kernels {
		if k.End-k.Start >= 2_000_000*cfg.Scale {
			warmup += k.End - k.Start
		}
	}
	if warmup != int64(cfg.WarmupSteps)*2_000_000*cfg.Scale {
		t.Fatalf("warm-up kernels last %d ns, want %d of 2 s", warmup, cfg.WarmupSteps)
	}
	if limit := p.ProjectedSpanNS - warmup; p.ProjectedStepNS > float64(limit) {
		t.Errorf("projected median step %v ns, over the span less the warm-up kernels, %d ns", p.ProjectedStepNS, limit)
	}
	charged := int64(p.Captures)*metrics.GraphReplayHostNS + int64(p.GraphNodes)*(metrics.GraphLaunchNodeNS+metrics.GraphNodeNS)
	if p.ProjectedSpanNS > p.SpanNS+charged {
		t.Errorf("projected span %d ns, over the measured %d ns and the %d ns the edit charges", p.ProjectedSpanNS, p.SpanNS, charged)
	}
}
