package metrics

import (
	"testing"

	"github.com/traceql/traceql/trace"
)

// bruteStepIdle classes each idle nanosecond of each step window of t
// (device 0) one at a time, by the rule written out again: busy when any
// GPU work runs; else sync when a blocking call is in progress; else the
// nanosecond's idle stretch (the run of idle nanoseconds around it, within
// the steps' whole extent) is ended by the work starting at its end, and
// the nanosecond is launch when that work's call ends after the stretch
// begins, else other (no work, or a call done before).
func bruteStepIdle(t *trace.Trace, windows []Interval) [][3]int64 {
	lo, hi := windows[0].Start, windows[0].End
	for _, w := range windows {
		lo, hi = min(lo, w.Start), max(hi, w.End)
	}
	busy := func(x int64) bool {
		b := false
		t.EachGPUActivity(func(a *trace.Activity) { b = b || a.Start <= x && x < a.End })
		return b
	}
	calls := map[int64]trace.APICall{}
	for _, c := range t.APICalls {
		calls[c.Correlation] = c
	}
	out := make([][3]int64, len(windows))
	for x := lo; x < hi; x++ {
		if busy(x) {
			continue
		}
		class := 2
		for _, c := range t.APICalls {
			if IsSync(c.Name) && c.Start <= x && x < c.End {
				class = 0
			}
		}
		if class != 0 {
			start, end := x, x
			for start > lo && !busy(start-1) {
				start--
			}
			for end < hi && !busy(end) {
				end++
			}
			t.EachGPUActivity(func(a *trace.Activity) {
				if c, ok := calls[a.Correlation]; ok && a.Start == end && c.End > start {
					class = 1
				}
			})
		}
		for i, w := range windows {
			if w.Start <= x && x < w.End {
				out[i][class]++
			}
		}
	}
	return out
}

// TestStepIdleAgainstBruteForce: three CPU steps, the first opening
// before any GPU work (host time, then a late launch), the second with a
// sync and a gap across its end, the third ending after the last kernel:
// each step's sync, launch and other time against the walk, adding up to
// its idle time.
func TestStepIdleAgainstBruteForce(t *testing.T) {
	b := newBuilder(9)
	k := func(start, end, callStart, callEnd int64) {
		b.kernel("k", start, end, b.call("cudaLaunchKernel", callStart, callEnd))
	}
	b.op("ProfilerStep#1", trace.UserAnnotation, 0, 400)
	k(300, 350, 290, 305) // late: the GPU waits from the step's start
	k(360, 390, 300, 310) // queued: other
	b.op("ProfilerStep#2", trace.UserAnnotation, 400, 800)
	k(420, 500, 400, 430) // late
	b.call("cudaStreamSynchronize", 500, 600)
	k(640, 700, 610, 620) // after the sync: launch wait beyond it
	k(810, 850, 780, 790) // its gap crosses the step's end
	b.op("ProfilerStep#3", trace.UserAnnotation, 800, 1000)
	k(870, 900, 860, 875)
	b.call("cudaDeviceSynchronize", 900, 960) // the step goes on after the last kernel
	tr := b.done(t)
	s := Summarize(tr, Options{})
	d := s.Devices[0]
	if len(d.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(d.Steps))
	}
	var windows []Interval
	for _, st := range d.Steps {
		windows = append(windows, Interval{st.Start, st.End})
	}
	want := bruteStepIdle(tr, windows)
	t.Logf("windows %v, brute force %v", windows, want)
	for i, st := range d.Steps {
		got := [3]int64{st.IdleSyncNS, st.IdleLaunchNS, st.IdleOtherNS}
		if got != want[i] {
			t.Errorf("step #%d %v: sync/launch/other %v, brute force %v", st.Number, windows[i], got, want[i])
		}
		if got[0]+got[1]+got[2] != st.IdleNS {
			t.Errorf("step #%d: %v add up to %d, idle %d", st.Number, got, got[0]+got[1]+got[2], st.IdleNS)
		}
	}
	if windows[0].Start >= tr.Kernels[0].Start || windows[2].End <= tr.Kernels[len(tr.Kernels)-1].End {
		t.Errorf("windows %v: the case wants the first before the first kernel, the last after the last", windows)
	}
	// The device's own idle split is untouched by the stretches outside
	// its span.
	if d.IdleSyncNS+d.IdleLaunchNS+d.IdleOtherNS != d.IdleNS || d.StartNS != 300 {
		t.Errorf("device: %d+%d+%d of %d idle, start %d", d.IdleSyncNS, d.IdleLaunchNS, d.IdleOtherNS, d.IdleNS, d.StartNS)
	}
	// StepStats splits the same way.
	for i, st := range StepStats(tr, 0) {
		if got := [3]int64{st.IdleSyncNS, st.IdleLaunchNS, st.IdleOtherNS}; got != want[i] {
			t.Errorf("StepStats step #%d: %v, brute force %v", st.Number, got, want[i])
		}
	}
}
