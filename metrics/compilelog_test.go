package metrics_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
	"github.com/traceql/traceql/trace/torchlog"
)

// frameTruth is one frame's numbers computed from what the generator
// wrote, event by event, without the reader or the metrics' indexes.
type frameTruth struct {
	calls             int
	hostNS            int64
	lookups           int
	lookupNS          int64
	kernelNS, graphNS int64
	tritonNS          int64 // of kernelNS, the kernels named triton_*
}

func compileLogTruth(w synth.CompileTrace) (map[string]*frameTruth, int64) {
	frames := map[string]*frameTruth{}
	get := func(id string) *frameTruth {
		if frames[id] == nil {
			frames[id] = &frameTruth{}
		}
		return frames[id]
	}
	var regions []synth.CompileOp
	for _, o := range w.Ops {
		if id, ok := strings.CutPrefix(o.Name, "Torch-Compiled Region: "); ok {
			f := get(id)
			f.calls++
			f.hostNS += o.End - o.Start // the generator's regions of a frame never overlap
			regions = append(regions, o)
		}
	}
	// A lookup goes to the region that is the next compile op on its
	// thread: scan every op for the earliest start at or after its end.
	for _, l := range w.Ops {
		if l.Name != "TorchDynamo Cache Lookup" {
			continue
		}
		var next *synth.CompileOp
		for i := range w.Ops {
			o := &w.Ops[i]
			if o.TID == l.TID && o.Start >= l.End && (o.Name == "TorchDynamo Cache Lookup" || strings.HasPrefix(o.Name, "Torch-Compiled Region: ")) &&
				(next == nil || o.Start < next.Start) {
				next = o
			}
		}
		if next != nil && next.Name != "TorchDynamo Cache Lookup" {
			f := get(strings.TrimPrefix(next.Name, "Torch-Compiled Region: "))
			f.lookups++
			f.lookupNS += l.End - l.Start
		}
	}
	var total int64
	for _, k := range w.Kernels {
		total += k.End - k.Start
		for _, c := range w.Calls {
			if c.Corr != k.Corr {
				continue
			}
			for _, r := range regions {
				if r.TID == c.TID && r.Start <= c.Start && c.End <= r.End {
					f := get(strings.TrimPrefix(r.Name, "Torch-Compiled Region: "))
					f.kernelNS += k.End - k.Start
					if strings.HasPrefix(k.Name, "triton_") {
						f.tritonNS += k.End - k.Start
					}
					if c.Name == "cudaGraphLaunch" {
						f.graphNS += k.End - k.Start
					}
				}
			}
		}
	}
	return frames, total
}

