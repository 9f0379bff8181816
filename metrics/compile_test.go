package metrics_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/internal/usns"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// compileTruth is what the compile metrics must say of a trace, computed
// from its events without the reader: every region op is checked one by
// one for the launch calls it contains (no unions, no index).
type compileTruth struct {
	regions, frames, recompiles, functions, lookups int
	lookupNS                                        int64
	frameRecompiles                                 map[string]int
	kernelNS, compiledNS, graphNS                   map[int]int64 // by device
	straddles                                       int           // launch calls beginning in a region on their thread and ending after it
	inside, outside, graphInside, graphOutside      int           // launch calls
}

// An event is a Kineto event, its times in ns.
type event struct {
	cat, name  string
	pid, tid   string
	start, end int64
	device     int
	corr       int64
}

type region struct {
	tid        string
	start, end int64
}

func computeCompileTruth(t *testing.T, evs []event) compileTruth {
	t.Helper()
	tr := compileTruth{frameRecompiles: map[string]int{}, kernelNS: map[int]int64{}, compiledNS: map[int]int64{}, graphNS: map[int]int64{}}
	var regions []region
	seen := map[string]bool{}
	frames := map[string]bool{}
	calls := map[int64]*event{}
	for i := range evs {
		e := &evs[i]
		switch e.cat {
		case "cpu_op":
			switch {
			case strings.HasPrefix(e.name, "Torch-Compiled Region: "):
				tr.regions++
				fr := strings.TrimPrefix(e.name, "Torch-Compiled Region: ")
				f, r, _ := strings.Cut(fr, "/")
				frames[f] = true
				if !seen[fr] {
					seen[fr] = true
					if r != "0" {
						tr.recompiles++
						tr.frameRecompiles[f]++
					}
				}
				regions = append(regions, region{e.pid + "/" + e.tid, e.start, e.end})
			case e.name == "CompiledFunction" || e.name == "CompiledFunctionBackward":
				tr.functions++
				regions = append(regions, region{e.pid + "/" + e.tid, e.start, e.end})
			case e.name == "TorchDynamo Cache Lookup":
				tr.lookups++
				tr.lookupNS += e.end - e.start
			}
		case "cuda_runtime", "cuda_driver":
			if e.corr != 0 {
				if calls[e.corr] != nil {
					t.Fatalf("correlation %d twice: the truth matches on correlation alone", e.corr)
				}
				calls[e.corr] = e
			}
		}
	}
	tr.frames = len(frames)
	inRegion := func(c *event) (in, straddle bool) {
		for _, r := range regions {
			if r.tid != c.pid+"/"+c.tid {
				continue
			}
			if r.start <= c.start && c.end <= r.end {
				return true, false
			}
			if r.start <= c.start && c.start <= r.end {
				straddle = true
			}
		}
		return false, straddle
	}
	counted := map[int64]bool{}
	for i := range evs {
		k := &evs[i]
		if k.cat != "kernel" {
			continue
		}
		tr.kernelNS[k.device] += k.end - k.start
		c := calls[k.corr]
		if c == nil || !strings.Contains(c.name, "Launch") {
			continue
		}
		graph := strings.Contains(c.name, "GraphLaunch")
		if graph {
			tr.graphNS[k.device] += k.end - k.start
		}
		in, straddle := inRegion(c)
		if in {
			tr.compiledNS[k.device] += k.end - k.start
		}
		if !counted[c.corr] {
			counted[c.corr] = true
			switch {
			case in && graph:
				tr.graphInside++
			case graph:
				tr.graphOutside++
			case in:
				tr.inside++
			default:
				tr.outside++
			}
			if straddle && !in {
				tr.straddles++
			}
		}
	}
	return tr
}

// decodeJSON decodes the JSON file at path, gzipped or not, into v with
// encoding/json, numbers kept as their text (json.Number).
func decodeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = bytes.NewReader(b)
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		if r, err = gzip.NewReader(r); err != nil {
			t.Fatal(err)
		}
	}
	d := json.NewDecoder(r)
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// decodeEvents decodes a Kineto file's complete events with encoding/json.
func decodeEvents(t *testing.T, path string) []event {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph, Cat, Name string
			Pid, Tid      any
			Ts, Dur       json.Number
			Args          map[string]any
		} `json:"traceEvents"`
	}
	decodeJSON(t, path, &doc)
	var out []event
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" || e.Ts == "" {
			continue
		}
		ev := event{cat: strings.ToLower(e.Cat), name: e.Name, pid: fmt.Sprint(e.Pid), tid: fmt.Sprint(e.Tid)}
		ev.start = usns.Parse(t, string(e.Ts))
		ev.end = ev.start + usns.Parse(t, string(e.Dur))
		if c, ok := e.Args["correlation"].(json.Number); ok {
			ev.corr, _ = c.Int64()
		}
		if ev.cat == "kernel" {
			dev, ok := e.Args["device"].(json.Number)
			if !ok {
				dev, _ = e.Pid.(json.Number)
			}
			n, err := dev.Int64()
			if err != nil {
				t.Fatalf("%s: kernel without a device", path)
			}
			ev.device = int(n)
		}
		out = append(out, ev)
	}
	return out
}

