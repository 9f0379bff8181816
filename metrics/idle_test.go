package metrics_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// bruteIdle classifies every idle nanosecond of the generated trace tr one
// at a time, from what the generator wrote rather than what the reader
// read: busy when a kernel runs; else sync when a blocking call or a
// device sync record other than a stream wait is in progress; else launch
// when the call that launched the kernel ending its gap began after the
// gap did, or was still running when it began; else other.
func bruteIdle(tr synth.IdleTrace) idleWalk {
	var busy, blocked [][2]int64
	for _, k := range tr.Kernels {
		busy = append(busy, [2]int64{k.Start, k.End})
	}
	calls := map[int64]synth.IdleCall{}
	for _, c := range tr.Calls {
		calls[c.Corr] = c
		if c.Blocking {
			blocked = append(blocked, [2]int64{c.Start, c.End})
		}
	}
	for _, s := range tr.Syncs {
		if !strings.HasPrefix(s.Kind, "Stream Wait") {
			blocked = append(blocked, [2]int64{s.Start, s.End})
		}
	}
	return walkIdle(busy, blocked, func(start, end int64) (late, graph bool) {
		for _, k := range tr.Kernels { // the kernel starting at the gap's end (one: starts are distinct)
			if c, ok := calls[k.Corr]; ok && k.Start == end {
				return c.Start > start || c.End > start, c.Graph
			}
		}
		return false, false
	})
}

// idleWalk is what walkIdle counts: idle nanoseconds by class, and the
// launch time of gaps under 1 ms, all and those waiting on a graph launch.
type idleWalk struct {
	sync, launch, other     int64
	shortLaunch, shortGraph int64
}

// walkIdle classes each nanosecond from the first busy start to the last
// busy end: busy, else sync when blocked, else launch when late says so of
// its gap [start, end), else other. A gap's launch time counts as short
// when the gap is under 1 ms, and as graph too when late says the late
// call was a graph launch.
func walkIdle(busy, blocked [][2]int64, late func(start, end int64) (late, graph bool)) idleWalk {
	lo, hi := busy[0][0], busy[0][1]
	for _, b := range busy {
		lo, hi = min(lo, b[0]), max(hi, b[1])
	}
	n := hi - lo
	isBusy, isBlocked := make([]bool, n), make([]bool, n)
	mark := func(b []bool, ivs [][2]int64) {
		for _, iv := range ivs {
			for x := max(iv[0], lo); x < min(iv[1], hi); x++ {
				b[x-lo] = true
			}
		}
	}
	mark(isBusy, busy)
	mark(isBlocked, blocked)
	var w idleWalk
	for x := int64(0); x < n; {
		if isBusy[x] {
			x++
			continue
		}
		g := x
		for x < n && !isBusy[x] {
			x++
		}
		l, graph := late(lo+g, lo+x)
		var launch int64
		for u := g; u < x; u++ {
			switch {
			case isBlocked[u]:
				w.sync++
			case l:
				launch++
			default:
				w.other++
			}
		}
		w.launch += launch
		if x-g < 1e6 {
			w.shortLaunch += launch
			if graph {
				w.shortGraph += launch
			}
		}
	}
	return w
}

