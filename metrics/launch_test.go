package metrics_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

func TestLaunchesRealTraces(t *testing.T) {
	dir := shared.Traces(t)
	tests := []struct {
		file                           string
		launches, graphLaunches, graph int // graph = kernels replayed by graph launches
		syncIdle                       bool
	}{
		{"hta/negative_queue_length_values_check/rank0.json.gz", -1, 70, -1, true}, // has cudaStreamSynchronize calls
		{"kineto/vllm_decode_mi300x_hipgraph.json.gz", 4, 1, 421, false},
		{"hta/triton_example/triton_example.json.gz", 1, 0, 0, false}, // Triton through cuLaunchKernel
		{"hta/critical_path/cuda_event_sync/event_sync_trace.json.gz", 4, 0, 0, true},
		{"hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 79, 0, 0, true},
		{"nsys/nsys2024.2.1_mmagic_pytorch.sqlite", 328, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr, err := trace.Open(context.Background(), filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
			l := d.Launch
			if tt.launches >= 0 && l.Launches != tt.launches || l.GraphLaunches != tt.graphLaunches || tt.graph >= 0 && l.GraphKernels != tt.graph {
				t.Errorf("launches %d, graph launches %d, graph kernels %d; want %d, %d, %d", l.Launches, l.GraphLaunches, l.GraphKernels,
					tt.launches, tt.graphLaunches, tt.graph)
			}
			if tt.graphLaunches > 0 && l.KernelsPerGraphLaunch <= 1 {
				t.Errorf("kernels per graph launch %v, want > 1", l.KernelsPerGraphLaunch)
			}
			if l.StartDelayMedianNS <= 0 {
				t.Errorf("launch latency median %v", l.StartDelayMedianNS)
			}
			if (d.IdleSyncNS > 0) != tt.syncIdle {
				t.Errorf("idle in syncs = %d, want > 0: %v", d.IdleSyncNS, tt.syncIdle)
			}
			if d.IdleLaunchNS+d.IdleSyncNS+d.IdleOtherNS != d.IdleNS {
				t.Errorf("idle by class %d+%d+%d != idle %d", d.IdleLaunchNS, d.IdleSyncNS, d.IdleOtherNS, d.IdleNS)
			}
		})
	}
}

// TestClassifyGaps builds the three kinds of idle time by hand, on two
// devices: a sync claims the time it overlaps, the rest of the gap goes by
// the late-launch rule.
func TestClassifyGaps(t *testing.T) {
	k := func(dev int, start, end, corr int64) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Device: dev, Start: start, End: end, Correlation: corr}, Name: "k"}
	}
	call := func(name string, start, end, corr int64) trace.APICall {
		return trace.APICall{Name: name, PID: 1, TID: 1, Start: start, End: end, Correlation: corr}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}, {ID: 1}},
		Kernels: []trace.Kernel{k(0, 0, 100, 1), k(1, 0, 100, 5), k(0, 200, 300, 2), k(0, 500, 600, 3), k(0, 700, 800, 4), k(1, 700, 800, 6),
			k(0, 900, 1000, 7), k(0, 1100, 1200, 8)},
		APICalls: []trace.APICall{
			call("cudaLaunchKernel", 0, 5, 1),
			call("cudaLaunchKernel", 150, 160, 2),           // began after the GPU went idle at 100: launch
			call("cudaStreamSynchronize", 290, 310, 0),      // 10 ns into the gap [300,500): sync
			call("cudaLaunchKernel", 450, 460, 3),           // late: the other 190 ns are launch
			call("cudaLaunchKernelExC_v11060", 590, 620, 4), // began before the gap [600,700) but still running at 600: launch
			call("cudaLaunchKernel", 880, 890, 8),           // done before the gap [1000,1100) began: other
			call("hipMemcpyWithStream", 820, 900, 0),        // ROCm's .cpu(): 80 ns of the gap [800,900) are sync; before it, launch
			call("cudaLaunchKernel", 850, 860, 7),
		},
		Syncs: []trace.Sync{
			// cudaStreamWaitEvent does not block the host: still launch-bound.
			{Activity: trace.Activity{Start: 120, End: 122}, Kind: "Stream Wait Event"},
			// Another device's sync row: not device 0's cause.
			{Activity: trace.Activity{Device: 1, Start: 610, End: 615}, Kind: "Event Sync"},
		},
	}
	type split struct{ sync, launch, other int64 }
	check := func(want []split, classes string) {
		t.Helper()
		var got []metrics.ClassifiedGap
		dev1 := 0
		for _, g := range metrics.ClassifyGaps(tr) {
			if g.Device == 0 {
				got = append(got, g)
			} else {
				dev1++
			}
		}
		if dev1 != 1 {
			t.Errorf("%d gaps on device 1, want 1", dev1)
		}
		if len(got) != len(want) {
			t.Fatalf("%d gaps on device 0, want %d", len(got), len(want))
		}
		var cs []string
		for i, g := range got {
			if s := (split{g.SyncNS, g.LaunchNS, g.OtherNS}); s != want[i] {
				t.Errorf("gap %v: sync/launch/other %v, want %v", g.Interval, s, want[i])
			}
			cs = append(cs, g.Class())
		}
		if s := strings.Join(cs, " "); s != classes {
			t.Errorf("classes %s, want %s", s, classes)
		}
	}
	check([]split{{0, 100, 0}, {10, 190, 0}, {0, 100, 0}, {80, 20, 0}, {0, 0, 100}}, "launch launch launch sync other")
	// A host synchronization row of device 0 in [600,700) claims 5 ns.
	tr.Syncs = append(tr.Syncs, trace.Sync{Activity: trace.Activity{Start: 610, End: 615}, Kind: "Event Sync"})
	check([]split{{0, 100, 0}, {10, 190, 0}, {5, 95, 0}, {80, 20, 0}, {0, 0, 100}}, "launch launch launch sync other")
}