// TestJoinCompileLogSynth joins generated logs to generated traces and
// checks each frame against compileLogTruth: calls, host time, lookups,
// kernel and graph kernel time; frames only the log has, and only the
// trace, are kept apart.
func TestJoinCompileLogSynth(t *testing.T) {
	checked, graphs, lookups, triton := 0, 0, 0, 0
	for seed := range int64(4) {
		path := filepath.Join(t.TempDir(), "c.json")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		written, err := synth.WriteCompile(f, synth.CompileConfig{Seed: seed, Recompiles: []int{0, 3, 1}})
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err != nil {
			t.Fatal(err)
		}
		truth, total := compileLogTruth(written)
		// The log has every frame the trace ran but 2/1, and 7/0 that did not run.
		var lc []synth.LogCompile
		for id := range truth {
			var fr, r int
			fmt.Sscanf(id, "%d/%d", &fr, &r)
			if id != "2/1" {
				c := synth.LogCompile{Frame: fr, Compile: r, Code: "f" + id, File: "m.py", Line: 1, CompileUS: int64(100 + fr), NumBreaks: -1}
				if id == "1/0" { // provenance of the generator's one Triton kernel
					c.Kernels = map[string]synth.LogKernel{"triton_poi_fused_add_0": {Post: []string{"add"}, Stack: []string{"m.py|3|f|x + 1"}}}
				}
				lc = append(lc, c)
			}
		}
		lc = append(lc, synth.LogCompile{Frame: 7, Compile: 0, Code: "unused", File: "m.py", CompileUS: 5, NumBreaks: -1})
		logPath := filepath.Join(t.TempDir(), "log")
		lf, err := os.Create(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := synth.WriteTorchLog(lf, lc); err != nil {
			t.Fatal(err)
		}
		lf.Close()
		log, err := torchlog.Open(logPath)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		j := metrics.JoinCompileLog(tr, log, 0)
		if len(j.Devices) != 1 || j.Devices[0].KernelNS != total {
			t.Fatalf("seed %d: devices %+v, want one with %d ns of kernels", seed, j.Devices, total)
		}
		d := &j.Devices[0]
		outside := total
		for _, f := range truth {
			outside -= f.kernelNS
		}
		if d.OutsideNS != outside {
			t.Errorf("seed %d: %d ns launched outside frames, want %d", seed, d.OutsideNS, outside)
		}
		seen := 0
		for i, fr := range j.Frames {
			id := fr.ID()
			want := truth[id]
			if id == "7/0" {
				if fr.Calls != 0 || fr.Log == nil || d.FrameNS[i] != 0 || j.CudagraphVerdict(d, i) != "" {
					t.Errorf("seed %d: 7/0 (log only) = %+v", seed, fr)
				}
				continue
			}
			if want == nil {
				t.Errorf("seed %d: frame %s is in neither", seed, id)
				continue
			}
			seen++
			if (fr.Log == nil) != (id == "2/1") || fr.Log != nil && fr.Log.Code != "f"+id {
				t.Errorf("seed %d: %s joined to %+v", seed, id, fr.Log)
			}
			if fr.Calls != want.calls || fr.HostNS != want.hostNS || fr.Lookups != want.lookups || fr.LookupNS != want.lookupNS ||
				d.FrameNS[i] != want.kernelNS || d.FrameGraphNS[i] != want.graphNS {
				t.Errorf("seed %d: %s: calls %d host %d lookups %d (%d ns) kernels %d graph %d; want %+v", seed, id,
					fr.Calls, fr.HostNS, fr.Lookups, fr.LookupNS, d.FrameNS[i], d.FrameGraphNS[i], *want)
			}
			if v := j.CudagraphVerdict(d, i); (v == "replayed") != (want.graphNS > 0) || v == "" {
				t.Errorf("seed %d: %s: CUDA graphs %q with %d ns replayed", seed, id, v, want.graphNS)
			}
			checked++
			if want.graphNS > 0 {
				graphs++
			}
			lookups += want.lookups
		}
		if seen != len(truth) || j.Joined != len(truth)-1 {
			t.Errorf("seed %d: %d frames of %d seen, %d joined", seed, seen, len(truth), j.Joined)
		}
		// The Triton kernels by frame and name add up to the frames'
		// Triton time; only 1/0's have provenance.
		byFrame := map[string]int64{}
		for _, k := range d.Kernels {
			id := j.Frames[k.Frame].ID()
			byFrame[id] += k.TotalNS
			if (k.Source != nil) != (id == "1/0") || k.Count == 0 {
				t.Errorf("seed %d: %s %s: %d kernels, provenance %+v", seed, id, k.Name, k.Count, k.Source)
			}
		}
		for id, want := range truth {
			if byFrame[id] != want.tritonNS {
				t.Errorf("seed %d: %s: Triton kernels %d ns, want %d", seed, id, byFrame[id], want.tritonNS)
			}
			if want.tritonNS > 0 {
				triton++
			}
		}
	}
	if checked == 0 || graphs == 0 || lookups == 0 || triton == 0 {
		t.Fatalf("checked %d frames, %d with graph replays, %d with Triton kernels, %d lookups: want some of each", checked, graphs, triton, lookups)
	}
}

// TestJoinCompileLogNested builds nested and straddling regions by hand:
// a kernel goes to the innermost frame whose call holds its launch call
// on the same thread; a launch that outlives its region, or on another
// thread, goes to none; a lookup goes to the region after it, not to one
// after another lookup.
func TestJoinCompileLogNested(t *testing.T) {
	op := func(name string, tid, start, end int64) trace.Op {
		return trace.Op{Name: name, Kind: trace.CPUOp, PID: 1, TID: tid, Start: start, End: end}
	}
	call := func(name string, tid, start, end, corr int64) trace.APICall {
		return trace.APICall{Name: name, PID: 1, TID: tid, Start: start, End: end, Correlation: corr}
	}
	k := func(start, end, corr int64, name string) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Stream: 7, Start: start, End: end, Correlation: corr, PID: 1}, Name: name}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Ops: []trace.Op{
			op("TorchDynamo Cache Lookup", 1, 0, 5),
			op("Torch-Compiled Region: 0/0", 1, 10, 100),
			op("Torch-Compiled Region: 1/0", 1, 20, 50), // nested in 0/0
			op("TorchDynamo Cache Lookup", 1, 110, 113), // followed by another lookup: charged to none
			op("TorchDynamo Cache Lookup", 1, 120, 124),
			op("Torch-Compiled Region: 1/0", 1, 130, 140),
		},
		APICalls: []trace.APICall{
			call("cudaLaunchKernel", 1, 12, 15, 1),   // 0/0
			call("cudaLaunchKernel", 1, 25, 30, 2),   // 1/0, inner
			call("cudaGraphLaunch", 1, 55, 60, 3),    // 0/0, after the inner call
			call("cudaLaunchKernel", 1, 95, 105, 4),  // outlives 0/0: none
			call("cudaLaunchKernel", 2, 131, 132, 5), // another thread: none
			call("cudaLaunchKernel", 1, 132, 133, 6), // 1/0's second call
		},
		Kernels: []trace.Kernel{
			k(200, 210, 1, "triton_a"), k(210, 230, 2, "triton_b"), k(230, 260, 3, "g"), k(260, 300, 3, "triton_a"),
			k(300, 350, 4, "x"), k(350, 360, 5, "y"), k(360, 365, 6, "triton_b"),
		},
	}
	log := &torchlog.Log{Source: "hand.log", Compiles: []torchlog.Compile{{ID: torchlog.ID{Autograd: -1, Frame: 0, Compile: 0}}}}
	j := metrics.JoinCompileLog(tr, log, 0)
	if len(j.Frames) != 2 || j.Frames[0].ID() != "0/0" || j.Frames[1].ID() != "1/0" || j.Joined != 1 {
		t.Fatalf("frames %+v, joined %d", j.Frames, j.Joined)
	}
	d := j.Devices[0]
	if d.FrameNS[0] != 10+30+40 || d.FrameGraphNS[0] != 30+40 || d.FrameNS[1] != 20+5 || d.FrameGraphNS[1] != 0 || d.OutsideNS != 50+10 {
		t.Errorf("kernels by frame %v (graph %v), outside %d; want [80 25] ([70 0]), 60", d.FrameNS, d.FrameGraphNS, d.OutsideNS)
	}
	if f := j.Frames[0]; f.Calls != 1 || f.HostNS != 90 || f.Lookups != 1 || f.LookupNS != 5 {
		t.Errorf("0/0: %+v", f)
	}
	if f := j.Frames[1]; f.Calls != 2 || f.HostNS != 30+10 || f.Lookups != 1 || f.LookupNS != 4 {
		t.Errorf("1/0: %+v", f)
	}
	if j.Lookups != 1 || j.LookupNS != 3 {
		t.Errorf("lookups charged to none: %d (%d ns), want 1 (3 ns)", j.Lookups, j.LookupNS)
	}
	if len(d.Kernels) != 2 || d.Kernels[0].Name != "triton_a" || d.Kernels[0].TotalNS != 50 || d.Kernels[0].Count != 2 ||
		d.Kernels[1].Name != "triton_b" || d.Kernels[1].Frame != 1 || d.Kernels[1].TotalNS != 25 || d.Kernels[1].Count != 2 {
		t.Errorf("Triton kernels %+v", d.Kernels)
	}
}
