package metrics_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// captureRead reads a capture trace as --capture does: its cpu_ops and
// what its launch calls record.
var captureRead = trace.Options{Needs: &trace.Needs{Ops: true, Polls: true, LaunchArgs: true}}

// writePair writes a generated capture/replay pair and reads both back.
func writePair(t *testing.T, capCfg, repCfg synth.CaptureConfig) (capT, repT *trace.Trace, truth synth.CaptureTruth) {
	t.Helper()
	dir := t.TempDir()
	var cb, rb, discard bytes.Buffer
	capTruth, err := synth.WriteCapture(&cb, &discard, capCfg)
	if err != nil {
		t.Fatal(err)
	}
	discard.Reset()
	truth, err = synth.WriteCapture(&discard, &rb, repCfg)
	if err != nil {
		t.Fatal(err)
	}
	truth.Launches, truth.Captured = capTruth.Launches, capTruth.Captured
	open := func(name string, b []byte) *trace.Trace {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := captureRead.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	return open("capture.json", cb.Bytes()), open("replay.json", rb.Bytes()), truth
}

// TestCaptureSynth names generated graph replays from their capture and
// checks each kernel's op, region and stack, and the tables by op, against
// the generator's truth, summed here kernel by kernel.
func TestCaptureSynth(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  synth.CaptureConfig
		// rep, when set, makes the replay from another config: a pair
		// that does not belong together.
		rep        *synth.CaptureConfig
		mismatched bool   // every graph refused though the truth knows ops
		reason     string // a miss reason expected, "" for none
	}{
		{name: "one stream", cfg: synth.CaptureConfig{Seed: 1}},
		{name: "one stream, names", cfg: synth.CaptureConfig{Seed: 2, Names: true}},
		{name: "repeated graphs", cfg: synth.CaptureConfig{Seed: 3, Graphs: 3, Replays: 6}},
		{name: "two streams, names", cfg: synth.CaptureConfig{Seed: 4, Streams: 2, Names: true, Kernels: 12}},
		{name: "two streams, node ids", cfg: synth.CaptureConfig{Seed: 5, Streams: 2, NodeIDs: true, Kernels: 12}},
		{name: "two streams, node ids both sides", cfg: synth.CaptureConfig{Seed: 6, Streams: 2, NodeIDs: true, CallNodeIDs: true}},
		{name: "two streams, same names, node ids", cfg: synth.CaptureConfig{Seed: 7, Streams: 2, SameNames: true, Names: true, NodeIDs: true}},
		{name: "two streams, no names", cfg: synth.CaptureConfig{Seed: 8, Streams: 2}, reason: "several streams"},
		{name: "two streams, same names", cfg: synth.CaptureConfig{Seed: 9, Streams: 2, Names: true, SameNames: true}, reason: "several streams"},
		{name: "partial capture", cfg: synth.CaptureConfig{Seed: 10, Missing: 3, Names: true}, reason: "no capture of 8 launches"},
		{name: "mismatched names", cfg: synth.CaptureConfig{Seed: 11, Names: true}, rep: &synth.CaptureConfig{Seed: 12, Names: true},
			mismatched: true, reason: "kernel names differ"},
		{name: "names from the capture's own replay", cfg: synth.CaptureConfig{Seed: 14, SelfReplay: true}},
		{name: "mismatched, names from the capture's own replay", cfg: synth.CaptureConfig{Seed: 15, SelfReplay: true},
			rep: &synth.CaptureConfig{Seed: 16}, mismatched: true, reason: "kernel names differ"},
		{name: "mismatched sizes", cfg: synth.CaptureConfig{Seed: 13}, rep: &synth.CaptureConfig{Seed: 13, Kernels: 10},
			mismatched: true, reason: "no capture of 10 launches"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := tt.cfg
			if tt.rep != nil {
				rep = *tt.rep
			}
			capT, repT, truth := writePair(t, tt.cfg, rep)
			c, err := metrics.NewCapture(capT)
			if err != nil {
				t.Fatal(err)
			}
			if c.Launches != truth.Launches || c.Captured != truth.Captured {
				t.Errorf("capture: %d launches, %d captured; truth %d, %d", c.Launches, c.Captured, truth.Launches, truth.Captured)
			}
			if tt.cfg.SelfReplay && c.SelfNamed != 2 {
				t.Errorf("%d captures named from the capture's own replays; want 2", c.SelfNamed)
			}
			if tt.cfg.Missing > 0 && c.Outside != 8-tt.cfg.Missing {
				t.Errorf("partial capture: %d launches outside a recorded capture; want %d", c.Outside, 8-tt.cfg.Missing)
			}
			m := c.Match(repT)
			// The truth, kernel by kernel.
			named := func(k synth.CaptureKernel) bool { return k.Graph >= 0 && !k.Refused && !tt.mismatched }
			type key struct {
				stream     int64
				start, end int64
			}
			want := map[key]synth.CaptureKernel{}
			var graphK, namedK int
			var graphNS, namedNS int64
			for _, k := range truth.Kernels {
				want[key{k.Stream, k.Start, k.End}] = k
				if k.Graph >= 0 {
					graphK++
					graphNS += k.End - k.Start
					if named(k) {
						namedK++
						namedNS += k.End - k.Start
					}
				}
			}
			st := m.Stats
			if st.Kernels != graphK || st.Named != namedK || st.KernelNS != graphNS || st.NamedNS != namedNS {
				t.Errorf("stats %+v; truth %d graph kernels (%d ns), %d named (%d ns)", st, graphK, graphNS, namedK, namedNS)
			}
			if tt.reason != "" && !slices.ContainsFunc(st.Misses, func(x metrics.CaptureMiss) bool { return strings.Contains(x.Reason, tt.reason) }) {
				t.Errorf("misses %+v: want one saying %q", st.Misses, tt.reason)
			}
			if tt.reason == "" && len(st.Misses) > 0 {
				t.Errorf("misses %+v: want none", st.Misses)
			}
			if tt.mismatched && st.Matched != 0 {
				t.Errorf("a mismatched pair matched %d graph launches", st.Matched)
			}

			// Each kernel's op and region.
			ops, regions := metrics.CapturedKernelScopes(repT, m)
			wantOps := map[string]*metrics.ScopeStat{}
			stacks := map[string]int64{}
			checked := 0
			for i, k := range repT.Kernels {
				w, ok := want[key{k.Stream, k.Start, k.End}]
				if !ok {
					t.Fatalf("kernel %d (%s) not in the truth", i, k.Name)
				}
				checked++
				op, region, stack := w.LaunchOp, "", []string{w.LaunchOp, "cudaGraphLaunch"}
				if w.Graph < 0 {
					stack = []string{w.LaunchOp, "cudaLaunchKernel"}
				}
				if named(w) {
					op, region, stack = w.Op, w.Region, w.Stack
				}
				if ops[i] != op || regions[i] != region {
					t.Errorf("kernel %d (%s, stream %d, graph %d): op %q region %q; want %q %q", i, k.Name, k.Stream, w.Graph, ops[i], regions[i], op, region)
				}
				s := wantOps[op]
				if s == nil {
					s = &metrics.ScopeStat{Name: op}
					wantOps[op] = s
				}
				s.Kernels++
				s.GPUNS += k.Dur()
				switch {
				case named(w):
					s.Captured++
				case w.Graph >= 0:
					s.Replayed++
				}
				stacks[strings.Join(append(slices.Clone(stack), k.Name), ";")] += k.Dur()
			}
			if checked != len(truth.Kernels) {
				t.Errorf("checked %d kernels; the truth has %d", checked, len(truth.Kernels))
			}

			// The table by op.
			got, _ := metrics.CapturedScopes(repT, 0, m)
			if len(got) != len(wantOps) {
				t.Errorf("%d ops; want %d", len(got), len(wantOps))
			}
			for _, g := range got {
				w := wantOps[g.Name]
				if w == nil || g.Kernels != w.Kernels || g.GPUNS != w.GPUNS || g.Captured != w.Captured || g.Replayed != w.Replayed {
					t.Errorf("op %s: %+v; want %+v", g.Name, g, w)
				}
			}

			// The stacks pprof gets.
			samples := metrics.CapturedKernelStacks(repT, m)
			gotStacks := map[string]int64{}
			for _, s := range samples {
				gotStacks[strings.Join(s.Stack, ";")] += s.GPUNS
			}
			for s, ns := range stacks {
				if gotStacks[s] != ns {
					t.Errorf("stack %s: %d ns; want %d", s, gotStacks[s], ns)
				}
			}
			if len(gotStacks) != len(stacks) {
				t.Errorf("%d stacks; want %d", len(gotStacks), len(stacks))
			}
		})
	}
}