func TestKernelStacks(t *testing.T) {
	op := func(name string, kind trace.OpKind, s, e int64) trace.Op {
		return trace.Op{Name: name, Kind: kind, PID: 1, TID: 1, Start: s, End: e}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Kernels: []trace.Kernel{
			{Activity: trace.Activity{Start: 100, End: 110, Correlation: 1}, Name: "k1"},
			{Activity: trace.Activity{Start: 110, End: 113, Correlation: 3}, Name: "k1"}, // same stack, another call
			{Activity: trace.Activity{Start: 120, End: 150, Correlation: 2}, Name: "g1"},
			{Activity: trace.Activity{Start: 150, End: 160, Correlation: 2}, Name: "g2"},
			{Activity: trace.Activity{Start: 200, End: 205, Correlation: 9}, Name: "orphan"},
		},
		APICalls: []trace.APICall{
			{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 12, End: 14, Correlation: 1},
			{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 16, End: 18, Correlation: 3},
			{Name: "cudaGraphLaunch", PID: 1, TID: 1, Start: 40, End: 45, Correlation: 2},
		},
		Ops: []trace.Op{ // parent and child start together; sorted as finish() does (shorter first)
			op("aten::mm", trace.CPUOp, 10, 20),
			op("train.py(3): step", trace.PythonFunction, 10, 50),
			op("ProfilerStep#1", trace.UserAnnotation, 0, 100),
		},
	}
	samples := metrics.KernelStacks(tr)
	if !slices.IsSortedFunc(samples, func(a, b metrics.StackSample) int { return slices.Compare(a.Stack, b.Stack) }) {
		t.Errorf("samples not sorted by stack: %v", samples)
	}
	got := map[string]metrics.StackSample{}
	for _, s := range samples {
		got[s.Stack[len(s.Stack)-1]] = s
	}
	if len(got) != len(samples) {
		t.Errorf("%d samples for %d kernel names: %v", len(samples), len(got), samples)
	}
	// The step is no frame but the sample's Step.
	want := map[string]string{
		"k1":     "ProfilerStep#1: train.py(3): step > aten::mm > cudaLaunchKernel > k1",
		"g1":     "ProfilerStep#1: train.py(3): step > cudaGraphLaunch > g1",
		"g2":     "ProfilerStep#1: train.py(3): step > cudaGraphLaunch > g2",
		"orphan": ": " + metrics.NoLaunch + " > orphan",
	}
	for k, w := range want {
		if s := got[k].Step + ": " + strings.Join(got[k].Stack, " > "); s != w {
			t.Errorf("%s: %s, want %s", k, s, w)
		}
	}
	if got["g1"].GPUNS != 30 || got["k1"].Kernels != 2 || got["k1"].GPUNS != 13 {
		t.Errorf("values: %+v", got)
	}
}

