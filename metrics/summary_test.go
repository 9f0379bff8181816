package metrics

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/traceql/traceql/trace"
)

func TestSummarizeHostSelfTime(t *testing.T) {
	tr := &trace.Trace{Ops: []trace.Op{
		{Name: "step", Kind: trace.CPUOp, PID: 1, TID: 1, Start: 0, End: 100},
		{Name: "aten::mm", Kind: trace.CPUOp, PID: 1, TID: 1, Start: 10, End: 40},
		{Name: "aten::add", Kind: trace.CPUOp, PID: 1, TID: 1, Start: 15, End: 25},
		{Name: "aten::mm", Kind: trace.CPUOp, PID: 1, TID: 2, Start: 20, End: 30},
		{Name: "ProfilerStep#1", Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: 0, End: 100},
	}}
	h := Summarize(tr, Options{}).Host
	if h.Ops != 4 {
		t.Fatalf("ops = %d, want 4", h.Ops)
	}
	want := map[string]OpStat{
		"step":      {Name: "step", Count: 1, TotalNS: 100, SelfNS: 70},
		"aten::mm":  {Name: "aten::mm", Count: 2, TotalNS: 40, SelfNS: 30},
		"aten::add": {Name: "aten::add", Count: 1, TotalNS: 10, SelfNS: 10},
	}
	for _, op := range h.TopOps {
		if op != want[op.Name] {
			t.Errorf("%s: got %+v, want %+v", op.Name, op, want[op.Name])
		}
	}
	if h.TopOps[0].Name != "step" {
		t.Errorf("top op %q, want step", h.TopOps[0].Name)
	}
}

func TestSummarizeDevice(t *testing.T) {
	act := func(dev int, s int64, start, end int64) trace.Activity {
		return trace.Activity{Device: dev, Stream: s, Start: start, End: end}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0, Name: "A"}, {ID: 1}, {ID: 2}},
		Kernels: []trace.Kernel{
			{Activity: act(0, 7, 100, 200), Name: "k1"},
			{Activity: act(0, 8, 150, 300), Name: "k2"},
			{Activity: act(1, 7, 100, 110), Name: "k1"},
			{Activity: act(0, 7, 400, 450), Name: "k1"},
		},
		Memcpys: []trace.Memcpy{
			{Activity: act(0, 7, 50, 100), Kind: trace.HtoD, Src: trace.Pinned, Dst: trace.DeviceMem, Bytes: 1000},
			{Activity: act(0, 7, 500, 600), Kind: trace.DtoH, Src: trace.DeviceMem, Dst: trace.Pageable, Bytes: 50},
			{Activity: act(0, 7, 600, 610), Kind: trace.DtoD, Bytes: 7},
		},
	}
	s := Summarize(tr, Options{})
	if len(s.Devices) != 2 {
		t.Fatalf("devices = %d, want 2 (device 2 has no activity)", len(s.Devices))
	}
	d := s.Devices[0]
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("kernels", d.Kernels, 3)
	check("kernel_ns", d.KernelNS, int64(100+150+50))
	check("kernel_busy_ns", d.KernelBusyNS, int64(200+50))
	check("span", d.SpanNS, int64(610-50))
	check("busy", d.BusyNS, int64(250+50+110)) // [50,300] [400,450] [500,610]
	check("idle", d.IdleNS, int64(560-410))
	check("gaps", d.IdleGaps, 2)
	check("largest gap", d.LargestGapNS, int64(100))
	check("median", d.KernelMedianNS, 100.0)
	check("h2d", d.H2D, CopyStat{Kind: "HtoD", Copies: 1, Bytes: 1000, NS: 50, GBps: 20})
	check("d2h bytes", d.D2H.Bytes, int64(50))
	check("copy kinds", len(d.Copies), 3)
	check("streams", d.Streams, 2)
	check("top kernel", d.TopKernels[0].Name, "k1")
	check("top share", d.TopKernels[0].Share, 0.5)
}