// checkCompile compares the summary of the trace at path, read as
// summarize reads it (lean), with the truth computed from its events.
func checkCompile(t *testing.T, path string) (compileTruth, metrics.Summary) {
	t.Helper()
	want := computeCompileTruth(t, decodeEvents(t, path))
	tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	c := s.Compile
	if c.Regions != want.regions || c.Frames != want.frames || c.Recompiles != want.recompiles ||
		c.CompiledFunctions != want.functions || c.DynamoLookups != want.lookups || c.DynamoLookupNS != want.lookupNS {
		t.Errorf("%s: regions %d frames %d recompiles %d functions %d lookups %d (%d ns), want %d %d %d %d %d (%d ns)", path,
			c.Regions, c.Frames, c.Recompiles, c.CompiledFunctions, c.DynamoLookups, c.DynamoLookupNS,
			want.regions, want.frames, want.recompiles, want.functions, want.lookups, want.lookupNS)
	}
	for _, fr := range c.FrameRecompiles {
		if want.frameRecompiles[fr.Frame] != fr.Recompiles {
			t.Errorf("%s: frame %s recompiled %d times, want %d", path, fr.Frame, fr.Recompiles, want.frameRecompiles[fr.Frame])
		}
	}
	if len(c.FrameRecompiles) != len(want.frameRecompiles) {
		t.Errorf("%s: %d frames with recompiles, want %d", path, len(c.FrameRecompiles), len(want.frameRecompiles))
	}
	for _, d := range s.Devices {
		if d.KernelNS != want.kernelNS[d.Device] {
			t.Fatalf("%s GPU %d: kernel_ns %d, want %d", path, d.Device, d.KernelNS, want.kernelNS[d.Device])
		}
		if d.Compile.KernelNS != want.compiledNS[d.Device] || d.Compile.GraphKernelNS != want.graphNS[d.Device] {
			t.Errorf("%s GPU %d: compiled_kernel_ns %d, graph_kernel_ns %d; want %d, %d", path, d.Device,
				d.Compile.KernelNS, d.Compile.GraphKernelNS, want.compiledNS[d.Device], want.graphNS[d.Device])
		}
		// The note's claim follows from these numbers alone.
		note := metrics.EagerNote(&d)
		eager := want.kernelNS[d.Device] - want.compiledNS[d.Device]
		switch {
		case want.regions+want.functions == 0 || eager == 0:
			if note != "" {
				t.Errorf("%s GPU %d: note %q, want none", path, d.Device, note)
			}
		default:
			// The shares are counted here; how a share is written, ShareText's test checks.
			pct := metrics.ShareText(eager, want.kernelNS[d.Device])
			if !strings.HasPrefix(note, pct+" of kernel time launches outside compiled regions") {
				t.Errorf("%s GPU %d: note %q, want it to begin %q", path, d.Device, note, pct)
			}
			// Graph breaks are suggested only when there is more than
			// one compiled frame (or frames are unknown).
			if breaks := strings.HasSuffix(note, "graph breaks?"); breaks != (c.Frames != 1) {
				t.Errorf("%s GPU %d: %d frames, note %q", path, d.Device, c.Frames, note)
			}
		}
	}
	return want, s
}

// TestCompileSynth checks the compile metrics on generated traces whose
// every region, recompile, graph replay (inside regions and out), launch
// straddling a region's end, and launch from another thread is known.
func TestCompileSynth(t *testing.T) {
	var straddles, graphIn, graphOut, inside, outside int
	for seed := range int64(6) {
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
		want, s := checkCompile(t, path)
		straddles += want.straddles
		graphIn, graphOut, inside, outside = graphIn+want.graphInside, graphOut+want.graphOutside, inside+want.inside, outside+want.outside
		if want.recompiles == 0 || len(s.Devices) != 1 || len(written.Kernels) == 0 {
			t.Fatalf("seed %d: %d recompiles, %d devices: the generator lost its point", seed, want.recompiles, len(s.Devices))
		}
		// The recompile notes are the per-frame counts, numerically ordered.
		var notes []string
		for _, f := range []string{"0", "1", "2"} {
			if n := want.frameRecompiles[f]; n > 0 {
				times := " times"
				if n == 1 {
					times = " time"
				}
				notes = append(notes, fmt.Sprintf("frame %s recompiled %d%s", f, n, times))
			}
		}
		if got := metrics.RecompileNotes(&s.Compile); strings.Join(got, "\n") != strings.Join(notes, "\n") {
			t.Errorf("seed %d: notes %q, want %q", seed, got, notes)
		}
	}
	if straddles == 0 || graphIn == 0 || graphOut == 0 || inside == 0 || outside == 0 {
		t.Errorf("straddling calls %d, graph launches in regions %d and out %d, kernel launches in %d and out %d: want some of each",
			straddles, graphIn, graphOut, inside, outside)
	}
}