// TestKernelStacksAnyByte keeps apart two stacks that are the same frames
// joined by NUL: a name may hold any byte.
func TestKernelStacksAnyByte(t *testing.T) {
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Kernels: []trace.Kernel{
			{Activity: trace.Activity{Start: 100, End: 110, Correlation: 1}, Name: "k"},
			{Activity: trace.Activity{Start: 110, End: 130, Correlation: 2}, Name: "k"},
		},
		APICalls: []trace.APICall{
			{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 12, End: 14, Correlation: 1},
			{Name: "cudaLaunchKernel", PID: 1, TID: 2, Start: 12, End: 14, Correlation: 2},
		},
		Ops: []trace.Op{
			{Name: "a\x00b", Kind: trace.CPUOp, PID: 1, TID: 1, Start: 10, End: 20},
			{Name: "a", Kind: trace.CPUOp, PID: 1, TID: 2, Start: 10, End: 20},
			{Name: "b", Kind: trace.CPUOp, PID: 1, TID: 2, Start: 11, End: 19},
		},
	}
	samples := metrics.KernelStacks(tr)
	if len(samples) != 2 {
		t.Fatalf("%d samples, want 2: %v", len(samples), samples)
	}
	for _, s := range samples {
		if s.Kernels != 1 {
			t.Errorf("%q: %d kernels, want 1", s.Stack, s.Kernels)
		}
	}
}

// TestKernelStacksSteps: a ProfilerStep#N range becomes the sample's Step,
// so one stack in two steps is two samples of one stack, in step order;
// other annotations, and a name that only starts like a step, stay frames.
func TestKernelStacksSteps(t *testing.T) {
	op := func(name string, s, e int64) trace.Op {
		return trace.Op{Name: name, Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: s, End: e}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Kernels: []trace.Kernel{
			{Activity: trace.Activity{Start: 100, End: 110, Correlation: 1}, Name: "k"},
			{Activity: trace.Activity{Start: 200, End: 230, Correlation: 2}, Name: "k"},
		},
		APICalls: []trace.APICall{
			{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 12, End: 14, Correlation: 1},
			{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: 62, End: 64, Correlation: 2},
		},
		Ops: []trace.Op{
			op("ProfilerStep#10", 0, 50), op("forward", 10, 20), op("ProfilerStep#x", 11, 19),
			op("ProfilerStep#9", 50, 100), op("forward", 60, 70), op("ProfilerStep#x", 61, 69),
		},
	}
	var got []string
	for _, s := range metrics.KernelStacks(tr) {
		got = append(got, fmt.Sprintf("%s: %s %d", s.Step, strings.Join(s.Stack, " > "), s.GPUNS))
	}
	want := []string{
		"ProfilerStep#9: forward > ProfilerStep#x > cudaLaunchKernel > k 30",
		"ProfilerStep#10: forward > ProfilerStep#x > cudaLaunchKernel > k 10",
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