// writeIdle writes the trace cfg describes to a file and reads it back.
func writeIdle(t *testing.T, cfg synth.IdleConfig) (synth.IdleTrace, *trace.Trace) {
	t.Helper()
	var buf bytes.Buffer
	gen, err := synth.WriteIdle(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "idle.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return gen, tr
}

// TestIdleAgainstBruteForce writes generated traces with known syncs,
// late launches, graph replays, unrecorded launches and communication
// kernels, reads them back, and checks every class total and the launch
// numbers against the generator's events.
func TestIdleAgainstBruteForce(t *testing.T) {
	var graphWaits int // seeds whose short launch time waits on graph launches and on eager ones
	for seed := int64(1); seed <= 12; seed++ {
		cfg := synth.IdleConfig{Seed: seed, Launches: 150 + int(seed)*10, GraphLaunches: int(seed % 4), FanOut: 3 + int(seed%5), Steps: int(seed % 3)}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			gen, tr := writeIdle(t, cfg)
			s := metrics.Summarize(tr, metrics.Options{})
			if len(s.Devices) != 1 {
				t.Fatalf("%d devices", len(s.Devices))
			}
			d := s.Devices[0]
			w := bruteIdle(gen)
			sync, launch, other := w.sync, w.launch, w.other
			if d.IdleSyncNS != sync || d.IdleLaunchNS != launch || d.IdleOtherNS != other {
				t.Errorf("idle sync/launch/other = %d/%d/%d, brute force %d/%d/%d", d.IdleSyncNS, d.IdleLaunchNS, d.IdleOtherNS, sync, launch, other)
			}
			if d.ShortLaunchNS != w.shortLaunch || d.ShortGraphLaunchNS != w.shortGraph {
				t.Errorf("short launch time %d, before graph launches %d; brute force %d, %d", d.ShortLaunchNS, d.ShortGraphLaunchNS,
					w.shortLaunch, w.shortGraph)
			}
			if w.shortGraph > 0 && w.shortGraph < w.shortLaunch {
				graphWaits++
			}
			if sync == 0 || launch == 0 || other == 0 {
				t.Errorf("a class is empty (%d/%d/%d): the generator should make all three", sync, launch, other)
			}
			// The gaps table sums to the same, gap by gap.
			var gs, gl, gother, gidle int64
			for _, g := range metrics.ClassifyGaps(tr) {
				if g.SyncNS+g.LaunchNS+g.OtherNS != g.Len() {
					t.Errorf("gap %v: %d+%d+%d != %d", g.Interval, g.SyncNS, g.LaunchNS, g.OtherNS, g.Len())
				}
				gs, gl, gother, gidle = gs+g.SyncNS, gl+g.LaunchNS, gother+g.OtherNS, gidle+g.Len()
			}
			if gs != sync || gl != launch || gother != other || gidle != d.IdleNS {
				t.Errorf("gaps table: %d/%d/%d of %d, want %d/%d/%d of %d", gs, gl, gother, gidle, sync, launch, other, d.IdleNS)
			}
			// Launch numbers from the generator's calls.
			eager, graphs, comm := 0, 0, 0
			calls := map[int64]synth.IdleCall{}
			for _, c := range gen.Calls {
				calls[c.Corr] = c
				switch {
				case c.Graph:
					graphs++
				case strings.Contains(c.Name, "LaunchKernel"):
					eager++
				}
			}
			for _, k := range gen.Kernels {
				if k.Comm {
					comm++
				}
			}
			l := d.Launch
			if l.Launches != eager || l.GraphLaunches != graphs || l.GraphKernels != graphs*cfg.FanOut {
				t.Errorf("launches %d, graph launches %d, graph kernels %d; want %d, %d, %d", l.Launches, l.GraphLaunches, l.GraphKernels,
					eager, graphs, graphs*cfg.FanOut)
			}
			if l.KernelsPerLaunch != 1 || graphs > 0 && l.KernelsPerGraphLaunch != float64(cfg.FanOut) {
				t.Errorf("kernels per launch %v, per graph launch %v; want 1, %d", l.KernelsPerLaunch, l.KernelsPerGraphLaunch, cfg.FanOut)
			}
			if d.Comm.Kernels != comm {
				t.Errorf("comm kernels %d, want %d", d.Comm.Kernels, comm)
			}
		})
	}
	if graphWaits == 0 {
		t.Error("no seed has short launch time both before graph launches and before eager ones: the split is untested")
	}
}

// TestStepCopiesChecked: step copies that cover their work are used; copies
// 1 µs long are refused for the CPU projection, with one warning naming the
// share they cover.
func TestStepCopiesChecked(t *testing.T) {
	for _, tiny := range []bool{false, true} {
		gen, tr := writeIdle(t, synth.IdleConfig{Seed: 3, Launches: 400, Steps: 4, TinyStepCopies: tiny})
		s := metrics.Summarize(tr, metrics.Options{})
		steps := s.Devices[0].Steps
		if len(steps) != len(gen.Steps) {
			t.Fatalf("tiny %v: %d steps, want %d", tiny, len(steps), len(gen.Steps))
		}
		warned := 0
		for _, w := range s.Warnings {
			if strings.Contains(w, "gpu_user_annotation") {
				warned++
			}
		}
		for i, st := range steps {
			g := gen.Steps[i]
			switch {
			case !tiny && (st.Source != "gpu" || st.Start != g.CopyStart || st.End != g.CopyEnd):
				t.Errorf("step %d: %s [%d, %d), want the copy [%d, %d)", st.Number, st.Source, st.Start, st.End, g.CopyStart, g.CopyEnd)
			case tiny && (st.Source != "projected" || st.End < g.End):
				t.Errorf("tiny copies: step %d from %s, ending %d; want projected, ending at or after %d", st.Number, st.Source, st.End, g.End)
			}
		}
		if want := map[bool]int{false: 0, true: 1}[tiny]; warned != want {
			t.Errorf("tiny %v: %d warnings about step copies, want %d: %q", tiny, warned, want, s.Warnings)
		}
	}
}