// TestDeviceViews: a view holds its device's kernels, copies, memsets and
// syncs alone, in the trace's order, and every host record; a loop may
// stop early.
func TestDeviceViews(t *testing.T) {
	act := func(dev int, start int64) trace.Activity {
		return trace.Activity{Device: dev, Start: start, End: start + 1}
	}
	tr := &trace.Trace{
		Devices:  []trace.Device{{ID: 0}, {ID: 3}, {ID: 5}, {ID: 9}},
		Kernels:  []trace.Kernel{{Activity: act(3, 1)}, {Activity: act(0, 2)}, {Activity: act(3, 3)}, {Activity: act(5, 4)}},
		Memcpys:  []trace.Memcpy{{Activity: act(5, 1)}, {Activity: act(0, 5)}},
		Memsets:  []trace.Memset{{Activity: act(3, 6)}},
		Syncs:    []trace.Sync{{Activity: act(0, 7)}, {Activity: act(9, 8)}},
		Ops:      []trace.Op{{Name: "op"}},
		APICalls: []trace.APICall{{Name: "cudaLaunchKernel"}},
	}
	starts := func(v *trace.Trace) string {
		var b []string
		for _, k := range v.Kernels {
			b = append(b, fmt.Sprint("k", k.Start))
		}
		for _, c := range v.Memcpys {
			b = append(b, fmt.Sprint("c", c.Start))
		}
		for _, m := range v.Memsets {
			b = append(b, fmt.Sprint("m", m.Start))
		}
		for _, s := range v.Syncs {
			b = append(b, fmt.Sprint("s", s.Start))
		}
		return fmt.Sprint(b)
	}
	// Device 9 has a sync alone: no GPU activity, no view.
	want := map[int]string{0: "[k2 c5 s7]", 3: "[k1 k3 m6]", 5: "[k4 c1]"}
	var devs []int
	for dev, v := range DeviceViews(tr) {
		devs = append(devs, dev)
		if got := starts(v); got != want[dev] {
			t.Errorf("device %d: %s, want %s", dev, got, want[dev])
		}
		if len(v.Ops) != 1 || len(v.APICalls) != 1 {
			t.Errorf("device %d: %d ops and %d API calls, want the trace's 1 and 1", dev, len(v.Ops), len(v.APICalls))
		}
	}
	if !slices.Equal(devs, []int{0, 3, 5}) {
		t.Errorf("devices %v, want [0 3 5]", devs)
	}
	n := 0
	for range DeviceViews(tr) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("a loop that breaks at once saw %d views", n)
	}
	// A trace of one device is its own view.
	one := &trace.Trace{Devices: []trace.Device{{ID: 0}}, Kernels: []trace.Kernel{{Activity: act(0, 1)}}}
	for _, v := range DeviceViews(one) {
		if v != one {
			t.Error("the view of a one-device trace is a copy")
		}
	}
}

// TestClipOps holds clipOps equal to clipping every CPU op and sorting
// them all again, on random ops with many ties, in windows that cut them
// at either end or not at all.
func TestClipOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ops := make([]trace.Op, r.IntN(60))
		for i := range ops {
			start := r.Int64N(20)
			ops[i] = trace.Op{Name: fmt.Sprint(i), Kind: trace.OpKind(r.IntN(3)), Start: start, End: start + r.Int64N(10)}
		}
		slices.SortStableFunc(ops, func(a, b trace.Op) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
		})
		orig := slices.Clone(ops)
		w := &trace.Window{Start: r.Int64N(25) - 2, End: r.Int64N(30)}
		var want []trace.Op
		for _, o := range ops {
			if o.Kind == trace.CPUOp && o.End >= w.Start && o.Start <= w.End {
				o.Start, o.End = max(o.Start, w.Start), min(o.End, w.End)
				want = append(want, o)
			}
		}
		slices.SortStableFunc(want, func(a, b trace.Op) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
		})
		if got := clipOps(ops, w); !slices.Equal(got, want) {
			t.Fatalf("window %+v of %v:\n got %v\nwant %v", *w, ops, got, want)
		}
		if !slices.Equal(ops, orig) {
			t.Fatal("clipOps changed its input")
		}
	}
}

