package metrics_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// coveredLen is how much of [start, end) the intervals cover, each met
// on its own and merged here: written apart from metrics' unions.
func coveredLen(start, end int64, by []classed) int64 {
	var parts []classed
	for _, a := range by {
		if a.start < end && a.end > start {
			parts = append(parts, classed{max(a.start, start), min(a.end, end), 0})
		}
	}
	return union(parts)
}

// TestExposedCopyRealTraces: on every real trace, the exposed-copy rule
// fires where the exposed copy time is 1 % of the span or more, with that
// time by union arithmetic (|K∪P| − |K|, K the kernels, P the copies) and
// the copies not wholly under kernels, counted one by one; the shared
// copy-bound run and the pageable pair's before side fire it high.
func TestExposedCopyRealTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every real trace")
	}
	found := map[string]metrics.Finding{}
	checked := 0
	for _, path := range realTraceFiles(t) {
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range metrics.Summarize(tr, metrics.Options{}).Devices {
			var kernels, copies []classed
			for _, a := range deviceActivities(tr, d.Device) {
				switch {
				case a.class <= 1:
					kernels = append(kernels, a)
				case a.class <= 4:
					copies = append(copies, a)
				}
			}
			exposed := union(kernels, copies) - union(kernels)
			n, bytes := 0, int64(0)
			for _, m := range tr.Memcpys {
				if m.Device == d.Device && coveredLen(m.Start, m.End, kernels) < m.End-m.Start {
					n, bytes = n+1, bytes+m.Bytes
				}
			}
			var f metrics.Finding
			for _, x := range d.Findings {
				if x.Rule == "exposed-copy" {
					f = x
				}
			}
			fires := exposed > 0 && 100*float64(exposed) >= float64(d.SpanNS)
			switch {
			case fires != (f.Rule != ""):
				t.Errorf("%s GPU %d: exposed copy %d ns of %d, finding %+v", path, d.Device, exposed, d.SpanNS, f)
			case fires && (f.TimeNS != exposed || f.Count != n || f.Bytes != bytes || f.SavingsNS != exposed):
				t.Errorf("%s GPU %d: exposed-copy %d ns, %d copies, %d B; brute %d ns, %d copies, %d B", path, d.Device,
					f.TimeNS, f.Count, f.Bytes, exposed, n, bytes)
			}
			if f.Rule != "" {
				found[filepath.Base(path)] = f
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no device checked")
	}
	for name, pin := range map[string]bool{"nsys2026.1.1_testcuda_streams.sqlite": false, "pair-pageable-copy_before.pt.trace.json.gz": true} {
		f, ok := found[name]
		if !ok || f.Severity != metrics.High {
			t.Errorf("%s: exposed-copy %+v, want it high", name, f)
			continue
		}
		if strings.Contains(f.Fix, "pin the host memory") != pin || !strings.Contains(f.Evidence, "GB/s one way") {
			t.Errorf("%s: fix %q, evidence %q: want pinning %v and the link's peak", name, f.Fix, f.Evidence, pin)
		}
	}
	// Pinned, the pair's copies run near the link's rate and are a small
	// part of the span: the rule grades them lower and asks no pinning.
	before, after := found["pair-pageable-copy_before.pt.trace.json.gz"], found["pair-pageable-copy_after.pt.trace.json.gz"]
	if after.Rule != "" && (after.Severity >= before.Severity || 2*after.TimeNS >= before.TimeNS || strings.Contains(after.Fix, "pin the host memory")) {
		t.Errorf("pageable pair: after %+v, before %+v", after, before)
	}
	t.Logf("%d devices checked", checked)
}

// TestCopyBoundLinkRate: the copy-bound run's copies against its link
// (an RTX 4060 Ti: PCIe 4.0 x8), their rate taken here from the records.
func TestCopyBoundLinkRate(t *testing.T) {
	path := filepath.Join(shared.Traces(t), "nsys", "nsys2026.1.1_testcuda_streams.sqlite")
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var bytes, ns int64
	for _, m := range tr.Memcpys {
		if m.Kind == trace.HtoD {
			bytes, ns = bytes+m.Bytes, ns+m.End-m.Start
		}
	}
	d := metrics.Summarize(tr, metrics.Options{}).Devices[0]
	peak := 16.0 * 8 * 128 / 130 / 8
	want := "H2D 13.0 GB/s (83 %)"
	if r := float64(bytes) / float64(ns); r < 12.95 || r >= 13.05 || int(100*r/peak+0.5) != 83 {
		t.Fatalf("records: H2D %.3f GB/s, %.1f %% of %.2f; the test wants 13.0 and 83 %%", r, 100*r/peak, peak)
	}
	if got := metrics.LinkText(&d); !strings.HasPrefix(got, want) || !strings.Contains(got, "PCIe 4.0 x8's 15.8 GB/s one way") {
		t.Errorf("link text %q, want %q… of PCIe 4.0 x8's 15.8 GB/s", got, want)
	}
}
