package report

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

func TestOverviewTable(t *testing.T) {
	dev := func(id int, kernels int, util float64) metrics.DeviceSummary {
		return metrics.DeviceSummary{Device: id, Kernels: kernels, GPUUtil: util, SpanNS: 100}
	}
	one := metrics.Summary{Source: "a.json", Rank: 0, Devices: []metrics.DeviceSummary{dev(0, 10, 0.5), dev(1, 20, 0.25)}}
	hostOnly := metrics.Summary{Source: "cpu.json", Rank: -1}
	if o := OverviewTable([]metrics.Summary{one, hostOnly}, false); o != nil {
		t.Errorf("one trace with GPUs (two devices): overview %+v, want none", o)
	}
	two := metrics.Summary{Source: "b.json", Rank: -1, Devices: []metrics.DeviceSummary{dev(3, 30, 0.75)}}
	o := OverviewTable([]metrics.Summary{one, hostOnly, two}, false)
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
	if len(o.Notes) != 2 || !strings.HasPrefix(o.Notes[0], "lowest GPU utilization: a.json GPU 1, 25.0 % (median 50.0 %)") ||
		o.Notes[1] != "GPUs by bound (see --help): 3 none" {
		t.Errorf("notes %q", o.Notes)
	}
	if o := OverviewTable([]metrics.Summary{two, two}, false); o == nil || len(o.Rows) != 2 || len(o.Notes) != 0 {
		t.Errorf("two rows: %+v, want the rows alone", o)
	}
	for _, c := range o.Columns {
		if c.Name == "median step" || c.Name == "comm time" {
			t.Errorf("a %s column without steps or communication", c.Name)
		}
	}
}

// The median step and the communication columns are listed when some GPU
// has steps or communication, blank for the others and left out of the
// min, median and max.
func TestOverviewTableOptional(t *testing.T) {
	dev := func(id int, steps int, median float64, comm int64) metrics.DeviceSummary {
		d := metrics.DeviceSummary{Device: id, Steps: make([]metrics.StepStat, steps), StepMedianNS: median}
		if comm > 0 {
			d.Comm = metrics.CommStat{Kernels: 1, NS: comm}
		}
		return d
	}
	o := OverviewTable([]metrics.Summary{
		{Source: "a.json", Devices: []metrics.DeviceSummary{dev(0, 3, 100, 0), dev(1, 0, 0, 5)}},
		{Source: "b.json", Devices: []metrics.DeviceSummary{dev(0, 2, 300, 7)}},
		{Source: "c.json", Devices: []metrics.DeviceSummary{dev(0, 1, 400, 0)}},
	}, false)
	column := func(name string) []any {
		i := slices.IndexFunc(o.Columns, func(c Column) bool { return c.Name == name })
		if i < 0 {
			t.Fatalf("no %s column in %v", name, o.Columns)
		}
		var got []any
		for _, r := range o.Rows {
			got = append(got, r[i])
		}
		return got
	}
	// Four rows, then min, median and max.
	if got, want := column("median step"), []any{100.0, "", 300.0, 400.0, 100.0, 300.0, 400.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("median step column %v, want %v", got, want)
	}
	if got, want := column("comm time"), []any{"", int64(5), int64(7), "", 5.0, 6.0, 7.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("comm time column %v, want %v", got, want)
	}
}

// The overview names the GPU with the least communication time when it is
// under half the median: in a data-parallel job, the others wait for a
// straggler inside the collectives.
func TestOverviewTableStraggler(t *testing.T) {
	ranks := func(comm ...int64) []metrics.Summary {
		var sums []metrics.Summary
		for i, c := range comm {
			d := metrics.DeviceSummary{GPUUtil: 0.5, Comm: metrics.CommStat{Kernels: 1, NS: c}}
			sums = append(sums, metrics.Summary{Source: fmt.Sprintf("rank%d.json", i), Rank: i, WorldSize: len(comm), Devices: []metrics.DeviceSummary{d}})
		}
		return sums
	}
	for _, tt := range []struct {
		comm  []int64
		mixed bool   // the straggler is a file of another job
		want  string // the straggler note, "" for none
	}{
		{[]int64{4000, 2000, 900}, false, "least communication time: rank2.json GPU 0, 900 ns (median 2 µs): a straggler the others wait for inside NCCL kernels?"},
		{[]int64{4000, 2000, 900}, true, ""},   // not ranks of one job: nobody waits for it
		{[]int64{4000, 2000, 1000}, false, ""}, // half the median: not under it
		{[]int64{4000, 900}, false, ""},        // two ranks: no median to speak of
	} {
		o := OverviewTable(ranks(tt.comm...), false)
		if tt.mixed {
			sums := ranks(tt.comm...)
			sums[2].WorldSize = 8 // a file of another job
			o = OverviewTable(sums, false)
		}
		var got string
		if i := slices.IndexFunc(o.Notes, func(n string) bool { return strings.HasPrefix(n, "least communication") }); i >= 0 {
			got = o.Notes[i]
		}
		if got != tt.want {
			t.Errorf("communication times %v: note %q, want %q", tt.comm, got, tt.want)
		}
	}
}

