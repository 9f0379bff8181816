package metrics_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestCopyBoundRealRun: the shared traces' copy-bound run (a CUDA vector
// add over 4 streams on an RTX 4060 Ti, its host memory pinned: Nsight
// 2026.1) reads copy, its H2D copies exposed longer than its D2H ones,
// and its kernels' time under 1 % of the span.
func TestCopyBoundRealRun(t *testing.T) {
	path := filepath.Join(shared.Traces(t), "nsys", "nsys2026.1.1_testcuda_streams.sqlite")
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	if len(s.Devices) != 1 {
		t.Fatalf("%d devices, want 1", len(s.Devices))
	}
	d := &s.Devices[0]
	c := d.Classes
	if b := metrics.Verdict(d); b != metrics.CopyBound {
		t.Errorf("bound %v, want copy (copies exposed %d of %d ns)", b, c.CopyNS(), d.SpanNS)
	}
	if c[metrics.ClassH2D] <= c[metrics.ClassD2H] || c[metrics.ClassD2H] == 0 {
		t.Errorf("H2D exposed %d ns, D2H %d ns: want both, H2D the larger", c[metrics.ClassH2D], c[metrics.ClassD2H])
	}
	if k := c[metrics.ClassCompute] + c[metrics.ClassComm]; 100*k >= d.SpanNS {
		t.Errorf("kernels %d ns of a %d ns span: want under 1 %%", k, d.SpanNS)
	}
}

// TestPageableCopyPair: in the controlled pair of testdata/gpu, copying
// the input from pinned memory (after) instead of pageable (before)
// leaves under half the exposed H2D time, and no run of the pair reads
// copy: their copies stay under half the span.
func TestPageableCopyPair(t *testing.T) {
	h2d := map[string]int64{}
	for _, side := range []string{"before", "after"} {
		path := filepath.Join(gpuTraces, "pair-pageable-copy_"+side+".pt.trace.json.gz")
		d := summarizeFile(t, path)
		h2d[side] = d.Classes[metrics.ClassH2D]
		if b := metrics.Verdict(&d); b == metrics.CopyBound {
			t.Errorf("%s: bound copy, with copies exposed %d of %d ns", side, d.Classes.CopyNS(), d.SpanNS)
		}
	}
	if h2d["after"] == 0 || 2*h2d["after"] >= h2d["before"] {
		t.Errorf("exposed H2D: before %d ns, after %d ns; want after under half of before", h2d["before"], h2d["after"])
	}
}

// TestStepHostClasses checks each step's host row on the DataLoader pair
// of testdata/gpu (num_workers 0 and 4) against a walk of the step a run
// of nanoseconds at a time: idle when no kernel, copy or memset runs;
// DataLoader when a host range named enumerate(DataLoader)… is open,
// else optimizer when one named Optimizer.step#… or Optimizer.zero_grad#…
// is, else other. With workers loading ahead, DataLoader time must fall.
func TestStepHostClasses(t *testing.T) {
	dataloader := map[string]int64{}
	for _, side := range []string{"before", "after"} {
		path := filepath.Join(gpuTraces, "pair-dataloader_"+side+".pt.trace.json.gz")
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
		var busy, dl, opt []classed
		busy = append(busy, deviceActivities(tr, d.Device)...)
		for _, op := range tr.Ops {
			switch {
			case op.Kind == trace.GPUAnnotation:
			case strings.HasPrefix(op.Name, "enumerate(DataLoader)"):
				dl = append(dl, classed{op.Start, op.End, 0})
			case strings.HasPrefix(op.Name, "Optimizer.step#"), strings.HasPrefix(op.Name, "Optimizer.zero_grad#"):
				opt = append(opt, classed{op.Start, op.End, 0})
			}
		}
		if len(d.Steps) == 0 || len(dl) == 0 || len(opt) == 0 {
			t.Fatalf("%s: %d steps, %d DataLoader and %d optimizer ranges", side, len(d.Steps), len(dl), len(opt))
		}
		for _, st := range d.Steps {
			edges := []int64{st.Start, st.End}
			for _, set := range [][]classed{busy, dl, opt} {
				for _, a := range set {
					if a.end > st.Start && a.start < st.End {
						edges = append(edges, max(a.start, st.Start), min(a.end, st.End))
					}
				}
			}
			slices.Sort(edges)
			edges = slices.Compact(edges)
			open := func(set []classed, ns int64) bool {
				for _, a := range set {
					if a.start <= ns && ns < a.end {
						return true
					}
				}
				return false
			}
			var want metrics.HostClasses
			for i := 0; i+1 < len(edges); i++ {
				ns := edges[i]
				switch {
				case open(busy, ns):
				case open(dl, ns):
					want[metrics.HostDataLoader] += edges[i+1] - ns
				case open(opt, ns):
					want[metrics.HostOptimizer] += edges[i+1] - ns
				default:
					want[metrics.HostOther] += edges[i+1] - ns
				}
			}
			if st.Host != want || want[0]+want[1]+want[2] != st.IdleNS {
				t.Errorf("%s step %d: host %v, walk %v, idle %d", side, st.Number, st.Host, want, st.IdleNS)
			}
			dataloader[side] += st.Host[metrics.HostDataLoader]
		}
	}
	if 2*dataloader["after"] >= dataloader["before"] {
		t.Errorf("idle in DataLoader: %d ns with 0 workers, %d with 4; want under half with 4", dataloader["before"], dataloader["after"])
	}
}