// TestSummarizeHostSelfTimeSameStart: an op's self time is its time less
// its children's, also when a child starts at the same ns as its parent
// (ops are sorted by start, then end, so the child comes first), and when
// both have the same span (the caller comes first in the file).
func TestSummarizeHostSelfTimeSameStart(t *testing.T) {
	op := func(name string, start, end int64) trace.Op {
		return trace.Op{Name: name, Kind: trace.CPUOp, PID: 1, TID: 1, Start: start, End: end}
	}
	tr := &trace.Trace{Ops: []trace.Op{ // as a reader leaves them: by start, then end
		{Name: "other thread", Kind: trace.CPUOp, PID: 1, TID: 2, Start: 0, End: 5},
		op("grandchild", 0, 20), op("child", 0, 50), op("parent", 0, 100), op("sibling", 60, 70),
		op("aten::zeros", 80, 90), op("aten::empty", 80, 90), // the same span: the caller first
	}}
	got := map[string]int64{}
	for _, s := range Summarize(tr, Options{}).Host.TopOps {
		got[s.Name] = s.SelfNS
	}
	want := map[string]int64{"parent": 30, "child": 30, "grandchild": 20, "sibling": 10, "other thread": 5, "aten::zeros": 0, "aten::empty": 10}
	if !maps.Equal(got, want) {
		t.Errorf("self times %v, want %v", got, want)
	}
}

// TestStepStatsOverlap: step windows may overlap; a kernel of the device
// counts in every window it starts in, as its busy time does, and none is
// lost when the windows' ends are not in order.
func TestStepStatsOverlap(t *testing.T) {
	k := func(dev int, start int64) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Device: dev, Start: start, End: start + 5}}
	}
	tr := &trace.Trace{Kernels: []trace.Kernel{k(0, 0), k(0, 10), k(1, 20), k(0, 60)}}
	steps := []Step{{Number: 1, Start: 0, End: 100}, {Number: 2, Start: 10, End: 50}}
	got := stepStats(tr, 0, steps, deviceBusy(tr, 0))
	if got[0].Kernels != 3 || got[1].Kernels != 1 {
		t.Errorf("kernels per step %d and %d, want 3 and 1", got[0].Kernels, got[1].Kernels)
	}
	if got[0].BusyNS != 15 || got[1].BusyNS != 5 {
		t.Errorf("busy per step %d and %d, want 15 and 5", got[0].BusyNS, got[1].BusyNS)
	}
}