// The steps table says when windows overlap, since a kernel then counts in
// two steps.
func TestStepStatsTableOverlap(t *testing.T) {
	step := func(n int, start, end int64) metrics.StepStat {
		return metrics.StepStat{Step: metrics.Step{Number: n, Start: start, End: end, Source: "projected"}}
	}
	overlap := func(tb *Table) bool {
		return slices.ContainsFunc(tb.Notes, func(n string) bool { return strings.HasPrefix(n, "the windows overlap") })
	}
	if tb := stepStatsTable([]metrics.StepStat{step(1, 0, 100), step(2, 100, 200)}, nil, ""); overlap(tb) {
		t.Errorf("touching windows: notes %q", tb.Notes)
	}
	if tb := stepStatsTable([]metrics.StepStat{step(1, 0, 100), step(2, 90, 200)}, nil, ""); !overlap(tb) {
		t.Errorf("overlapping windows: notes %q, want the overlap said", tb.Notes)
	}
}

// TestStepStatsTableLong lists the first and last ten of many steps, and
// counts them all in the aggregates.
func TestStepStatsTableLong(t *testing.T) {
	var steps []metrics.StepStat
	for n := 1; n <= 25; n++ {
		steps = append(steps, metrics.StepStat{Step: metrics.Step{Number: n, Start: int64(n) * 100, End: int64(n)*100 + 50, Source: "gpu"}, Kernels: n})
	}
	tb := stepStatsTable(steps, nil, "")
	var names []string
	for _, r := range tb.Rows {
		names = append(names, r[0].(string))
	}
	want := []string{"#1", "#2", "#3", "#4", "#5", "#6", "#7", "#8", "#9", "#10", "…",
		"#16", "#17", "#18", "#19", "#20", "#21", "#22", "#23", "#24", "#25", "mean", "median", "stdev"}
	if !slices.Equal(names, want) {
		t.Errorf("rows %q, want %q", names, want)
	}
	if mean := tb.Rows[len(tb.Rows)-3][2]; mean != 13.0 { // kernels 1..25
		t.Errorf("mean kernels %v, want 13 (over all 25 steps)", mean)
	}
	if !slices.Contains(tb.Notes, "the 5 steps between #10 and #16 are not listed, but counted in mean, median and stdev; "+
		"export --table steps lists every step") {
		t.Errorf("notes %q, want the 5 steps not listed said", tb.Notes)
	}
	if tb := stepStatsTable(steps[:20], nil, ""); len(tb.Rows) != 23 {
		t.Errorf("20 steps: %d rows, want all 20 and 3 aggregates", len(tb.Rows))
	}
}

// TestSummaryTablesGPUNames: one GPU model is named once, in the title;
// different models are named in their columns.
func TestSummaryTablesGPUNames(t *testing.T) {
	for _, c := range []struct {
		names   []string
		title   string
		headers []string
	}{
		{[]string{"H100", "H100"}, "a.json  (kineto; H100)", []string{"metric", "GPU 0", "GPU 1"}},
		{[]string{"H100", "A100"}, "a.json  (kineto)", []string{"metric", "GPU 0 H100", "GPU 1 A100"}},
		{[]string{"", ""}, "a.json  (kineto)", []string{"metric", "GPU 0", "GPU 1"}},
	} {
		s := metrics.Summary{Source: "a.json", Format: "kineto", Rank: -1}
		for i, n := range c.names {
			s.Devices = append(s.Devices, metrics.DeviceSummary{Device: i, Name: n, Kernels: 1})
		}
		tables := SummaryTables(s, Layout{All: true})
		var all *Table
		for _, tb := range tables {
			if strings.HasPrefix(tb.Title, "every metric") {
				all = tb
			}
		}
		var headers []string
		for _, col := range all.Columns {
			headers = append(headers, col.Name)
		}
		title, _, _ := strings.Cut(tables[0].Title, "\n")
		if title != c.title || !slices.Equal(headers, c.headers) {
			t.Errorf("GPUs %q: title %q, headers %q; want %q, %q", c.names, title, headers, c.title, c.headers)
		}
	}
}

// TestBoundCounts: the overview counts GPUs by verdict, most first, ties
// in the order of the bounds.
func TestBoundCounts(t *testing.T) {
	bound := func(launch, sync int64) metrics.DeviceSummary {
		return metrics.DeviceSummary{SpanNS: 100, IdleNS: 50, IdleLaunchNS: launch, ShortLaunchNS: launch, IdleSyncNS: sync}
	}
	launch, sync, none := bound(50, 0), bound(0, 50), metrics.DeviceSummary{SpanNS: 100}
	sums := []metrics.Summary{
		{Devices: []metrics.DeviceSummary{sync, launch}},
		{Devices: []metrics.DeviceSummary{launch, none}},
		{Devices: []metrics.DeviceSummary{sync, launch}},
		{},
	}
	boundCounts := func(sums []metrics.Summary) string {
		var bounds []string
		for _, s := range sums {
			for i := range s.Devices {
				bounds = append(bounds, metrics.Verdict(&s.Devices[i]).String())
			}
		}
		return boundCounts(bounds)
	}
	if got, want := boundCounts(sums), "3 launch, 2 sync, 1 none"; got != want {
		t.Errorf("boundCounts = %q, want %q", got, want)
	}
	sums[1].Devices[0] = sync
	if got, want := boundCounts(sums), "3 sync, 2 launch, 1 none"; got != want {
		t.Errorf("boundCounts = %q, want %q", got, want)
	}
	sums[0].Devices[1], sums[2].Devices[0] = none, launch
	if got, want := boundCounts(sums), "2 none, 2 launch, 2 sync"; got != want {
		t.Errorf("boundCounts = %q, want %q", got, want)
	}
}