// TestCaptureWindow checks that a window cutting a graph launch still
// names the kernels it keeps: the whole trace is matched.
func TestCaptureWindow(t *testing.T) {
	capT, repT, truth := writePair(t, synth.CaptureConfig{Seed: 20}, synth.CaptureConfig{Seed: 20})
	c, err := metrics.NewCapture(capT)
	if err != nil {
		t.Fatal(err)
	}
	// From the middle of the first graph launch's kernels to the end.
	first := truth.Kernels[3]
	w := repT.Clip(trace.Window{Start: first.Start + 1, End: repT.Kernels[len(repT.Kernels)-1].End})
	m := c.Match(w)
	if m.Stats.Named != m.Stats.Kernels || m.Stats.Kernels == 0 {
		t.Fatalf("stats %+v: want every graph kernel named", m.Stats)
	}
	ops, _ := metrics.CapturedKernelScopes(w, m)
	if ops[0] != first.Op {
		t.Errorf("the clipped kernel: op %q; want %q", ops[0], first.Op)
	}
	for i, op := range ops {
		if op == "" || op == "CUDAGraph.replay" {
			t.Errorf("kernel %d in the window (%s): op %q, not named", i, w.Kernels[i].Name, op)
		}
	}
}

// TestCaptureNone: a trace of ordinary launches is no capture.
func TestCaptureNone(t *testing.T) {
	_, repT, _ := writePair(t, synth.CaptureConfig{Seed: 30}, synth.CaptureConfig{Seed: 30})
	if _, err := metrics.NewCapture(repT); err == nil || !strings.Contains(err.Error(), "executed nothing") {
		t.Errorf("a replay trace as capture: error %v", err)
	}
}

// TestCaptureUnended: launches after a begin the trace never sees end are
// no capture: counted outside, not paired.
func TestCaptureUnended(t *testing.T) {
	tr := &trace.Trace{Source: "cap.json", APICalls: []trace.APICall{
		{Name: "cudaStreamBeginCapture", PID: 1, TID: 1, Start: 10, End: 11, Correlation: 1},
		{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 20, End: 21, Correlation: 2},
		{Name: "cudaStreamBeginCapture", PID: 1, TID: 1, Start: 30, End: 31, Correlation: 3},
		{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 40, End: 41, Correlation: 4},
		{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 50, End: 51, Correlation: 5},
	}}
	c, err := metrics.NewCapture(tr)
	if err != nil {
		t.Fatal(err)
	}
	if c.Captured != 3 || c.Outside != 3 || len(c.Sizes()) != 0 {
		t.Errorf("%d captured, %d outside, sizes %v; want 3, 3, none", c.Captured, c.Outside, c.Sizes())
	}
}
