package metrics_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// rawEvent is a Chrome-trace event as encoding/json reads it: the test's
// own reading, apart from the trace package's.
type rawEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	TID  json.RawMessage `json:"tid"`
	TS   json.Number     `json:"ts"`
	Dur  json.Number     `json:"dur"`
	Args map[string]any  `json:"args"`
}

// ns converts decimal µs text to integer ns without float64.
func ns(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "000")[:3]
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		t.Fatalf("ts %q: %v", s, err)
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*1000 + f
}

func readRaw(t *testing.T, path string) []rawEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []rawEvent `json:"traceEvents"`
	}
	d := json.NewDecoder(z)
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.TraceEvents
}

func argInt(e rawEvent, k string) int64 {
	n, _ := e.Args[k].(json.Number)
	v, _ := n.Int64()
	return v
}

// TestCaptureRealVLLM pairs the vLLM decode step replayed as one HIP graph
// with the run profiled while that graph was captured, and checks every
// replayed kernel's op against a brute-force order match: the capture's
// launch calls between hipStreamBeginCapture and hipStreamEndCapture, in
// time order, with the replay's kernels of the graph launch in time order
// (one stream), each launch's op the innermost cpu_op around it.
func TestCaptureRealVLLM(t *testing.T) {
	dir := shared.Traces(t)
	capPath := filepath.Join(dir, "more", "tracelens__inference__vllm_decode_full__graph_capture_rank_0.pt.trace.json.gz")
	repPath := filepath.Join(dir, "kineto", "vllm_decode_mi300x_hipgraph.json.gz")

	// The brute force.
	capEv := readRaw(t, capPath)
	var begin, end int64 = -1, -1
	type launch struct {
		ts           int64
		kernel, tid  string
		corr         int64
		op, expected string
	}
	var launches []launch
	executed := map[int64]bool{}
	for _, e := range capEv {
		if e.Cat == "kernel" {
			executed[argInt(e, "correlation")] = true
		}
	}
	total := 0
	for _, e := range capEv {
		if e.Cat != "cuda_runtime" || e.Ph != "X" {
			continue
		}
		switch {
		case e.Name == "hipStreamBeginCapture":
			begin = ns(t, e.TS)
		case e.Name == "hipStreamEndCapture":
			end = ns(t, e.TS)
		case strings.HasSuffix(e.Name, "LaunchKernel"):
			total++
			k, _ := e.Args["kernel"].(string)
			launches = append(launches, launch{ts: ns(t, e.TS), kernel: k, tid: string(e.TID), corr: argInt(e, "correlation")})
		}
	}
	if total != 428 {
		t.Fatalf("capture: %d launch calls, want 428", total)
	}
	var captured []launch
	for _, l := range launches {
		if l.ts > begin && l.ts < end {
			if executed[l.corr] {
				t.Fatalf("launch %d inside the capture executed a kernel", l.corr)
			}
			captured = append(captured, l)
		}
	}
	if len(captured) != 421 {
		t.Fatalf("capture: %d launches between begin and end capture, want 421", len(captured))
	}
	slices.SortFunc(captured, func(a, b launch) int { return int(a.ts - b.ts) })
	for i := range captured {
		l := &captured[i]
		best := int64(-1)
		for _, e := range capEv {
			if e.Cat != "cpu_op" || e.Ph != "X" || string(e.TID) != l.tid {
				continue
			}
			s := ns(t, e.TS)
			if en := s + ns(t, e.Dur); s <= l.ts && l.ts < en && s > best {
				best, l.expected = s, e.Name
			}
		}
	}
	repEv := readRaw(t, repPath)
	var graphCorr int64
	for _, e := range repEv {
		if e.Name == "hipGraphLaunch" {
			graphCorr = argInt(e, "correlation")
		}
	}
	type kern struct {
		ts   int64
		name string
	}
	var replayed []kern
	for _, e := range repEv {
		if e.Cat == "kernel" && argInt(e, "correlation") == graphCorr {
			replayed = append(replayed, kern{ns(t, e.TS), e.Name})
		}
	}
	slices.SortFunc(replayed, func(a, b kern) int { return int(a.ts - b.ts) })
	if len(replayed) != len(captured) {
		t.Fatalf("replay: %d kernels of the graph launch, capture %d", len(replayed), len(captured))
	}
	want := map[int64]string{} // replay kernel start → op
	for i, k := range replayed {
		if captured[i].kernel != k.name {
			t.Fatalf("kernel %d: replay %q, captured %q: the order match fails", i, k.name, captured[i].kernel)
		}
		want[k.ts] = captured[i].expected
	}

	// traceql's.
	ctx := context.Background()
	ct, err := captureRead.Open(ctx, capPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := metrics.NewCapture(ct)
	if err != nil {
		t.Fatal(err)
	}
	if c.Launches != 428 || c.Captured != 421 || c.Outside != 0 || !slices.Equal(c.Sizes(), []int{421}) {
		t.Errorf("capture: %d launches, %d captured, %d outside, sizes %v; want 428, 421, 0, [421]", c.Launches, c.Captured, c.Outside, c.Sizes())
	}
	rt, err := trace.Open(ctx, repPath)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Match(rt)
	st := m.Stats
	if st.GraphLaunches != 1 || st.Matched != 1 || st.Kernels != 421 || st.Named != 421 || len(st.Misses) != 0 || st.NamedNS != st.KernelNS {
		t.Errorf("match stats %+v: want 1 graph launch of 421 kernels, all named", st)
	}
	ops, _ := metrics.CapturedKernelScopes(rt, m)
	checked := 0
	for i, k := range rt.Kernels {
		w, ok := want[k.Start]
		if !ok {
			continue
		}
		checked++
		if ops[i] == "" || ops[i] != w {
			t.Errorf("kernel %d at %d (%s): op %q, brute force %q", i, k.Start, k.Name, ops[i], w)
		}
	}
	if checked != 421 {
		t.Errorf("checked %d replayed kernels, want 421", checked)
	}
}

// TestCaptureRealH200 pairs torch.compile's reduce-overhead replays of
// ViT-small with the calls that cudagraph trees recorded them from, in the
// same process (testdata/gpu): CUDA records no kernel names on launch
// calls, nor stream capture calls by name (they show as INVALID), so the
// pairing is by order alone. The test pairs them its own way (the
// capture's launch calls that no kernel answers, in time order, against
// each graph launch's kernels in time order) and checks each kernel's op
// against it; then, independently of any order, that every Triton kernel
// is named by the op of its own name (Inductor's launcher records one),
// and that all graph kernel time is named.
func TestCaptureRealH200(t *testing.T) {
	capPath, repPath, captured, byLaunch := h200Pair(t)
	want := map[int64]string{}
	for _, ks := range byLaunch {
		if len(ks) != len(captured) {
			t.Fatalf("a graph launch of %d kernels; %d captured launches", len(ks), len(captured))
		}
		for i, k := range ks {
			want[k.ts] = captured[i].op.Name
		}
	}
	if len(byLaunch) != 10 || len(want) != 650 {
		t.Fatalf("%d graph launches, %d kernels; want 10 and 650 (testdata/gpu/README.md)", len(byLaunch), len(want))
	}

	ctx := context.Background()
	ct, err := captureRead.Open(ctx, capPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := metrics.NewCapture(ct)
	if err != nil {
		t.Fatal(err)
	}
	if c.SelfNamed != 1 {
		t.Errorf("%d captures named by the capture trace's own replays; want its one", c.SelfNamed)
	}
	rt, err := trace.Open(ctx, repPath)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Match(rt)
	if st := m.Stats; st.GraphLaunches != 10 || st.Named != 650 || st.NamedNS != st.KernelNS {
		t.Errorf("match stats %+v: want 10 graph launches, 650 kernels, all their time named", st)
	}
	ops, _ := metrics.CapturedKernelScopes(rt, m)
	checked, triton := 0, 0
	for i, k := range rt.Kernels {
		w, ok := want[k.Start]
		if !ok {
			continue
		}
		checked++
		if ops[i] == "" || ops[i] != w {
			t.Errorf("kernel %d (%s): op %q, the order match %q", i, k.Name, ops[i], w)
		}
		if strings.HasPrefix(k.Name, "triton_") {
			triton++
			if ops[i] != k.Name {
				t.Errorf("Triton kernel %s named by op %q, not its own", k.Name, ops[i])
			}
		}
	}
	t.Logf("checked %d replayed kernels against the order match, %d Triton kernels against their own op", checked, triton)
	if checked != 650 || triton == 0 {
		t.Errorf("checked %d kernels (%d Triton); want 650 and some Triton", checked, triton)
	}
}

// An h200Launch is a launch call of the H200 capture that executed
// nothing, with the innermost cpu_op open on its thread when it began
// (op.Name "" where none is) and that op's start, which tells its
// instance.
type h200Launch struct {
	ts      int64
	tid     string
	op      rawEvent
	opStart int64
}

// An h200Kernel is a kernel of the H200 replay.
type h200Kernel struct {
	ts, dur int64
}

// h200Pair reads the H200 capture/replay pair with encoding/json, apart
// from the trace package: the capture's launch calls that executed
// nothing, in time order, and the replay's graph-launched kernels by
// correlation, each launch's in time order. It skips the test when the
// pair is absent.
func h200Pair(t *testing.T) (capPath, repPath string, captured []h200Launch, byLaunch map[int64][]h200Kernel) {
	t.Helper()
	capPath = filepath.Join(gpuTraces, "vit-small_reduce-overhead_b1_capture.pt.trace.json.gz")
	repPath = filepath.Join(gpuTraces, "vit-small_reduce-overhead_b1_flops.pt.trace.json.gz")
	if _, err := os.Stat(capPath); err != nil {
		t.Skipf("%s absent: %v", capPath, err)
	}
	capEv := readRaw(t, capPath)
	executed := map[int64]bool{}
	for _, e := range capEv {
		if e.Cat == "kernel" {
			executed[argInt(e, "correlation")] = true
		}
	}
	for _, e := range capEv {
		if (e.Cat == "cuda_runtime" || e.Cat == "cuda_driver") && e.Ph == "X" &&
			(strings.HasPrefix(e.Name, "cudaLaunchKernel") || strings.HasPrefix(e.Name, "cuLaunchKernel")) && !executed[argInt(e, "correlation")] {
			captured = append(captured, h200Launch{ts: ns(t, e.TS), tid: string(e.TID), opStart: -1})
		}
	}
	slices.SortFunc(captured, func(a, b h200Launch) int { return int(a.ts - b.ts) })
	for i := range captured {
		l := &captured[i]
		for _, e := range capEv {
			if e.Cat != "cpu_op" || e.Ph != "X" || string(e.TID) != l.tid {
				continue
			}
			if s, en := ns(t, e.TS), ns(t, e.TS)+ns(t, e.Dur); s <= l.ts && l.ts < en && s > l.opStart {
				l.opStart, l.op = s, e
			}
		}
	}
	repEv := readRaw(t, repPath)
	graphs := map[int64]bool{}
	for _, e := range repEv {
		if e.Name == "cudaGraphLaunch" {
			graphs[argInt(e, "correlation")] = true
		}
	}
	byLaunch = map[int64][]h200Kernel{}
	for _, e := range repEv {
		if c := argInt(e, "correlation"); e.Cat == "kernel" && graphs[c] {
			byLaunch[c] = append(byLaunch[c], h200Kernel{ns(t, e.TS), ns(t, e.Dur)})
		}
	}
	for _, ks := range byLaunch {
		slices.SortFunc(ks, func(a, b h200Kernel) int { return int(a.ts - b.ts) })
	}
	return capPath, repPath, captured, byLaunch
}
