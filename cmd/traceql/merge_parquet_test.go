package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// TestSummaryParquetRoundTrip: the summary records written as Parquet read
// back as the same values, integers exact past float64's 2^53, and give
// the same overview text as the summaries.
func TestSummaryParquetRoundTrip(t *testing.T) {
	const big = int64(1)<<62 + 1 // not a float64
	dev := func(id, kernels int, ns int64, util float64, bound bool) metrics.DeviceSummary {
		d := metrics.DeviceSummary{Device: id, Name: "NVIDIA H100 «SXM»", Kernels: kernels, KernelNS: ns, SpanNS: ns, BusyNS: ns / 2, IdleNS: ns - ns/2,
			GPUUtil: util, StepMedianNS: 1.5, Steps: make([]metrics.StepStat, 2), Comm: metrics.CommStat{Kernels: kernels, NS: ns / 3, Overlap: 0.1 + 0.2}}
		if bound {
			d.IdleSyncNS = d.IdleNS
		}
		return d
	}
	sums := []metrics.Summary{
		{Source: "r/rank0.json", Rank: 0, Devices: []metrics.DeviceSummary{dev(0, 3, big, 0.5, true), dev(1, 4, 1e9, 1.0/3, false)}},
		{Source: "r/rank1.json", Rank: -1, Devices: []metrics.DeviceSummary{dev(0, 5, 7, 0.75, false)}},
		{Source: "r/rank2.json", Rank: 2, Devices: []metrics.DeviceSummary{dev(2, 1<<40, 123456789, 0, true)}},
		{Source: "r/rank3.json", Rank: 3, Devices: []metrics.DeviceSummary{dev(0, 1, 0, 0, false)}}, // no span: no utilization
	}
	want := report.SummaryRecords(sums)
	var buf bytes.Buffer
	rw, err := newRowWriter(&buf, "parquet", "summary", want.Columns)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range want.Rows {
		if err := rw.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	if !isParquet(buf.Bytes()) {
		t.Fatalf("the file starts %q", buf.Bytes()[:4])
	}
	got, err := readSummaryParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "part.parquet", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i, r := range want.Rows {
		for j, v := range r {
			g := got.Rows[i][j]
			switch v.(type) {
			case int, int64:
				if _, ok := g.(int64); !ok || report.Raw(g) != report.Raw(v) {
					t.Errorf("row %d %s: %#v, want %#v", i, want.Columns[j].Name, g, v)
				}
			default:
				if g != v {
					t.Errorf("row %d %s: %#v, want %#v", i, want.Columns[j].Name, g, v)
				}
			}
		}
	}
	var a, b bytes.Buffer
	if err := report.WriteText(&a, report.OverviewTable(sums, false)); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteText(&b, report.OverviewOfRecords(got)); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || !strings.Contains(a.String(), "GPUs by bound (see --help): 3 none, 2 sync") {
		t.Errorf("overview of the records:\n%s\nwant\n%s", b.String(), a.String())
	}

	// Another table, or not Parquet at all, is an error naming the file.
	buf.Reset()
	cols, _ := report.ExportColumns("kernel-stats")
	rw, _ = newRowWriter(&buf, "parquet", "kernel-stats", cols)
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := readSummaryParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "stats.parquet", 0); err == nil ||
		!strings.Contains(err.Error(), "stats.parquet: not traceql's summary table") {
		t.Errorf("kernel-stats read as a summary: %v", err)
	}
	if _, err := readSummaryParquet(strings.NewReader("PAR1 but no more"), 16, "bad.parquet", 0); err == nil || !strings.HasPrefix(err.Error(), "bad.parquet: ") {
		t.Errorf("a broken file: %v", err)
	}
}