// TestCompileReal checks the compile metrics on the shared traces that
// have torch.compile ops or graph launches.
func TestCompileReal(t *testing.T) {
	dir := shared.Traces(t)
	checked := 0
	for _, p := range []string{
		"hta/triton_example/triton_example.json.gz",
		"hta/negative_queue_length_values_check/rank0.json.gz",
		"hta/trace_diff/test/test.json.gz",
		"more/tracelens__inference__xdit_flux.1__split_iteration_1.json.gz",
	} {
		path := filepath.Join(dir, p)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		want, s := checkCompile(t, path)
		if want.regions+want.functions == 0 || len(s.Devices) == 0 {
			t.Errorf("%s: no compiled ranges or no GPU: nothing checked", p)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("checked nothing")
	}
}

// TestHostTimelineSynth checks the host side of a generated host-only
// run a nanosecond at a time: time in ops (any thread), host time in
// compiled code (per thread, then summed), span and steps.
func TestHostTimelineSynth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := synth.WriteCompile(f, synth.CompileConfig{Seed: 3, Calls: 20, HostOnly: true})
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	lo, hi := w.Ops[0].Start, w.Ops[0].End
	for _, op := range w.Ops {
		lo, hi = min(lo, op.Start), max(hi, op.End)
	}
	inOp := make([]bool, hi-lo)
	compiled := map[int64][]bool{}
	var steps []int64
	for _, op := range w.Ops {
		if strings.HasPrefix(op.Name, "ProfilerStep#") {
			steps = append(steps, op.End-op.Start)
			continue
		}
		isCompiled := strings.HasPrefix(op.Name, "Torch-Compiled Region: ") || strings.HasPrefix(op.Name, "CompiledFunction")
		if compiled[op.TID] == nil {
			compiled[op.TID] = make([]bool, hi-lo)
		}
		for x := op.Start; x < op.End; x++ {
			inOp[x-lo] = true
			if isCompiled {
				compiled[op.TID][x-lo] = true
			}
		}
	}
	count := func(b []bool) (n int64) {
		for _, v := range b {
			if v {
				n++
			}
		}
		return n
	}
	var compiledNS int64
	for _, b := range compiled {
		compiledNS += count(b)
	}
	h := s.Host
	if len(s.Devices) != 0 || h.SpanNS != hi-lo || h.OpBusyNS != count(inOp) || h.OutsideOpsNS != hi-lo-count(inOp) {
		t.Errorf("span %d, in ops %d, outside %d; want %d, %d, %d", h.SpanNS, h.OpBusyNS, h.OutsideOpsNS, hi-lo, count(inOp), hi-lo-count(inOp))
	}
	if s.Compile.CompiledHostNS != compiledNS || compiledNS == 0 {
		t.Errorf("host time in compiled code %d, want %d (> 0)", s.Compile.CompiledHostNS, compiledNS)
	}
	if h.OutsideOpsNS == 0 || len(h.Steps) != len(steps) || len(steps) < 3 {
		t.Errorf("%d ns outside ops, %d steps (want %d, ≥ 3): the generator lost its point", h.OutsideOpsNS, len(h.Steps), len(steps))
	}
	for i, st := range h.Steps {
		if st.End-st.Start != steps[i] {
			t.Errorf("step %d: %d ns, want %d", i+1, st.End-st.Start, steps[i])
		}
	}
}

