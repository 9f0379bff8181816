package metrics_test

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// The busy classes as the brute force knows them, apart from metrics:
// 0 compute, 1 comm, 2 H2D, 3 D2H, 4 other copy, 5 memset, in the
// priority order of the definitions.
var priority = []int{0, 1, 2, 3, 4, 5}

// commWords is the documented name rule for communication kernels
// (metrics.Columns, comm_kernels), written out again.
var commWords = []string{"nccl", "rccl", "allreduce", "allgather", "reducescatter", "alltoall", "sendrecv",
	"multimem", "crossdevicereduce", "symmetricmemory", "symmmem"}

func isComm(name string) bool {
	n := strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(name))
	for _, w := range commWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// A classed interval is one activity of a device and its class.
type classed struct {
	start, end int64
	class      int
}

func deviceActivities(t *trace.Trace, dev int) []classed {
	var out []classed
	for _, k := range t.Kernels {
		if k.Device == dev {
			c := 0
			if isComm(k.Name) {
				c = 1
			}
			out = append(out, classed{k.Start, k.End, c})
		}
	}
	for _, m := range t.Memcpys {
		if m.Device == dev {
			c := 4
			switch m.Kind {
			case trace.HtoD:
				c = 2
			case trace.DtoH:
				c = 3
			}
			out = append(out, classed{m.Start, m.End, c})
		}
	}
	for _, m := range t.Memsets {
		if m.Device == dev {
			out = append(out, classed{m.Start, m.End, 5})
		}
	}
	return out
}

// bruteNS classes every nanosecond of [lo, hi) one at a time: the first
// class in order with an activity running then. It returns the class
// totals and the idle time, in total and inside each window.
func bruteNS(acts []classed, lo, hi int64, order []int, windows []metrics.Interval) (total [7]int64, per [][7]int64) {
	running := make([]uint8, hi-lo) // bit c: class c runs
	for _, a := range acts {
		for ns := a.start; ns < a.end; ns++ {
			running[ns-lo] |= 1 << a.class
		}
	}
	classOf := func(ns int64) int {
		if ns < lo || ns >= hi {
			return 6
		}
		for _, c := range order {
			if running[ns-lo]&(1<<c) != 0 {
				return c
			}
		}
		return 6 // idle
	}
	for ns := lo; ns < hi; ns++ {
		total[classOf(ns)]++
	}
	per = make([][7]int64, len(windows))
	for i, w := range windows {
		for ns := w.Start; ns < w.End; ns++ {
			per[i][classOf(ns)]++
		}
	}
	return total, per
}

// bruteSegments is bruteNS a run of nanoseconds at a time: between two
// consecutive starts or ends of activities or windows, every nanosecond
// has the same activities running, so the class of the first stands for
// all. Real traces span seconds, too many nanoseconds to visit.
func bruteSegments(acts []classed, lo, hi int64, order []int, windows []metrics.Interval) (total [7]int64, per [][7]int64) {
	edges := []int64{lo, hi}
	for _, a := range acts {
		edges = append(edges, a.start, a.end)
	}
	for _, w := range windows {
		edges = append(edges, w.Start, w.End)
	}
	slices.Sort(edges)
	edges = slices.Compact(edges)
	running := make([]uint8, len(edges)) // by segment [edges[i], edges[i+1])
	for _, a := range acts {
		i, _ := slices.BinarySearch(edges, a.start)
		for ; edges[i] < a.end; i++ {
			running[i] |= 1 << a.class
		}
	}
	classOf := func(i int) int {
		if edges[i] < lo || edges[i] >= hi {
			return 6
		}
		for _, c := range order {
			if running[i]&(1<<c) != 0 {
				return c
			}
		}
		return 6
	}
	per = make([][7]int64, len(windows))
	for i := 0; i+1 < len(edges); i++ {
		n, c := edges[i+1]-edges[i], classOf(i)
		if edges[i] >= lo && edges[i] < hi {
			total[c] += n
		}
		for j, w := range windows {
			if edges[i] >= w.Start && edges[i+1] <= w.End {
				per[j][c] += n
			}
		}
	}
	return total, per
}

type bruteFunc func(acts []classed, lo, hi int64, order []int, windows []metrics.Interval) ([7]int64, [][7]int64)

