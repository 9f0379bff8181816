package metrics

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/traceql/traceql/trace"
)

func TestUnion(t *testing.T) {
	iv := func(s, e int64) Interval { return Interval{s, e} }
	tests := []struct {
		name string
		in   []Interval
		want []Interval
	}{
		{"empty", nil, nil},
		// tb-profiler's golden test (test_profiler.py::test_gpu_utilization).
		{"tb-profiler", []Interval{iv(130, 140), iv(135, 150), iv(150, 150), iv(145, 170), iv(200, 220)},
			[]Interval{iv(130, 170), iv(200, 220)}},
		{"unsorted", []Interval{iv(200, 220), iv(130, 140)}, []Interval{iv(130, 140), iv(200, 220)}},
		{"touching merge", []Interval{iv(0, 10), iv(10, 20)}, []Interval{iv(0, 20)}},
		{"nested", []Interval{iv(0, 100), iv(10, 20), iv(30, 40)}, []Interval{iv(0, 100)}},
		{"lone zero-length", []Interval{iv(0, 10), iv(15, 15), iv(20, 30)}, []Interval{iv(0, 10), iv(15, 15), iv(20, 30)}},
		{"zero-length at edge", []Interval{iv(0, 10), iv(10, 10)}, []Interval{iv(0, 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			got := union(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("union = %v, want %v", got, tt.want)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("union modified its input")
			}
		})
	}
}

// TestMergeInto: merging from the back into the space after a gives what
// a stable sort of both lists, a's first, gives.
func TestMergeInto(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sorted := func(n int) []Interval {
		out := make([]Interval, n)
		for i := range out {
			s := r.Int64N(20)
			out[i] = Interval{s, s + r.Int64N(5)}
		}
		slices.SortFunc(out, byStart)
		return out
	}
	for range 1000 {
		a, b := sorted(r.IntN(8)), sorted(r.IntN(8))
		want := slices.SortedStableFunc(slices.Values(slices.Concat(a, b)), byStart)
		got := mergeInto(slices.Grow(slices.Clone(a), len(b)), b)
		if !slices.Equal(got, want) {
			t.Fatalf("mergeInto(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	merged := []Interval{{0, 10}, {20, 20}, {30, 40}, {50, 50}, {60, 70}}
	tests := []struct {
		w    Interval
		want []Interval
	}{
		{Interval{-10, -5}, nil},
		{Interval{100, 200}, nil},
		{Interval{-10, 100}, merged},
		{Interval{5, 35}, []Interval{{5, 10}, {20, 20}, {30, 35}}},
		{Interval{10, 30}, []Interval{{20, 20}}}, // touching ends add nothing
		{Interval{20, 50}, []Interval{{20, 20}, {30, 40}, {50, 50}}},
		{Interval{21, 49}, []Interval{{30, 40}}},
		{Interval{35, 35}, nil},
	}
	for _, tt := range tests {
		if got := clip(merged, tt.w); !slices.Equal(got, tt.want) {
			t.Errorf("clip(%v) = %v, want %v", tt.w, got, tt.want)
		}
		if got, want := lengthIn(merged, tt.w), length(tt.want); got != want {
			t.Errorf("lengthIn(%v) = %d, want %d", tt.w, got, want)
		}
	}
}

// TestTBProfilerUtilization ports tb-profiler's utilization example: kernel
// busy 60 over the steps window [100,220] gives 0.5.
func TestTBProfilerUtilization(t *testing.T) {
	u := union([]Interval{{130, 140}, {135, 150}, {150, 150}, {145, 170}, {200, 220}})
	if got := length(u); got != 60 {
		t.Fatalf("kernel busy = %d, want 60", got)
	}
	w := Interval{100, 220}
	if got := float64(length(clip(u, w))) / float64(w.Len()); got != 0.5 {
		t.Errorf("utilization = %v, want 0.5", got)
	}
	if got := Gaps(u); !slices.Equal(got, []Interval{{170, 200}}) {
		t.Errorf("gaps = %v", got)
	}
}

func TestMedianPercentile(t *testing.T) {
	tests := []struct {
		in       []int64
		median   float64
		p90, p99 int64
	}{
		{nil, 0, 0, 0},
		{[]int64{5}, 5, 5, 5},
		{[]int64{1, 2}, 1.5, 2, 2},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5.5, 9, 10},
		{[]int64{1<<62 + 1, 1<<62 + 2}, 1<<62 + 1.5, 1<<62 + 2, 1<<62 + 2},
	}
	for _, tt := range tests {
		if got := Median(tt.in); got != tt.median {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.median)
		}
		if got := percentile(tt.in, 90); got != tt.p90 {
			t.Errorf("p90(%v) = %v, want %v", tt.in, got, tt.p90)
		}
		if got := percentile(tt.in, 99); got != tt.p99 {
			t.Errorf("p99(%v) = %v, want %v", tt.in, got, tt.p99)
		}
	}
}

func TestGapHistogram(t *testing.T) {
	h := gapHistogram([]Interval{{0, 999}, {0, 1000}, {0, 5e6}, {0, 2e9}})
	want := map[int64]int{0: 1, 1e3: 1, 1e6: 1, 1e9: 1}
	for _, b := range h {
		if b.Count != want[b.Lo] {
			t.Errorf("bin [%d,%d): %d, want %d", b.Lo, b.Hi, b.Count, want[b.Lo])
		}
	}
}

func TestTimeline(t *testing.T) {
	tr := &trace.Trace{Kernels: []trace.Kernel{
		{Activity: trace.Activity{Start: 0, End: 10}},
		{Activity: trace.Activity{Stream: 1, Start: 5, End: 10}}, // overlaps: counts once
		{Activity: trace.Activity{Start: 25, End: 40}},
	}}
	got := Timeline(tr, 0, 4) // bins of 10 ns over [0,40]
	want := []Point{{0, 10, 1}, {10, 20, 0}, {20, 30, 0.5}, {30, 40, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("Timeline = %v, want %v", got, want)
	}
	// 40 ns in 6 bins: n bins, of 6 or 7 ns, covering the span.
	got = Timeline(tr, 0, 6)
	starts := []int64{0, 6, 13, 20, 26, 33}
	if len(got) != len(starts) {
		t.Fatalf("Timeline of 6 bins = %v", got)
	}
	for i, p := range got {
		if p.StartNS != starts[i] {
			t.Errorf("bin %d starts at %d, want %d", i, p.StartNS, starts[i])
		}
	}
	if got[5].Util != 1 || got[1].Util != 4.0/7 { // [33,40) all busy; [6,13) busy 6..10
		t.Errorf("bins %v", got)
	}
	// A span shorter than n ns: one bin a ns.
	if got := Timeline(tr, 0, 100); len(got) != 40 {
		t.Errorf("40 ns in 100 bins: %d bins, want 40", len(got))
	}
}

func TestOverlapLength(t *testing.T) {
	iv := func(s, e int64) Interval { return Interval{s, e} }
	tests := []struct {
		name string
		a, b []Interval
		want int64
	}{
		{"empty", nil, []Interval{iv(0, 10)}, 0},
		{"disjoint", []Interval{iv(0, 10)}, []Interval{iv(20, 30)}, 0},
		{"touching", []Interval{iv(0, 10)}, []Interval{iv(10, 30)}, 0},
		{"partial", []Interval{iv(0, 10)}, []Interval{iv(5, 30)}, 5},
		{"nested", []Interval{iv(0, 100)}, []Interval{iv(10, 20), iv(30, 40)}, 20},
		{"across", []Interval{iv(0, 10), iv(20, 30), iv(40, 50)}, []Interval{iv(5, 45)}, 5 + 10 + 5},
		{"zero-length", []Interval{iv(5, 5)}, []Interval{iv(0, 10)}, 0},
	}
	for _, tt := range tests {
		if got := overlapLength(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: overlapLength = %d, want %d", tt.name, got, tt.want)
		}
		if got := overlapLength(tt.b, tt.a); got != tt.want {
			t.Errorf("%s, swapped: overlapLength = %d, want %d", tt.name, got, tt.want)
		}
	}
}
