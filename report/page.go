package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// A RunPage is one run's tables as the HTML report (report/html) lays them
// out: the tables of the text outputs (SummaryTables' parts), so that the
// page and the terminal say the same.
type RunPage struct {
	Heading string   // SummaryTables' title: file, format, GPU model, window, warm-up notes
	Host    []*Table // a trace without GPU activity: its host side
	Devices []DevicePage
	Compile []*Table // torch.compile
	// Drill are the streams, API calls, ranges, ops and regions, each cut
	// to its largest rows.
	Drill []*Table
}

// A DevicePage is one device's part of a RunPage.
type DevicePage struct {
	Name     string // "GPU 0"
	Bound    string // metrics.Verdict's name, or why it names none
	Verdict  string
	Headline *Table
	Idle     *Table // idle time by class
	Findings *Table // nil: none
	// TopKernels is the top kernels (nil: none), KernelNames their whole
	// names by row.
	TopKernels  *Table
	KernelNames []string
	Steps       *Table // nil: fewer than two steps
	WarmupRows  int    // the first rows of Steps that are warm-up steps
	Tables      []*Table
}

// RunPageOf lays out one run: per device the headline and its verdict,
// idle time by class, its findings, the top kernels, the steps with
// warm-up marked, the copies and the idle gaps by length; then the
// run's torch.compile and drill-down tables, each of the latter cut to
// its drillRows largest rows. names is the kernel name style (styleName).
func RunPageOf(s metrics.Summary, names string, drillRows int) RunPage {
	l := Layout{Names: names}
	tables := SummaryTables(s, l)
	run := RunPage{Heading: tables[0].Title}
	if len(s.Devices) == 0 {
		// The first table's title is the heading; its rows, the host
		// side's metrics, are the run's first table.
		host := *tables[0]
		host.Title = ""
		if len(host.Rows) > 0 {
			run.Host = append(run.Host, &host)
		}
		run.Host = append(run.Host, tables[1:]...)
		return run
	}
	model := s.Devices[0].Name
	for _, d := range s.Devices {
		if d.Name != model {
			model = ""
		}
	}
	many := len(s.Devices) > 1
	for i := range s.Devices {
		d := &s.Devices[i]
		dp := DevicePage{Name: fmt.Sprintf("GPU %d", d.Device)}
		if b := metrics.Verdict(d); b != metrics.Unbound {
			dp.Bound = b.String() + "-bound"
		} else {
			dp.Bound, _, _ = strings.Cut(noVerdict(d), ":")
		}
		head := headlineTable(d, model == "")
		dp.Verdict = head.Notes[0] // the findings' lines follow: a table of their own
		head.Notes = nil
		dp.Headline = head
		dp.Idle = idleClassTable(d)
		dp.Findings = deviceFindingsTable(d)
		if t := topKernelsTable(d, many, l); t != nil {
			dp.TopKernels = t
			for _, k := range d.TopKernels {
				dp.KernelNames = append(dp.KernelNames, k.Name)
			}
		}
		suffix := ""
		if many {
			suffix = fmt.Sprintf(" (GPU %d)", d.Device)
		}
		if len(d.Steps) >= 2 {
			dp.Steps = stepStatsTable(d.Steps, d.Util, suffix)
			dp.WarmupRows = min(metrics.WarmupSteps(d.Steps), stepRows/2)
		}
		noSteps := *d
		noSteps.Steps = nil // listed above, with warm-up marked
		dp.Tables = deviceTables(&noSteps, many)
		run.Devices = append(run.Devices, dp)
	}
	run.Compile = compileTables(s, l)
	for _, t := range drillTables(s, l) {
		// Each table is sorted by what it measures, the largest first
		// (streams by id, few): its top rows keep the page's size
		// bounded whatever the trace's.
		if n := len(t.Rows) - drillRows; n > 0 {
			t.Rows = t.Rows[:drillRows]
			t.Notes = append(t.Notes, fmt.Sprintf("%s more not shown: traceql summarize --by lists them all", Format(n, metrics.Count)))
		}
		run.Drill = append(run.Drill, t)
	}
	return run
}

// idleClassTable splits a device's idle time by cause (metrics.ClassifyGaps).
func idleClassTable(d *metrics.DeviceSummary) *Table {
	t := &Table{Title: "idle time by class", Columns: []Column{{Name: "class", Unit: metrics.Text},
		{Name: "idle", Unit: metrics.NS}, {Name: "share of idle", Unit: metrics.Ratio}}}
	for _, c := range []struct {
		name string
		ns   int64
	}{{metrics.GapSync, d.IdleSyncNS}, {metrics.GapLaunch, d.IdleLaunchNS}, {metrics.GapOther, d.IdleOtherNS}} {
		share := 0.0
		if d.IdleNS > 0 {
			share = float64(c.ns) / float64(d.IdleNS)
		}
		t.Rows = append(t.Rows, []any{c.name, c.ns, share})
	}
	if d.ShortLaunchGaps > 0 {
		note := fmt.Sprintf("%s launch time in %s under 1 ms: what CUDA graphs could remove",
			Format(d.ShortLaunchNS, metrics.NS), plural(d.ShortLaunchGaps, "gaps"))
		if d.ShortGraphLaunchNS > 0 {
			note = fmt.Sprintf("%s launch time in %s under 1 ms, %s of it before graph launches: host time between replays, "+
				"which graphs do not remove", Format(d.ShortLaunchNS, metrics.NS), plural(d.ShortLaunchGaps, "gaps"),
				Format(d.ShortGraphLaunchNS, metrics.NS))
		}
		t.Notes = append(t.Notes, note)
	}
	return t
}
