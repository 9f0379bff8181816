package metrics_test

import (
	"context"
	"path/filepath"
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