// checkClasses compares every device's classes and its steps' with the
// brute force in the given priority order, and returns the mismatches.
func checkClasses(tr *trace.Trace, brute bruteFunc, order []int) (mismatches []string, devices int) {
	s := metrics.Summarize(tr, metrics.Options{})
	for _, d := range s.Devices {
		devices++
		var windows []metrics.Interval
		for _, st := range d.Steps {
			windows = append(windows, metrics.Interval{Start: st.Start, End: st.End})
		}
		total, per := brute(deviceActivities(tr, d.Device), d.StartNS, d.EndNS, order, windows)
		bad := func(format string, a ...any) {
			mismatches = append(mismatches, tr.Source+": "+fmt.Sprintf("GPU %d: ", d.Device)+fmt.Sprintf(format, a...))
		}
		for c := range metrics.NumClasses {
			if d.Classes[c] != total[c] {
				bad("%s %d ns, brute force %d", metrics.ClassNames[c], d.Classes[c], total[c])
			}
		}
		if d.IdleNS != total[6] {
			bad("idle %d, brute force %d", d.IdleNS, total[6])
		}
		if d.Classes.BusyNS() != d.BusyNS || d.BusyNS+d.IdleNS != d.SpanNS {
			bad("classes %d + idle %d, busy %d, span %d", d.Classes.BusyNS(), d.IdleNS, d.BusyNS, d.SpanNS)
		}
		if d.Classes[metrics.ClassCompute] != d.Comm.ComputeNS {
			bad("compute class %d, compute_ns %d", d.Classes[metrics.ClassCompute], d.Comm.ComputeNS)
		}
		for i, st := range d.Steps {
			for c := range metrics.NumClasses {
				if st.Classes[c] != per[i][c] {
					bad("step %d: %s %d ns, brute force %d", st.Number, metrics.ClassNames[c], st.Classes[c], per[i][c])
				}
			}
			// Idle inside the step: the step may reach outside the span.
			if st.Classes.BusyNS() != st.BusyNS || st.BusyNS+st.IdleNS != st.DurNS() {
				bad("step %d: classes %d, busy %d, idle %d, length %d", st.Number, st.Classes.BusyNS(), st.BusyNS, st.IdleNS, st.DurNS())
			}
		}
	}
	return mismatches, devices
}

