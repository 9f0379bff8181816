package report

import (
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

func TestOverviewTable(t *testing.T) {
	dev := func(id int, kernels int, util float64) metrics.DeviceSummary {
		return metrics.DeviceSummary{Device: id, Kernels: kernels, GPUUtil: util}
	}
	one := metrics.Summary{Source: "a.json", Rank: 0, Devices: []metrics.DeviceSummary{dev(0, 10, 0.5), dev(1, 20, 0.25)}}
	hostOnly := metrics.Summary{Source: "cpu.json", Rank: -1}
	if o := OverviewTable([]metrics.Summary{one, hostOnly}); o != nil {
		t.Errorf("one trace with GPUs (two devices): overview %+v, want none", o)
	}
	two := metrics.Summary{Source: "b.json", Rank: -1, Devices: []metrics.DeviceSummary{dev(3, 30, 0.75)}}
	o := OverviewTable([]metrics.Summary{one, hostOnly, two})
	if o == nil {
		t.Fatal("no overview of two traces")
	}
	// Three rows, then min, median and max; the unknown rank is blank.
	if len(o.Rows) != 6 || o.Rows[2][0] != "b.json" || o.Rows[2][1] != "" || o.Rows[2][2] != 3 {
		t.Fatalf("rows %v", o.Rows)
	}
	kernels := 3 // column
	for i, want := range []float64{10, 20, 30} {
		if o.Rows[3+i][kernels] != want {
			t.Errorf("%v row: kernels %v, want %v", o.Rows[3+i][0], o.Rows[3+i][kernels], want)
		}
	}
	if len(o.Notes) != 1 || !strings.HasPrefix(o.Notes[0], "lowest GPU utilization: a.json GPU 1, 25.0 % (median 50.0 %)") {
		t.Errorf("notes %q", o.Notes)
	}
	if o := OverviewTable([]metrics.Summary{two, two}); o == nil || len(o.Rows) != 2 || len(o.Notes) != 0 {
		t.Errorf("two rows: %+v, want the rows alone", o)
	}
}
