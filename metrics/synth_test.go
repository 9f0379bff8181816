package metrics_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestGroundTruth reads generated traces, whose numbers are known by
// construction, through the reader and metrics: every container, both eras,
// gzip, several devices and streams, graph launches.
func TestGroundTruth(t *testing.T) {
	var configs []synth.Config
	for seed := int64(1); seed <= 3; seed++ {
		for _, era := range []synth.Era{synth.Modern, synth.Era2021} {
			for _, c := range []synth.Container{synth.Object, synth.ObjectAfter, synth.Array} {
				configs = append(configs, synth.Config{Seed: seed, Devices: int(seed), Streams: 3, Steps: 3,
					KernelsPerStep: 20, GraphLaunches: 2, Era: era, Container: c, PythonEvents: 2, Rank: int(seed) + 4, WorldSize: 8})
			}
		}
	}
	for i, cfg := range configs {
		gz := i%2 == 0
		t.Run(fmt.Sprintf("seed%d-era%d-container%d-gz%v", cfg.Seed, cfg.Era, cfg.Container, gz), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "t.json")
			truth, err := synth.WriteFile(path, cfg, gz)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := trace.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Warnings) > 0 {
				t.Errorf("warnings: %v", tr.Warnings)
			}
			if tr.Meta.Rank != truth.Rank {
				t.Errorf("rank = %d, want %d", tr.Meta.Rank, truth.Rank)
			}
			if tr.Meta.Events != truth.Events {
				t.Errorf("events = %d, want %d", tr.Meta.Events, truth.Events)
			}
			if len(tr.Kernels) != truth.Kernels || len(tr.Memcpys) != truth.Memcpys || len(tr.Memsets) != truth.Memsets || len(tr.APICalls) != truth.APICalls {
				t.Errorf("kernels/memcpys/memsets/calls = %d/%d/%d/%d, want %d/%d/%d/%d", len(tr.Kernels), len(tr.Memcpys), len(tr.Memsets),
					len(tr.APICalls), truth.Kernels, truth.Memcpys, truth.Memsets, truth.APICalls)
			}
			s := metrics.Summarize(tr, metrics.Options{})
			if len(s.Devices) != len(truth.Devices) {
				t.Fatalf("%d devices, want %d", len(s.Devices), len(truth.Devices))
			}
			for i, w := range truth.Devices {
				d := s.Devices[i]
				got := []any{d.Device, d.Name, d.Streams, d.Kernels, d.KernelNS, d.KernelMinNS, d.KernelMaxNS, d.KernelMedianNS, d.KernelBusyNS,
					d.StartNS, d.EndNS, d.SpanNS, d.BusyNS, d.IdleNS, d.IdleGaps, d.LargestGapNS,
					d.H2D.Copies, d.H2D.Bytes, d.H2D.NS, d.D2H.Copies, d.D2H.Bytes, d.D2H.NS, d.Memsets, d.MemsetBytes, d.MemsetNS}
				want := []any{w.Device, w.Name, len(w.Streams), w.Kernels, w.KernelNS, w.KernelMinNS, w.KernelMaxNS, w.KernelMedianNS, w.KernelBusyNS,
					w.FirstNS, w.LastNS, w.SpanNS, w.BusyNS, w.IdleNS, w.IdleGaps, w.LargestGapNS,
					w.H2D.Copies, w.H2D.Bytes, w.H2D.NS, w.D2H.Copies, w.D2H.Bytes, w.D2H.NS, w.Memsets, w.MemsetBytes, w.MemsetNS}
				for j := range got {
					if got[j] != want[j] {
						t.Errorf("device %d field %d: got %v, want %v", w.Device, j, got[j], want[j])
					}
				}
			}
			steps := metrics.Steps(tr)
			if len(steps) != len(truth.Steps) {
				t.Fatalf("%d steps, want %d", len(steps), len(truth.Steps))
			}
			// The trace's windows. Modern: the union over devices of the
			// gpu_user_annotation copies, 1 ns wider on each side than the
			// step's GPU work. 2021 (no copies): the CPU range projected,
			// from its start (or the step before's end) to the later of its
			// end and the end of its GPU work.
			lens := map[int][]float64{} // device → window lengths
			prevEnd := int64(math.MinInt64)
			for i, w := range truth.Steps {
				lo, hi := w.GPU[0].StartNS, w.GPU[0].EndNS
				for _, g := range w.GPU {
					lo, hi = min(lo, g.StartNS), max(hi, g.EndNS)
					if cfg.Era == synth.Modern { // each device its own copy
						lens[g.Device] = append(lens[g.Device], float64(g.EndNS-g.StartNS+2))
					}
				}
				if cfg.Era == synth.Modern {
					lo, hi = lo-1, hi+1
				} else {
					hi = max(w.EndNS, hi)
					lo = max(w.StartNS, prevEnd)
					prevEnd = hi
					for _, g := range w.GPU {
						lens[g.Device] = append(lens[g.Device], float64(hi-lo))
					}
				}
				if got := steps[i]; got.Number != w.Number || got.Start != lo || got.End != hi {
					t.Errorf("step %d: %+v, want [%d, %d]", w.Number, got, lo, hi)
				}
			}
			for _, d := range s.Devices {
				l := lens[d.Device]
				slices.Sort(l)
				n := len(l)
				wantMedian := (l[(n-1)/2] + l[n/2]) / 2
				if len(d.Steps) != n || d.StepMedianNS != wantMedian {
					t.Errorf("device %d: %d steps, median %v; want %d, %v", d.Device, len(d.Steps), d.StepMedianNS, n, wantMedian)
				}
			}
		})
	}
}

// TestSummarizeWorkers: the devices summarized at once do not change the
// summary, whether fewer or more than the devices.
func TestSummarizeWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if _, err := synth.WriteFile(path, synth.Config{Seed: 5, Devices: 4, Streams: 2, Steps: 3, KernelsPerStep: 20, GraphLaunches: 1}, false); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	o := metrics.Options{KernelDists: true, StreamStats: true, APIStats: true, RangeStats: true, Scopes: true}
	one := metrics.Summarize(tr, o)
	if len(one.Devices) != 4 {
		t.Fatalf("%d devices, want 4", len(one.Devices))
	}
	for _, n := range []int{2, 3, 8} {
		o.Workers = n
		if got := metrics.Summarize(tr, o); !reflect.DeepEqual(got, one) {
			t.Errorf("%d workers: the summary differs from one worker's", n)
		}
	}
}