// synthClasses writes a generated trace with overlapping compute and
// communication kernels, copies of every kind and memsets on several
// streams of two devices, and reads it.
func synthClasses(t *testing.T, seed int64) *trace.Trace {
	t.Helper()
	path := filepath.Join(t.TempDir(), "classes.json")
	if _, err := synth.WriteFile(path, synth.Config{Seed: seed, Devices: 2, Streams: 4, Steps: 4, KernelsPerStep: 24}, false); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestBusyClassesSynth checks every busy class, per device and per step,
// against a walk of every nanosecond of generated traces.
func TestBusyClassesSynth(t *testing.T) {
	present := [metrics.NumClasses]bool{}
	for seed := range int64(3) {
		tr := synthClasses(t, seed+1)
		bad, n := checkClasses(tr, bruteNS, priority)
		for _, b := range bad {
			t.Error(b)
		}
		if n != 2 {
			t.Errorf("seed %d: %d devices checked, want 2", seed+1, n)
		}
		for _, d := range metrics.Summarize(tr, metrics.Options{}).Devices {
			for c, v := range d.Classes {
				present[c] = present[c] || v > 0
			}
		}
	}
	for c, ok := range present {
		if !ok {
			t.Errorf("no generated trace has exposed %s time: the check does not cover it", metrics.ClassNames[c])
		}
	}
}

// TestBusyClassesPriorityMatters is the mutation check: the brute force
// with any two neighbours of the priority order swapped disagrees with
// the summary on the generated traces, so the test above would fail if
// the code's order were not the documented one.
func TestBusyClassesPriorityMatters(t *testing.T) {
	var trs []*trace.Trace
	for seed := range int64(3) {
		trs = append(trs, synthClasses(t, seed+1))
	}
	for i := 0; i+1 < len(priority); i++ {
		order := slices.Clone(priority)
		order[i], order[i+1] = order[i+1], order[i]
		caught := 0
		for _, tr := range trs {
			bad, _ := checkClasses(tr, bruteSegments, order)
			caught += len(bad)
		}
		if caught == 0 {
			t.Errorf("order %v (%s and %s swapped): the brute force agrees with the summary", order,
				metrics.ClassNames[priority[i]], metrics.ClassNames[priority[i+1]])
		}
	}
}

// realTraceFiles lists the shared real traces with GPU activity (those of
// reference.csv) and the project's own GPU recordings.
func realTraceFiles(t *testing.T) []string {
	dir := shared.Traces(t)
	f, err := os.Open(filepath.Join(dir, "reference.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows[1:] {
		if p := filepath.Join(dir, r[0]); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	own, _ := filepath.Glob(filepath.Join(gpuTraces, "*.pt.trace.json.gz"))
	return append(out, own...)
}

// TestBusyClassesRealTraces checks the classes of every real trace, per
// device and per step, against the brute force a run of nanoseconds at a
// time.
func TestBusyClassesRealTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every real trace")
	}
	checked := 0
	for _, path := range realTraceFiles(t) {
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		bad, n := checkClasses(tr, bruteSegments, priority)
		for _, b := range bad[:min(len(bad), 10)] {
			t.Error(b)
		}
		checked += n
	}
	if checked == 0 {
		t.Fatal("no device checked")
	}
	t.Logf("%d devices checked", checked)
}

// union returns the length of the union of intervals, by sorting and
// merging: the arithmetic of the issue, apart from metrics' code.
func union(ivs ...[]classed) int64 {
	var all []classed
	for _, x := range ivs {
		all = append(all, x...)
	}
	slices.SortFunc(all, func(a, b classed) int { return cmp.Compare(a.start, b.start) })
	var n, end int64
	started := false
	for _, a := range all {
		switch {
		case !started || a.start > end:
			n += a.end - a.start
			end, started = a.end, true
		case a.end > end:
			n += a.end - end
			end = a.end
		}
	}
	return n
}

// TestBusyClassesUnionArithmetic checks the classes of every real trace,
// the project's new GPU recordings among them, by union arithmetic:
// compute = |C|, comm = |C∪M| − |C|, H2D = |C∪M∪H| − |C∪M|, and so on to
// memsets = |C∪M∪P∪S| − |C∪M∪P| with P the copies.
func TestBusyClassesUnionArithmetic(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every real trace")
	}
	checked := 0
	for _, path := range realTraceFiles(t) {
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range metrics.Summarize(tr, metrics.Options{}).Devices {
			by := make([][]classed, 6)
			for _, a := range deviceActivities(tr, d.Device) {
				by[a.class] = append(by[a.class], a)
			}
			prev := int64(0)
			for c := range 6 {
				u := union(by[:c+1]...)
				if got := d.Classes[c]; got != u-prev {
					t.Errorf("%s GPU %d: %s %d ns, union arithmetic %d", path, d.Device, metrics.ClassNames[c], got, u-prev)
				}
				prev = u
			}
			if prev != d.BusyNS {
				t.Errorf("%s GPU %d: union of all %d, busy_ns %d", path, d.Device, prev, d.BusyNS)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no device checked")
	}
}

// TestBusyClassesEmptyClasses checks the split against the brute force on
// one device with each of the 64 sets of classes present: a class cut by
// empty classes only is its own union, and one cut after skipped classes
// must not read the buffer it writes.
func TestBusyClassesEmptyClasses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for set := range 1 << metrics.NumClasses {
		tr := &trace.Trace{Devices: []trace.Device{{ID: 0}}}
		for c := range metrics.NumClasses {
			if set&(1<<c) == 0 {
				continue
			}
			for range 40 {
				start := r.Int64N(10_000)
				a := trace.Activity{Stream: int64(c), Start: start, End: start + r.Int64N(300)}
				switch c {
				case 0, 1:
					name := "gemm"
					if c == 1 {
						name = "ncclKernel_AllReduce"
					}
					tr.Kernels = append(tr.Kernels, trace.Kernel{Activity: a, Name: name})
				case 2, 3, 4:
					tr.Memcpys = append(tr.Memcpys, trace.Memcpy{Activity: a, Kind: []trace.CopyKind{trace.HtoD, trace.DtoH, trace.DtoD}[c-2]})
				case 5:
					tr.Memsets = append(tr.Memsets, trace.Memset{Activity: a})
				}
			}
		}
		byStart := func(a, b trace.Activity) int { return cmp.Compare(a.Start, b.Start) }
		slices.SortFunc(tr.Kernels, func(a, b trace.Kernel) int { return byStart(a.Activity, b.Activity) })
		slices.SortFunc(tr.Memcpys, func(a, b trace.Memcpy) int { return byStart(a.Activity, b.Activity) })
		slices.SortFunc(tr.Memsets, func(a, b trace.Memset) int { return byStart(a.Activity, b.Activity) })
		tr.Source = fmt.Sprintf("classes %06b", set)
		bad, n := checkClasses(tr, bruteNS, priority)
		for _, b := range bad {
			t.Error(b)
		}
		if want := min(set, 1); n != want {
			t.Errorf("%s: %d devices checked, want %d", tr.Source, n, want)
		}
	}
}