// TestStreamGapsAgainstBruteForce: each stream's gaps, classified alone,
// hold the idle time a nanosecond walk finds between that stream's
// kernels — by class, with every host sync counting for every stream —
// and each gap starts where the stream goes idle.
func TestStreamGapsAgainstBruteForce(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		gen, tr := writeIdle(t, synth.IdleConfig{Seed: seed, Launches: 150, GraphLaunches: int(seed % 3), FanOut: 3, Steps: 2})
		gaps := metrics.ClassifyStreamGaps(tr)
		streams := map[int64]bool{}
		for _, k := range gen.Kernels {
			streams[k.Stream] = true
		}
		if len(streams) < 2 {
			t.Fatalf("seed %d: %d streams; the generator should make two", seed, len(streams))
		}
		for s := range streams {
			sub := gen
			sub.Kernels = nil
			for _, k := range gen.Kernels {
				if k.Stream == s {
					sub.Kernels = append(sub.Kernels, k)
				}
			}
			w := bruteIdle(sub)
			sync, launch, other := w.sync, w.launch, w.other
			var gs, gl, gother int64
			for _, g := range gaps {
				if !g.PerStream {
					t.Fatalf("seed %d: a gap without its stream: %+v", seed, g)
				}
				if g.Stream != s {
					continue
				}
				if g.SyncNS+g.LaunchNS+g.OtherNS != g.Len() {
					t.Errorf("seed %d stream %d gap %v: %d+%d+%d != %d", seed, s, g.Interval, g.SyncNS, g.LaunchNS, g.OtherNS, g.Len())
				}
				ends := false
				for _, k := range sub.Kernels {
					if k.End == g.Start {
						ends = true
					}
					if k.Start < g.End && k.End > g.Start {
						t.Errorf("seed %d stream %d: gap %v overlaps a kernel of the stream %d–%d", seed, s, g.Interval, k.Start, k.End)
					}
				}
				if !ends {
					t.Errorf("seed %d stream %d: gap %v does not start where a kernel of the stream ends", seed, s, g.Interval)
				}
				gs, gl, gother = gs+g.SyncNS, gl+g.LaunchNS, gother+g.OtherNS
			}
			if gs != sync || gl != launch || gother != other {
				t.Errorf("seed %d stream %d: sync/launch/other %d/%d/%d, brute force %d/%d/%d", seed, s, gs, gl, gother, sync, launch, other)
			}
		}
	}
}

// TestStreamGapsReal: on the real Nsight exports and the README's sample,
// each stream's gaps add up to the idle time StreamStats finds for it
// (span − the union of its activity), computed by other code.
func TestStreamGapsReal(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared.Traces(t), "nsys", "*.sqlite"))
	checked := 0
	for _, f := range append(files, "../testdata/sample.pt.trace.json.gz") {
		tr, err := trace.Open(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		type key struct {
			dev    int
			stream int64
		}
		idle := map[key]int64{}
		for _, g := range metrics.ClassifyStreamGaps(tr) {
			idle[key{g.Device, g.Stream}] += g.Len()
		}
		for dev := range metrics.DeviceViews(tr) {
			for _, st := range metrics.StreamStats(tr, dev) {
				if got := idle[key{dev, st.Stream}]; got != st.IdleNS {
					t.Errorf("%s device %d stream %d: gaps add up to %d ns, StreamStats idle %d", filepath.Base(f), dev, st.Stream, got, st.IdleNS)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no stream checked")
	}
}
