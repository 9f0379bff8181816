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