// eagerOpsTruth attributes each kernel launched outside compiled code to
// the innermost cpu_op on its launch call's thread open when the call
// began, one op at a time (no stacks): the op with the latest start that
// began at or before the call and ends after its start (or is of zero
// length at it), ties to the shorter, and between equal intervals to the
// one written later (Kineto writes an op before the ops it encloses, and
// an op and its only child may have the same ends). Kernels without a launch call, or
// with no such op, go to metrics.NoScope. By device, then op name: GPU
// time and kernels.
func eagerOpsTruth(t *testing.T, evs []event) (ns map[int]map[string]int64, kernels map[int]map[string]int) {
	t.Helper()
	var regions, ops []*event
	calls := map[int64]*event{}
	for i := range evs {
		e := &evs[i]
		switch e.cat {
		case "cpu_op":
			ops = append(ops, e)
			if strings.HasPrefix(e.name, "Torch-Compiled Region") || e.name == "CompiledFunction" || e.name == "CompiledFunctionBackward" {
				regions = append(regions, e)
			}
		case "cuda_runtime", "cuda_driver":
			if e.corr != 0 {
				calls[e.corr] = e
			}
		}
	}
	ns, kernels = map[int]map[string]int64{}, map[int]map[string]int{}
	for i := range evs {
		k := &evs[i]
		if k.cat != "kernel" {
			continue
		}
		c := calls[k.corr]
		if c != nil && !strings.Contains(c.name, "Launch") {
			c = nil
		}
		name := metrics.NoScope
		if c != nil {
			in := false
			for _, r := range regions {
				if r.pid == c.pid && r.tid == c.tid && r.start <= c.start && c.end <= r.end {
					in = true
				}
			}
			if in {
				continue
			}
			var best *event
			for _, o := range ops {
				if o.pid != c.pid || o.tid != c.tid || o.start > c.start || !(o.end > c.start || o.end == c.start && o.start == c.start) {
					continue
				}
				if best == nil || o.start > best.start || o.start == best.start && o.end <= best.end {
					best = o
				}
			}
			if best != nil {
				name = best.name
			}
		}
		if ns[k.device] == nil {
			ns[k.device], kernels[k.device] = map[string]int64{}, map[string]int{}
		}
		ns[k.device][name] += k.end - k.start
		kernels[k.device][name]++
	}
	return ns, kernels
}

// checkEagerOps compares the eager ops of the trace at path, read with
// its cpu_ops, with eagerOpsTruth; it returns how many (device, op) it
// compared.
func checkEagerOps(t *testing.T, path string) int {
	t.Helper()
	wantNS, wantKernels := eagerOpsTruth(t, decodeEvents(t, path))
	tr, err := trace.Options{}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{Scopes: true, TopN: 1 << 20})
	checked := 0
	for _, d := range s.Devices {
		got := d.Compile.TopEagerOps
		if len(got) != len(wantNS[d.Device]) {
			t.Errorf("%s GPU %d: %d eager ops, want %d", path, d.Device, len(got), len(wantNS[d.Device]))
		}
		var sum int64
		for j, op := range got {
			sum += op.GPUNS
			if op.GPUNS != wantNS[d.Device][op.Name] || op.Kernels != wantKernels[d.Device][op.Name] {
				t.Errorf("%s GPU %d: eager op %q: %d kernels, %d ns; want %d, %d", path, d.Device, op.Name,
					op.Kernels, op.GPUNS, wantKernels[d.Device][op.Name], wantNS[d.Device][op.Name])
			}
			if j > 0 && (got[j-1].GPUNS < op.GPUNS || got[j-1].GPUNS == op.GPUNS && got[j-1].Name > op.Name) {
				t.Errorf("%s GPU %d: eager ops out of order at %q", path, d.Device, op.Name)
			}
			checked++
		}
		// The ops share out the eager kernel time the note speaks of.
		if eager := d.KernelNS - d.Compile.KernelNS; len(got) > 0 && sum != eager {
			t.Errorf("%s GPU %d: eager ops hold %d ns, the note's eager kernel time is %d", path, d.Device, sum, eager)
		}
	}
	return checked
}

// TestEagerOps checks the ops launching kernels outside compiled code on
// generated and real traces.
func TestEagerOps(t *testing.T) {
	checked := 0
	for seed := range int64(4) {
		path := filepath.Join(t.TempDir(), "c.json")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = synth.WriteCompile(f, synth.CompileConfig{Seed: seed, Recompiles: []int{0, 3, 1}})
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err != nil {
			t.Fatal(err)
		}
		checked += checkEagerOps(t, path)
	}
	if checked == 0 {
		t.Fatal("the generated traces have no eager ops: nothing checked")
	}
	dir := shared.Traces(t)
	checked = 0
	for _, p := range []string{
		"hta/triton_example/triton_example.json.gz",
		"hta/negative_queue_length_values_check/rank0.json.gz",
		"hta/trace_diff/test/test.json.gz",
		"more/tracelens__inference__xdit_flux.1__split_iteration_1.json.gz",
	} {
		n := checkEagerOps(t, filepath.Join(dir, p))
		t.Logf("%s: %d (device, eager op) pairs", p, n)
		checked += n
	}
	if checked == 0 {
		t.Fatal("the real traces have no eager ops: nothing checked")
	}
}