// TestSummarizeWindow: a clipped trace keeps its host records whole. The
// CPU runs ahead: each step launches a kernel 150 ns after its call, so the
// window of steps 2 and 3 holds kernels launched before it, and step 4's
// host range lies inside it. Steps are projected in the whole trace: step
// 2 runs from step 1's end (250) to its kernel's end (350), so a window
// from 255 holds only a part of it, which is not a step of the window.
func TestSummarizeWindow(t *testing.T) {
	tr := &trace.Trace{Devices: []trace.Device{{ID: 0}}, Streams: []trace.Stream{{Device: 0, ID: 7}}}
	for i := range int64(4) {
		at := 100 * i
		tr.Ops = append(tr.Ops, trace.Op{Name: fmt.Sprintf("ProfilerStep#%d", i+1), Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: at, End: at + 100})
		tr.APICalls = append(tr.APICalls, trace.APICall{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: at + 10, End: at + 15, Correlation: i + 1})
		tr.Kernels = append(tr.Kernels, trace.Kernel{Activity: trace.Activity{Stream: 7, Start: at + 160, End: at + 250, Correlation: i + 1, PID: 1}, Name: "k"})
	}
	tr.Ops = append(tr.Ops, trace.Op{Name: "aten::big", Kind: trace.CPUOp, PID: 1, TID: 2, Start: 0, End: 400})
	slices.SortStableFunc(tr.Ops, func(a, b trace.Op) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })

	both := []Step{{2, 250, 350, "projected"}, {3, 350, 450, "projected"}}
	for _, tt := range []struct {
		name  string
		w     trace.Window
		steps []Step
	}{
		{"--steps 2:3", trace.Window{Start: 250, End: 450, Steps: []int{2, 3}}, both},
		{"--window", trace.Window{Start: 250, End: 455}, both},
		{"--window from inside step 2", trace.Window{Start: 255, End: 455}, both[1:]},
	} {
		s := Summarize(tr.Clip(tt.w), Options{})
		d := s.Devices[0]
		var steps []Step
		for _, st := range d.Steps {
			steps = append(steps, st.Step)
		}
		if !slices.Equal(steps, tt.steps) {
			t.Errorf("%s: steps %v, want %v", tt.name, steps, tt.steps)
		}
		if d.Kernels != 2 || d.Launch.Launches != 2 || d.Launch.StartDelayMedianNS != 150 {
			t.Errorf("%s: %d kernels, %d launches, latency %v; want 2, 2, 150", tt.name, d.Kernels, d.Launch.Launches, d.Launch.StartDelayMedianNS)
		}
		// The host side is clipped to the window: aten::big from its start.
		// (Summarize leaves it out of a trace with GPU activity.)
		if h := summarizeHost(tr.Clip(tt.w), 10); h.Ops != 1 || h.TopOps[0].TotalNS != 400-tt.w.Start {
			t.Errorf("%s: host %+v, want aten::big clipped to the window", tt.name, h)
		}
	}
}

// TestTop: the n first of a full sort, ties in total time included, for n
// below, at and above the number of names.
func TestTop(t *testing.T) {
	var stats []KernelStat
	for i := range 200 {
		stats = append(stats, KernelStat{Name: fmt.Sprintf("k%03d", (i*37)%200), TotalNS: int64(i % 13)})
	}
	sorted := slices.SortedFunc(slices.Values(stats), longestFirst)
	for _, n := range []int{1, 2, 10, 199, 200, 500} {
		want := sorted[:min(n, len(sorted))]
		if got := top(stats, n, longestFirst); !slices.Equal(got, want) {
			t.Errorf("n = %d: %v, want %v", n, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		xs := make([]KernelStat, r.IntN(80))
		for i := range xs {
			xs[i] = KernelStat{Name: fmt.Sprint(i), TotalNS: r.Int64N(8)}
		}
		n := 1 + r.IntN(100)
		sorted := slices.SortedFunc(slices.Values(xs), longestFirst)
		if got, want := top(xs, n, longestFirst), sorted[:min(n, len(sorted))]; !slices.Equal(got, want) {
			t.Fatalf("n = %d of %d: %v, want %v", n, len(xs), got, want)
		}
	}
	if got := top(nil, 10, longestFirst); got != nil {
		t.Errorf("no kernels: %v, want nil", got)
	}
	if got := top(stats, 0, longestFirst); got != nil {
		t.Errorf("n = 0: %v, want nil", got)
	}
}

// TestSummarizeHostOnlyWithoutGPU: the host side is summarized for a trace,
// or a window, without GPU activity, and left out where a GPU ran.
func TestSummarizeHostOnlyWithoutGPU(t *testing.T) {
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Ops:     []trace.Op{{Name: "aten::mm", Kind: trace.CPUOp, PID: 1, TID: 1, Start: 0, End: 100}},
		Kernels: []trace.Kernel{{Activity: trace.Activity{Start: 200, End: 300}, Name: "k"}},
	}
	if h := Summarize(tr, Options{}).Host; h.Ops != 0 || h.TopOps != nil {
		t.Errorf("GPU trace: host %+v, want none", h)
	}
	if h := Summarize(tr.Clip(trace.Window{Start: 0, End: 100}), Options{}).Host; h.Ops != 1 || len(h.TopOps) != 1 {
		t.Errorf("window without GPU activity: host %+v, want aten::mm", h)
	}
}
