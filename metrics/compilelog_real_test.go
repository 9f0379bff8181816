package metrics_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
	"github.com/traceql/traceql/trace/torchlog"
)

// gpuRecordings are the real runs recorded with their TORCH_TRACE logs
// (testdata/gpu/README.md: the second set, an H200).
var gpuRecordings = []string{
	"vit-small_default_b1_flops", "vit-small_reduce-overhead_b1_flops",
	"vit-medium_default_b1_flops", "vit-medium_reduce-overhead_b1_flops",
}

// logCompileNS reads each compile's time from a log as apart from
// torchlog as a test can: every line with a compilation_metrics record,
// decoded by encoding/json, its duration_us summed per "F/R".
func logCompileNS(t *testing.T, path string) map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	out := map[string]int64{}
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, `] {"compilation_metrics"`)
		if i < 0 {
			continue
		}
		var rec struct {
			Frame   *int `json:"frame_id"`
			Compile *int `json:"frame_compile_id"`
			M       struct {
				DurationUS *int64 `json:"duration_us"`
				IsRuntime  bool   `json:"is_runtime"`
			} `json:"compilation_metrics"`
		}
		if err := json.Unmarshal([]byte(line[i+2:]), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Frame != nil && rec.Compile != nil && rec.M.DurationUS != nil && !rec.M.IsRuntime {
			out[strconv.Itoa(*rec.Frame)+"/"+strconv.Itoa(*rec.Compile)] += *rec.M.DurationUS * 1000
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJoinCompileLogReal joins the real recordings to their logs: every
// frame the trace ran is in the log, the compile times are the log's, and
// each frame's kernel and graph-replayed time is what the events say
// (each kernel's launch call found by correlation id, the innermost
// region containing it on its thread found by a scan of every region).
func TestJoinCompileLogReal(t *testing.T) {
	checked := 0
	for _, name := range gpuRecordings {
		tracePath := filepath.Join("..", "testdata", "gpu", name+".pt.trace.json.gz")
		logPath := filepath.Join("..", "testdata", "gpu", name+".torch_trace.log.gz")
		if _, err := os.Stat(logPath); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		log, err := torchlog.Open(logPath)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), tracePath)
		if err != nil {
			t.Fatal(err)
		}
		j := metrics.JoinCompileLog(tr, log, 0)

		// The truth from the events.
		evs := decodeEvents(t, tracePath)
		type reg struct {
			thread, frame string
			start, end    int64
		}
		var regions []reg
		calls := map[int64]*event{}
		for i := range evs {
			e := &evs[i]
			if id, ok := strings.CutPrefix(e.name, "Torch-Compiled Region: "); ok && e.cat == "cpu_op" {
				regions = append(regions, reg{e.pid + "/" + e.tid, id, e.start, e.end})
			}
			if (e.cat == "cuda_runtime" || e.cat == "cuda_driver") && e.corr != 0 {
				calls[e.corr] = e
			}
		}
		kernelNS, graphNS := map[string]int64{}, map[string]int64{}
		for i := range evs {
			k := &evs[i]
			c := calls[k.corr]
			if k.cat != "kernel" || c == nil {
				continue
			}
			var in *reg
			for r := range regions {
				g := &regions[r]
				if g.thread == c.pid+"/"+c.tid && g.start <= c.start && c.end <= g.end && (in == nil || g.start > in.start) {
					in = g
				}
			}
			if in != nil {
				kernelNS[in.frame] += k.end - k.start
				if strings.Contains(c.name, "GraphLaunch") {
					graphNS[in.frame] += k.end - k.start
				}
			}
		}
		compileNS := logCompileNS(t, logPath)

		if len(j.Devices) != 1 {
			t.Fatalf("%s: %d devices", name, len(j.Devices))
		}
		d := &j.Devices[0]
		for i, f := range j.Frames {
			id := f.ID()
			if f.Calls > 0 && f.Log == nil {
				t.Errorf("%s: %s ran and is not in the log", name, id)
			}
			if f.Log != nil && f.Log.CompileNS != compileNS[id] {
				t.Errorf("%s: %s compile %d ns, the log's records say %d", name, id, f.Log.CompileNS, compileNS[id])
			}
			if d.FrameNS[i] != kernelNS[id] || d.FrameGraphNS[i] != graphNS[id] {
				t.Errorf("%s: %s kernels %d ns (graph %d), want %d (%d)", name, id, d.FrameNS[i], d.FrameGraphNS[i], kernelNS[id], graphNS[id])
			}
			if f.Calls > 0 {
				graphs := strings.Contains(name, "reduce-overhead")
				if (j.CudagraphVerdict(d, i) == "replayed") != graphs {
					t.Errorf("%s: %s CUDA graphs %q", name, id, j.CudagraphVerdict(d, i))
				}
				// These logs have Inductor's provenance (INDUCTOR_PROVENANCE=1):
				// every Triton kernel the frame ran is in it.
				if d.Triton[i] == 0 || d.Traced[i] != d.Triton[i] {
					t.Errorf("%s: %s ran %d Triton kernels, %d with provenance", name, id, d.Triton[i], d.Traced[i])
				}
				t.Logf("%s %s: %d calls, compile %d ns, kernels %d ns (%.4f), graph %d ns, lookups %d (%d ns), Triton kernels %d, with provenance %d, breaks %d, guards %d",
					name, id, f.Calls, compileNS[id], d.FrameNS[i], d.Share(i), d.FrameGraphNS[i], f.Lookups, f.LookupNS, d.Triton[i], d.Traced[i], len(f.Log.Breaks), len(f.Log.Recompile))
			}
		}
		if j.Joined == 0 {
			t.Errorf("%s: no frame joined", name)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("checked nothing")
	}
}
