package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// A Cell is a value with its own unit, for tables whose rows differ in unit
// (a metric per row).
type Cell struct {
	V    any
	Unit metrics.Unit
}

func isZero(v any) bool {
	switch x := v.(type) {
	case int:
		return x == 0
	case int64:
		return x == 0
	case float64:
		return x == 0
	}
	return false
}

// A Layout says how text tables are fitted to where they go.
type Layout struct {
	// NameWidth cuts kernel and op names to that many runes, the end cut
	// (see shortNames); 0 never cuts: files, pipes, Markdown.
	NameWidth int
	// All lists, after each device's headline and top kernels, every
	// metric, the copies by kind, the steps and the idle gaps.
	All bool
	// Names is the style kernel names are written in (styleName); "" is
	// NamesFull.
	Names string
	// Top cuts summarize --by kernel, op and region to that many rows,
	// saying how many there are; 0: every row.
	Top int
}

// cut keeps the first l.Top rows of t, when there are more, with a note
// of how many there are and where every one is.
func (l Layout) cut(t *Table, noun, every string) *Table {
	if l.Top <= 0 || len(t.Rows) <= l.Top {
		return t
	}
	t.Notes = append(t.Notes, fmt.Sprintf("the top %d of %d %s (--top); every one: %s", l.Top, len(t.Rows), noun, every))
	t.Rows = t.Rows[:l.Top]
	return t
}

// minNameWidth is the fewest runes a name is cut to: a name cut to a few
// letters tells nothing, and a line wider than the terminal is the lesser
// harm.
const minNameWidth = 24

// nameWidth is the runes left to the names of a table whose other columns
// take extra more than the top kernels' (about 40), at least minNameWidth;
// 0 when names are never cut.
func (l Layout) nameWidth(extra int) int {
	if l.NameWidth == 0 {
		return 0
	}
	return max(l.NameWidth-extra, minNameWidth)
}

// narrow reports whether the terminal is too narrow for a table of eight
// numbers and a name: under 124 columns.
func (l Layout) narrow() bool { return l.NameWidth > 0 && l.NameWidth < 82 }

// SummaryTables lays out one trace's summary for people, the answer first:
// per device a headline (step time or span, utilization, idle time and its
// cause, kernels, launches, copies) and the top kernels; with l.All, every
// metric of every device side by side in reading order, then copies by
// kind, steps and the idle-gap histogram per device. A trace without GPU
// activity gets its host side instead.
func SummaryTables(s metrics.Summary, l Layout) []*Table {
	title := fmt.Sprintf("%s  (%s", Printable(s.Source), s.Format) // a line of its own
	switch {
	case s.Version == "":
	case s.VersionIsSchema:
		title += ", schema " + s.Version
	default:
		title += " " + s.Version
	}
	if s.Rank >= 0 {
		title += fmt.Sprintf(", rank %d", s.Rank)
	}
	// One GPU model, as in most jobs, is named once in the title: in each
	// column's header, eight GPUs made the table 240 characters wide.
	model := ""
	if len(s.Devices) > 0 {
		model = s.Devices[0].Name
	}
	for _, d := range s.Devices {
		if d.Name != model {
			model = ""
		}
	}
	if model != "" {
		title += "; " + Printable(model)
	}
	title += ")\n  measured: " + windowName(s.Window)
	if len(s.Devices) == 0 {
		return hostTables(s, title)
	}
	if s.Window == "" {
		for _, d := range s.Devices {
			if n := warmupNote(&d); n != "" {
				title += fmt.Sprintf("\n  GPU %d: %s", d.Device, n)
			}
		}
	}
	tables := []*Table{{Title: title}}
	many := len(s.Devices) > 1
	for i := range s.Devices {
		d := &s.Devices[i]
		tables = append(tables, headlineTable(d, model == ""))
		if t := topKernelsTable(d, many, l); t != nil {
			tables = append(tables, t)
		}
	}
	tables = append(tables, compileTables(s, l)...)
	tables = append(tables, compileLogTables(s.CompileLog, l)...)
	tables = append(tables, drillTables(s, l)...)
	if !l.All {
		tables = append(tables, &Table{Notes: []string{"every metric, copies by kind, steps and idle gaps: --all; every column: --format csv"}})
		return tables
	}
	tables = append(tables, metricsTable(s.Devices, model == ""))
	for i := range s.Devices {
		tables = append(tables, deviceTables(&s.Devices[i], many)...)
	}
	return tables
}

// windowName says what part of a trace was measured.
func windowName(w string) string {
	if rest, ok := strings.CutPrefix(w, "whole;"); ok {
		return "the whole trace;" + rest
	}
	return cmp.Or(w, "the whole trace")
}

// warmupNote says that leading steps look like warm-up, and how to leave
// them out; "" when none does.
func warmupNote(d *metrics.DeviceSummary) string {
	return warmupSentence(metrics.WarmupSteps(d.Steps))
}

// warmupSentence says that the first n steps are warm-up; "" when n is 0.
func warmupSentence(n int) string {
	first, them := "the first step", "it"
	switch {
	case n == 0:
		return ""
	case n > 1:
		first, them = fmt.Sprintf("the first %d steps", n), "them"
	}
	return first + " took over twice the median step time (warm-up or compilation?): --steady leaves " + them + " out"
}

// headlineTable answers the question for one device in a few lines: how
// long a step or the run takes, how busy the GPU is, why it idles, what
// it runs, how fast copies move.
func headlineTable(d *metrics.DeviceSummary, withName bool) *Table {
	head := fmt.Sprintf("GPU %d", d.Device)
	if withName && d.Name != "" {
		head += " " + d.Name
	}
	t := &Table{Columns: []Column{{Name: head, Unit: metrics.Text}, {Name: "", Unit: metrics.Text}}}
	row := func(k, v string) { t.Rows = append(t.Rows, []any{k, v}) }
	if n := len(d.Steps); n > 0 {
		row("step time", fmt.Sprintf("%s median of %s", Format(d.StepMedianNS, metrics.NS), plural(n, "steps")))
	}
	row("span", Format(d.SpanNS, metrics.NS))
	util := Format(d.GPUUtil, metrics.Ratio)
	if !hasSpan(d) {
		util = "–"
	}
	row("GPU busy", "") // filled in last, to fit beside the widest key
	busyRow := len(t.Rows) - 1
	idle := fmt.Sprintf("%s in %s", Format(d.IdleNS, metrics.NS), plural(d.IdleGaps, "gaps"))
	if d.IdleNS > 0 {
		idle += fmt.Sprintf(": sync %s, launch %s, other %s", metrics.ShareText(d.IdleSyncNS, d.IdleNS), metrics.ShareText(d.IdleLaunchNS, d.IdleNS),
			metrics.ShareText(d.IdleOtherNS, d.IdleNS))
	}
	row("idle", idle)
	k := Format(d.Kernels, metrics.Count)
	if d.Kernels > 0 {
		k += fmt.Sprintf(", mean %s, median %s", Format(d.KernelMeanNS, metrics.NS), Format(d.KernelMedianNS, metrics.NS))
	}
	row("kernels", k)
	if l := d.Launch; l.Launches+l.GraphLaunches > 0 {
		s := fmt.Sprintf("%s eager", Format(l.Launches, metrics.Count))
		if l.GraphLaunches > 0 {
			s += fmt.Sprintf(", %s replaying %s kernels each", plural(l.GraphLaunches, "graphs"), Format(l.KernelsPerGraphLaunch, metrics.Count))
		}
		row("launches", s)
		cost := fmt.Sprintf("%s of CPU a launch, queue delay %s (medians)", Format(l.MedianLaunchNS, metrics.NS),
			Format(l.QueueDelayMedianNS, metrics.NS))
		row("launch cost", cost)
		if l.SlowLaunches > 0 { // a row of its own: beside the medians it ran past 80 columns
			row("slow launches", fmt.Sprintf("%s of 1 ms or more, %s in all", plural(l.SlowLaunches, "calls"), Format(l.SlowLaunchNS, metrics.NS)))
		}
	}
	var copies []string
	for _, c := range []metrics.CopyStat{d.H2D, d.D2H} {
		kind := map[string]string{"HtoD": "H2D", "DtoH": "D2H"}[c.Kind]
		switch {
		case c.Tiny(): // a bandwidth of a few bytes measures latency: none shown
			copies = append(copies, fmt.Sprintf("%s %s in %s", kind, Format(c.Bytes, metrics.Bytes), plural(c.Copies, "tiny copies")))
		case c.Copies > 0:
			copies = append(copies, fmt.Sprintf("%s %s (%s)", kind, Format(c.GBps, metrics.GBps), Format(c.Bytes, metrics.Bytes)))
		}
	}
	if len(copies) > 0 {
		row("copies", strings.Join(copies, ", "))
	}
	if c := d.Comm; c.Kernels > 0 {
		row("communication", fmt.Sprintf("%s, %s, %s of it hidden", plural(c.Kernels, "kernels"), Format(c.NS, metrics.NS),
			Format(c.Overlap, metrics.Ratio)))
	}
	work := workRows(d)
	key := 0
	for _, r := range append(t.Rows, work...) {
		key = max(key, len([]rune(r[0].(string))))
	}
	t.Rows[busyRow][1] = busyText(d, util, 80-2-key-2)
	for _, r := range work { // long: wrapped to 80 columns, the key once
		k := r[0]
		for _, line := range wrap(r[1].(string), 80-2-key-2, 80-2-key-2) {
			t.Rows = append(t.Rows, []any{k, line})
			k = ""
		}
	}
	v := verdict(d)
	if v == "" {
		v = noVerdict(d)
	}
	t.Notes = []string{v}
	for _, f := range topFindings(d, 3) {
		t.Notes = append(t.Notes, "finding "+f)
	}
	return t
}

// metricsTable puts every metric of the devices side by side, in reading
// order; rows that are zero on every device are left out.
func metricsTable(devs []metrics.DeviceSummary, withNames bool) *Table {
	t := &Table{Title: "every metric (see summarize --help)", Columns: []Column{{Name: "metric", Unit: metrics.Text}}}
	for _, d := range devs {
		name := fmt.Sprintf("GPU %d", d.Device)
		if d.Name != "" && withNames {
			name += " " + d.Name
		}
		t.Columns = append(t.Columns, Column{Name: name, Unit: metrics.Count})
	}
	for _, c := range textColumns() {
		if !shows(c, metrics.EveryMetric) {
			continue
		}
		row := []any{c.Label}
		zero := true
		for i := range devs {
			v := c.Get(&devs[i])
			zero = zero && (v == nil || isZero(v))
			row = append(row, Cell{v, c.Unit})
		}
		if zero && !shows(c, metrics.KeptAtZero) {
			continue
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// topKernelsTable lists a device's kernels by total time; nil without.
func topKernelsTable(d *metrics.DeviceSummary, many bool, l Layout) *Table {
	if len(d.KernelDists) > 0 {
		return kernelDistsTable(d, many, l)
	}
	if len(d.TopKernels) == 0 {
		return nil
	}
	suffix := ""
	if many {
		suffix = fmt.Sprintf(" (GPU %d)", d.Device)
	}
	// The name last, as nsys stats has it: a whole name pads nothing.
	t := &Table{Title: "top kernels by total time" + suffix, Columns: []Column{
		{Name: "count", Unit: metrics.Count}, {Name: "total", Unit: metrics.NS},
		{Name: "mean", Unit: metrics.NS}, {Name: "share", Unit: metrics.Ratio}, {Name: "kernel", Unit: metrics.Text}}}
	names := shortNames(styledNames(d.TopKernels, func(k metrics.KernelStat) string { return k.Name }, l.Names), same, l.NameWidth)
	for i, k := range d.TopKernels {
		t.Rows = append(t.Rows, []any{k.Count, k.TotalNS, k.MeanNS, k.Share, names[i]})
	}
	return t
}

// drillTables are the tables summarize --by asked for: each device's
// streams, the host API calls and the ranges by name.
func drillTables(s metrics.Summary, l Layout) []*Table {
	var out []*Table
	for _, d := range s.Devices {
		if len(d.StreamStats) == 0 {
			continue
		}
		t := &Table{Title: fmt.Sprintf("streams (GPU %d)", d.Device), Columns: []Column{
			{Name: "stream", Unit: metrics.Count}, {Name: "kernels", Unit: metrics.Count}, {Name: "copies", Unit: metrics.Count},
			{Name: "span", Unit: metrics.NS}, {Name: "busy", Unit: metrics.NS}, {Name: "idle", Unit: metrics.NS}, {Name: "utilization", Unit: metrics.Ratio}}}
		for _, st := range d.StreamStats {
			t.Rows = append(t.Rows, []any{st.Stream, st.Kernels, st.Copies, st.SpanNS, st.BusyNS, st.IdleNS, st.Util})
		}
		t.Notes = []string{"a stream's span runs from its first activity to its last; busy is the union of its activity"}
		out = append(out, t)
	}
	for _, d := range s.Devices {
		for _, x := range []struct {
			title, noun string
			stats       []metrics.ScopeStat
		}{{"GPU time by host op", "op", d.Ops}, {"GPU time by code region (record_function, NVTX)", "region", d.Regions}} {
			if x.stats == nil {
				continue
			}
			t := &Table{Title: fmt.Sprintf("%s (GPU %d)", x.title, d.Device), Columns: []Column{
				{Name: "share", Unit: metrics.Ratio}, {Name: "GPU time", Unit: metrics.NS}, {Name: "launched", Unit: metrics.Count},
				{Name: "calls", Unit: metrics.Count}, {Name: "GPU per call", Unit: metrics.NS}, {Name: "CPU time", Unit: metrics.NS},
				{Name: x.noun, Unit: metrics.Text}}}
			// Six numbers: 18 runes at 80 columns, the fewest cut.
			names := shortNames(x.stats, func(o metrics.ScopeStat) string { return o.Name }, max(l.NameWidth-20, min(l.NameWidth, 16)))
			for i, o := range x.stats {
				var per any = "–"
				if o.Calls > 0 {
					per = float64(o.GPUNS) / float64(o.Calls)
				}
				t.Rows = append(t.Rows, []any{o.Share, o.GPUNS, o.Kernels, o.Calls, Cell{per, metrics.NS}, o.CPUNS, names[i]})
			}
			t.Notes = []string{"launched: kernels, copies and memsets whose launch call the " + x.noun + " encloses on its thread (graph replays count each kernel); " +
				metrics.NoScope + ": enclosed by none, or no launch call in the trace"}
			t.Notes = append(t.Notes, captureNotes(s.Capture, x.stats, x.noun)...)
			out = append(out, l.cut(t, x.noun+"s", "without --top"))
			if x.noun == "op" {
				if w := workTable(&d, l); w != nil {
					out = append(out, w)
				}
			}
		}
	}
	for _, x := range []struct {
		title, noun, export string
		stats               []metrics.NameDist
	}{{"host API calls by total time", "call", "api", s.APIStats}, {"ranges (record_function, NVTX) by total time", "range", "ranges", s.RangeStats}} {
		if x.stats == nil {
			continue
		}
		t := &Table{Title: x.title, Columns: []Column{
			{Name: "share", Unit: metrics.Ratio}, {Name: "total", Unit: metrics.NS}, {Name: "count", Unit: metrics.Count},
			{Name: "mean", Unit: metrics.NS}, {Name: "median", Unit: metrics.NS}, {Name: "min", Unit: metrics.NS},
			{Name: "max", Unit: metrics.NS}, {Name: "stddev", Unit: metrics.NS}, {Name: x.noun, Unit: metrics.Text}}}
		names := shortNames(x.stats, func(n metrics.NameDist) string { return n.Name }, l.distNameWidth())
		for i, n := range x.stats {
			t.Rows = append(t.Rows, []any{n.Share, n.TotalNS, n.Count, n.MeanNS, n.MedianNS, n.MinNS, n.MaxNS, n.StdNS, names[i]})
		}
		if len(x.stats) == 0 {
			t.Notes = []string{"none in the trace"}
		}
		out = append(out, l.fit(t, x.export))
	}
	return out
}

// kernelDistsTable lists every kernel name of a device with the columns of
// nsys stats' cuda_gpu_kern_sum: share, total, instances, mean, median,
// min, max, standard deviation; the name last.
func kernelDistsTable(d *metrics.DeviceSummary, many bool, l Layout) *Table {
	title := "kernels by total time"
	if many {
		title += fmt.Sprintf(" (GPU %d)", d.Device)
	}
	t := &Table{Title: title, Columns: []Column{
		{Name: "share", Unit: metrics.Ratio}, {Name: "total", Unit: metrics.NS}, {Name: "instances", Unit: metrics.Count},
		{Name: "mean", Unit: metrics.NS}, {Name: "median", Unit: metrics.NS}, {Name: "min", Unit: metrics.NS},
		{Name: "max", Unit: metrics.NS}, {Name: "stddev", Unit: metrics.NS}, {Name: "kernel", Unit: metrics.Text}}}
	names := shortNames(styledNames(d.KernelDists, func(k metrics.KernelDist) string { return k.Name }, l.Names), same, l.distNameWidth())
	for i, k := range d.KernelDists {
		t.Rows = append(t.Rows, []any{k.Share, k.TotalNS, k.Count, k.MeanNS, k.MedianNS, k.MinNS, k.MaxNS, k.StddevNS, names[i]})
	}
	return l.cut(l.fit(t, "kernel-stats"), "kernel names", "export --table kernel-stats")
}

// distNameWidth is the runes left to the names of a distribution table
// (eight numbers, or five on a narrow terminal: fit).
func (l Layout) distNameWidth() int {
	if l.narrow() {
		return l.nameWidth(6)
	}
	return l.nameWidth(30)
}

// fit drops the min, max and stddev columns of a distribution table (of
// kernels, API calls or ranges) on a narrow terminal, where they would
// leave its names a few letters, and says where they are: in export's
// table of that name.
func (l Layout) fit(t *Table, export string) *Table {
	if !l.narrow() {
		return t
	}
	t.keepColumns(0, 1, 2, 3, 4, 8) // share, total, count, mean, median; the name
	t.Notes = append(t.Notes, "min, max and stddev: in a terminal of 124 columns or more, or export --table "+export)
	return t
}

func deviceTables(d *metrics.DeviceSummary, many bool) []*Table {
	suffix := ""
	if many {
		suffix = fmt.Sprintf(" (GPU %d)", d.Device)
	}
	var out []*Table
	if len(d.Copies) > 0 {
		t := &Table{Title: "copies" + suffix, Columns: []Column{
			{Name: "kind", Unit: metrics.Text}, {Name: "from -> to", Unit: metrics.Text}, {Name: "copies", Unit: metrics.Count},
			{Name: "bytes", Unit: metrics.Bytes}, {Name: "time", Unit: metrics.NS}, {Name: "bandwidth", Unit: metrics.GBps}}}
		for _, c := range d.Copies {
			t.Rows = append(t.Rows, []any{c.Kind, c.Src + " -> " + c.Dst, c.Copies, c.Bytes, c.NS, c.GBps})
		}
		out = append(out, t)
	}
	if len(d.Steps) >= 2 {
		out = append(out, stepStatsTable(d.Steps, d.Util, suffix), stepClassesTable(d.Steps, suffix), stepIdleTable(d.Steps, suffix),
			stepSpreadTable(d.Steps, suffix))
		if t := stepHostTable(d.Steps, suffix); t != nil {
			out = append(out, t)
		}
	}
	if d.IdleGaps > 0 {
		t := &Table{Title: "idle gaps by length" + suffix, Columns: []Column{
			{Name: "length", Unit: metrics.Text}, {Name: "gaps", Unit: metrics.Count}, {Name: "idle", Unit: metrics.NS}}}
		for _, b := range d.GapHist {
			if b.Count == 0 {
				continue
			}
			t.Rows = append(t.Rows, []any{binLabel(b), b.Count, b.SumNS})
		}
		out = append(out, t)
	}
	return out
}

func binLabel(b metrics.Bin) string {
	switch {
	case b.Lo == 0:
		return "< " + Format(b.Hi, metrics.NS)
	case b.Hi == 0:
		return "≥ " + Format(b.Lo, metrics.NS)
	}
	return Format(b.Lo, metrics.NS) + " – " + Format(b.Hi, metrics.NS)
}

func hostTables(s metrics.Summary, title string) []*Table {
	title += fmt.Sprintf("\n  no GPU activity (no kernel, memcpy or memset events): %s host ops, %s runtime/driver calls; host side:",
		Format(s.Host.Ops, metrics.Count), Format(s.Host.APICalls, metrics.Count))
	out := []*Table{{Title: title, Columns: []Column{{Name: "metric", Unit: metrics.Text}, {Name: "value", Unit: metrics.Count}},
		Rows: hostRows(&s)}}
	if len(s.Host.TopOps) > 0 {
		t := &Table{Title: "top host ops by total time", Columns: []Column{
			{Name: "host op", Unit: metrics.Text}, {Name: "count", Unit: metrics.Count}, {Name: "total", Unit: metrics.NS}, {Name: "self", Unit: metrics.NS}}}
		names := shortNames(s.Host.TopOps, func(op metrics.OpStat) string { return op.Name }, 80)
		for i, op := range s.Host.TopOps {
			t.Rows = append(t.Rows, []any{names[i], op.Count, op.TotalNS, op.SelfNS})
		}
		out = append(out, t)
	}
	return append(out, compileTables(s, Layout{})...)
}

func hasSpan(d *metrics.DeviceSummary) bool { return d.SpanNS > 0 }

// OverviewTable puts several traces side by side, one row per trace and
// GPU, so that the slow or starved rank of a job stands out: from three rows
// on, with min, median and max rows and the lowest utilization named.
// Traces without GPU activity have no row; with fewer than two traces that
// have one there is no table (nil). Blanks (a GPU without communication or
// steps) are left out of the min, median and max.
//
// With alone (--overview), a single trace with GPU activity has its
// overview too; else the overview needs two.
func OverviewTable(sums []metrics.Summary, alone bool) *Table {
	traces := 0
	for _, s := range sums {
		if len(s.Devices) > 0 {
			traces++
		}
	}
	t := overview(SummaryRecords(sums), traces, alone)
	if n := len(sums) - traces; t != nil && n > 0 {
		// Every trace read counts, those without GPU activity, which
		// have no row, said apart.
		t.Title = fmt.Sprintf("%s read, %d of them without GPU activity (no rows); one row per trace and GPU",
			plural(len(sums), "traces"), n)
	}
	return t
}

// OverviewOfRecords is OverviewTable of the summaries whose records (the
// rows of SummaryRecords, as export --table summary writes them) are rec:
// traceql's own exports, read back, give the overview the traces give.
// A trace is a run of rows of one file.
func OverviewOfRecords(rec *Table) *Table {
	traces := 0
	fileAt := slices.IndexFunc(rec.Columns, func(c Column) bool { return c.Name == "file" })
	for i, r := range rec.Rows {
		if i == 0 || r[fileAt] != rec.Rows[i-1][fileAt] {
			traces++
		}
	}
	return overview(rec, traces, false)
}

// overview is OverviewTable from records: every number it shows, and the
// bound of each GPU, is a column of SummaryRecords, so that the overview
// of summaries and that of their Parquet export are the same text.
func overview(rec *Table, traces int, alone bool) *Table {
	index := func(name string) int {
		return slices.IndexFunc(rec.Columns, func(c Column) bool { return c.Name == name })
	}
	isPositive := func(name string) func(row []any) bool {
		j := index(name)
		return func(row []any) bool { return toFloat(row[j]) > 0 }
	}
	var cols []metrics.Column
	var at []int // the records' column of each of cols
	var has []func([]any) bool
	for _, c := range metrics.OverviewColumns() {
		var h func([]any) bool
		if c.OverviewIf != "" {
			h = isPositive(c.OverviewIf)
			if !slices.ContainsFunc(rec.Rows, h) {
				continue
			}
		}
		cols = append(cols, c)
		at = append(at, index(c.Name))
		has = append(has, h)
	}
	t := &Table{Columns: []Column{{Name: "trace", Unit: metrics.Text}, {Name: "rank", Unit: metrics.Count}, {Name: "GPU", Unit: metrics.Count}}}
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.Label, Unit: c.Unit})
	}
	var values []metrics.OverviewRow
	fileAt, rankAt, deviceAt := index("file"), index("rank"), index("device")
	for _, r := range rec.Rows {
		var rank any = ""
		if r[rankAt] != nil {
			rank = r[rankAt]
		}
		row := []any{r[fileAt], rank, r[deviceAt]}
		vs := make(metrics.OverviewRow, len(cols))
		for j := range cols {
			vs[j] = math.NaN() // a blank, or no value: shown "–", in no min, median or max
			if has[j] != nil && !has[j](r) {
				row = append(row, "")
				continue
			}
			v := r[at[j]]
			row = append(row, v)
			if v != nil {
				vs[j] = toFloat(v)
			}
		}
		values = append(values, vs)
		t.Rows = append(t.Rows, row)
	}
	if traces < 2 && !(alone && traces == 1) {
		return nil
	}
	t.Title = fmt.Sprintf("%s read; one row per trace and GPU", plural(traces, "traces"))
	if len(t.Rows) < 3 {
		return t
	}
	stats := metrics.OverviewStats(values, len(cols))
	for _, agg := range []struct {
		name string
		f    func(metrics.ColumnStats) float64
	}{{"min", func(s metrics.ColumnStats) float64 { return s.Min }},
		{"median", func(s metrics.ColumnStats) float64 { return s.Median }},
		{"max", func(s metrics.ColumnStats) float64 { return s.Max }}} {
		row := []any{agg.name, "", ""}
		for _, st := range stats {
			if st.N == 0 {
				row = append(row, nil)
				continue
			}
			row = append(row, agg.f(st))
		}
		t.Rows = append(t.Rows, row)
	}
	// Each column's note on the GPU with its lowest value (Col.Note), when
	// three GPUs or more have one.
	for j, c := range cols {
		st := stats[j]
		if c.Note.Lowest == "" || st.N < 3 || c.Note.Straggler != "" && !(st.Straggler() && oneJob(rec)) {
			continue
		}
		r := rec.Rows[st.Lowest]
		note := fmt.Sprintf("%s: %s GPU %s, %s (median %s)", c.Note.Lowest, r[fileAt], Raw(r[deviceAt]), Format(st.Min, c.Unit), Format(st.Median, c.Unit))
		if c.Note.Straggler != "" {
			note += ": " + c.Note.Straggler
		}
		t.Notes = append(t.Notes, note)
	}
	boundAt := index("bound")
	var bounds []string
	for _, r := range rec.Rows {
		bounds = append(bounds, r[boundAt].(string))
	}
	t.Notes = append(t.Notes, "GPUs by bound (see --help): "+boundCounts(bounds))
	return t
}

// oneJob reports whether the records are ranks of one job: each has a
// rank, and all the same world size of two or more.
func oneJob(rec *Table) bool {
	rankAt := slices.IndexFunc(rec.Columns, func(c Column) bool { return c.Name == "rank" })
	sizeAt := slices.IndexFunc(rec.Columns, func(c Column) bool { return c.Name == "world_size" })
	if rankAt < 0 || sizeAt < 0 || len(rec.Rows) == 0 {
		return false
	}
	size := toFloat(rec.Rows[0][sizeAt])
	for _, r := range rec.Rows {
		if r[rankAt] == nil || r[sizeAt] == nil || toFloat(r[sizeAt]) != size {
			return false
		}
	}
	return size >= 2
}

// boundCounts counts GPUs by verdict (metrics.Bound names), the most
// common first, ties in the order of metrics.Bound: "6 launch, 2 sync".
func boundCounts(bounds []string) string {
	n := map[string]int{}
	for _, b := range bounds {
		n[b]++
	}
	order := func(b string) int {
		for v := range metrics.CommBound + 1 {
			if v.String() == b {
				return int(v)
			}
		}
		return int(metrics.CommBound) + 1
	}
	names := slices.Collect(maps.Keys(n))
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(n[b]-n[a], order(a)-order(b), strings.Compare(a, b)) })
	var parts []string
	for _, b := range names {
		parts = append(parts, fmt.Sprintf("%d %s", n[b], b))
	}
	return strings.Join(parts, ", ")
}

// rankOf is a run's rank, nil when unknown.
func rankOf(s *metrics.Summary) any {
	if s.Rank < 0 {
		return nil
	}
	return s.Rank
}

// worldSizeOf is a run's job's number of ranks, nil when unknown.
func worldSizeOf(s *metrics.Summary) any {
	if s.WorldSize <= 0 {
		return nil
	}
	return s.WorldSize
}

// docFile defines the file column of every table.
const docFile = "the trace file, as given or found in a folder"

// labelColumn is a column of every table: the run's label. It comes
// last, where it was added, so that the other columns keep their places.
var labelColumn = Column{Name: "label", Unit: metrics.Text, Doc: docLabel}

// docLabel defines the label column.
const docLabel = "the run's label: --label (one per FILE or DIR argument, a DIR's for each trace in it), " +
	"else the file name without trace suffixes, with as many folders as tell the runs apart"

// SummaryRecords is the machine-readable shape of summaries: one table,
// one row per (file, device), columns "file", "rank" (from distributedInfo;
// -1 when unknown), "world_size" (0 when unknown) then metrics.Columns().
// Traces without GPU activity have no row.
func SummaryRecords(sums []metrics.Summary) *Table {
	t := &Table{Columns: []Column{{Name: "file", Unit: metrics.Text, Doc: docFile},
		{Name: "rank", Unit: metrics.Count, Null: true, Doc: "the trace's rank in its job (distributedInfo); none when unknown"},
		{Name: "world_size", Unit: metrics.Count, Null: true, Doc: "the job's number of ranks (distributedInfo); none when unknown"}}}
	cols := metrics.Columns()
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.Name, Unit: c.Unit, Float: c.Float(), Doc: c.Doc, Null: c.Nullable()})
	}
	t.Columns = append(t.Columns, labelColumn) // last: a column added keeps the others where they were
	for _, s := range sums {
		for i := range s.Devices {
			row := []any{s.Source, rankOf(&s), worldSizeOf(&s)}
			for _, c := range cols {
				row = append(row, c.Get(&s.Devices[i])) // nil: empty in CSV, null in JSON and Parquet
			}
			row = append(row, s.Label)
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// WriteSummaryJSON writes the JSON document of the summary table (see
// WriteJSON), one row per (file, device): the CSV columns under the same
// names, plus "copies" and "top_kernels".
// It is indented as encoding/json indents, and written as it is made, one
// kernel at a time: --top can ask for a million of them.
func WriteSummaryJSON(w io.Writer, sums []metrics.Summary) error {
	type device struct {
		s *metrics.Summary
		d *metrics.DeviceSummary
	}
	var devs []device
	for i := range sums {
		for j := range sums[i].Devices {
			devs = append(devs, device{&sums[i], &sums[i].Devices[j]})
		}
	}
	cols := metrics.Columns()
	jw := &jsonWriter{w: bufio.NewWriter(w)}
	jw.document("summary", len(devs), func(i int, in string) {
		s, d := devs[i].s, devs[i].d
		jw.object(in, func(key func(string), in string) {
			key("file")
			jw.value(s.Source, in)
			key("rank")
			jw.value(rankOf(s), in)
			key("world_size")
			jw.value(worldSizeOf(s), in)
			for _, c := range cols {
				key(c.Name)
				jw.value(c.Get(d), in)
			}
			key("label")
			jw.value(s.Label, in)
			key("copies")
			jw.value(copiesJSON(d.Copies), in)
			key("top_kernels")
			jw.array(len(d.TopKernels), in, func(i int, in string) {
				k := d.TopKernels[i]
				jw.value(kernelJSON{Name: k.Name, Count: k.Count, TotalNS: k.TotalNS, MeanNS: k.MeanNS, MinNS: k.MinNS, MaxNS: k.MaxNS, Share: k.Share}, in)
			})
		})
	})
	return jw.flush()
}

// WriteJSON writes a table's records as one JSON document,
// {"version": SchemaVersion, "table": name, "rows": [...]}, a row an
// object keyed by column name, no value null: the same document on
// every command.
func WriteJSON(w io.Writer, name string, t *Table) error {
	jw := &jsonWriter{w: bufio.NewWriter(w)}
	jw.document(name, len(t.Rows), func(i int, in string) {
		jw.object(in, func(key func(string), in string) {
			for j, c := range t.Columns {
				key(c.Name)
				jw.value(t.Rows[i][j], in)
			}
		})
	})
	return jw.flush()
}

// document writes {"version": …, "table": name, "rows": [...]} and a
// newline, the ith of the n rows written by row.
func (j *jsonWriter) document(name string, n int, row func(i int, prefix string)) {
	j.object("", func(key func(string), in string) {
		key("version")
		j.value(SchemaVersion, in)
		key("table")
		j.value(name, in)
		key("rows")
		j.array(n, in, row)
	})
	j.str("\n")
}

// A jsonWriter writes JSON indented by two spaces a level, as encoding/json's
// MarshalIndent does, a value at a time. The first error sticks.
type jsonWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	err error
}

func (j *jsonWriter) str(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// value writes v, marshaled by encoding/json, its lines after the first
// led by prefix.
func (j *jsonWriter) value(v any, prefix string) {
	b, err := json.Marshal(v)
	if err == nil {
		j.buf.Reset()
		err = json.Indent(&j.buf, b, prefix, "  ")
	}
	if err != nil {
		j.err = cmp.Or(j.err, err)
		return
	}
	if j.err == nil {
		_, j.err = j.w.Write(j.buf.Bytes())
	}
}

// array writes an array of n elements, the ith written by elem, given the
// prefix of its lines.
func (j *jsonWriter) array(n int, prefix string, elem func(i int, prefix string)) {
	if n == 0 {
		j.str("[]")
		return
	}
	j.str("[")
	for i := range n {
		if i > 0 {
			j.str(",")
		}
		j.str("\n" + prefix + "  ")
		elem(i, prefix+"  ")
	}
	j.str("\n" + prefix + "]")
}

// object writes an object at prefix; members writes its members, each
// a key(name) and then its value, given the prefix of their lines.
func (j *jsonWriter) object(prefix string, members func(key func(string), prefix string)) {
	in := prefix + "  "
	n := 0
	j.str("{")
	members(func(k string) {
		if n > 0 {
			j.str(",")
		}
		n++
		j.str("\n" + in)
		j.value(k, "")
		j.str(": ")
	}, in)
	if n > 0 {
		j.str("\n" + prefix)
	}
	j.str("}")
}

func (j *jsonWriter) flush() error {
	if j.err == nil {
		j.err = j.w.Flush()
	}
	return j.err
}

type copyJSON struct {
	Kind   string  `json:"kind"`
	Src    string  `json:"src"`
	Dst    string  `json:"dst"`
	Copies int     `json:"copies"`
	Bytes  int64   `json:"bytes"`
	NS     int64   `json:"ns"`
	GBps   float64 `json:"gbps"`
}

func copiesJSON(cs []metrics.CopyStat) []copyJSON {
	out := []copyJSON{}
	for _, c := range cs {
		out = append(out, copyJSON{c.Kind, c.Src, c.Dst, c.Copies, c.Bytes, c.NS, c.GBps})
	}
	return out
}

type kernelJSON struct {
	Name    string  `json:"name"`
	Count   int     `json:"count"`
	TotalNS int64   `json:"total_ns"`
	MeanNS  float64 `json:"mean_ns"`
	MinNS   int64   `json:"min_ns"`
	MaxNS   int64   `json:"max_ns"`
	Share   float64 `json:"share"`
}

// stepRows is how many steps the steps table lists at most: the first and
// the last half as many, when there are more.
const stepRows = 20

// stepStatsTable lists each ProfilerStep#N (stepRows at most) with mean,
// median and standard deviation rows over all, and flags leading steps
// that look like warm-up.
//
// Where the device's ops were counted (u, with shapes), each step's FLOPs
// and, where the device has an MFU, the step's MFU follow.
func stepStatsTable(steps []metrics.StepStat, u *metrics.Utilization, suffix string) *Table {
	t := &Table{Title: "steps" + suffix, Columns: []Column{{Name: "step", Unit: metrics.Text}, {Name: "time", Unit: metrics.NS},
		{Name: "kernels", Unit: metrics.Count}, {Name: "busy", Unit: metrics.NS}, {Name: "idle", Unit: metrics.NS}, {Name: "GPU util", Unit: metrics.Ratio}}}
	flops, mfu := u != nil && u.Work.Costed(), u.HasMFU()
	if flops {
		t.Columns = append(t.Columns, Column{Name: "FLOPs", Unit: metrics.FLOP})
	}
	if mfu {
		t.Columns = append(t.Columns, Column{Name: "MFU", Unit: metrics.Ratio})
	}
	skip := max(len(steps)-stepRows, 0) // the middle ones, not listed
	for i, s := range steps {
		switch {
		case i < stepRows/2 || i >= stepRows/2+skip:
			row := []any{fmt.Sprintf("#%d", s.Number), s.DurNS(), s.Kernels, s.BusyNS, s.IdleNS, s.Util}
			if flops {
				row = append(row, s.Flops)
			}
			if mfu {
				var v any // none for a step of no length
				if m, ok := u.StepMFU(&s); ok {
					v = m
				}
				row = append(row, Cell{v, metrics.Ratio})
			}
			t.Rows = append(t.Rows, row)
		case i == stepRows/2:
			row := []any{"…"}
			for range len(t.Columns) - 1 {
				row = append(row, "")
			}
			t.Rows = append(t.Rows, row)
		}
	}
	spreads := metrics.StepSpreads(steps)
	work := metrics.StepWorkSpreads(steps, u)
	for _, agg := range []struct {
		name string
		f    func(metrics.Spread) float64
	}{{"mean", func(s metrics.Spread) float64 { return s.Mean }}, {"median", func(s metrics.Spread) float64 { return s.Median }},
		{"stdev", func(s metrics.Spread) float64 { return s.Stdev }}} {
		row := []any{agg.name}
		for _, s := range spreads {
			row = append(row, agg.f(s))
		}
		if flops {
			row = append(row, agg.f(work[0]))
		}
		if mfu {
			row = append(row, agg.f(work[1]))
		}
		t.Rows = append(t.Rows, row)
	}
	switch {
	case mfu:
		t.Notes = append(t.Notes, fmt.Sprintf("FLOPs: of the ops whose first kernel starts in the step; MFU: FLOPs / (time × %s, %s)",
			Format(u.PeakTFLOPS, metrics.TFLOPS), peakName(u)))
	case flops:
		t.Notes = append(t.Notes, "FLOPs: of the ops whose first kernel starts in the step; no MFU: "+u.NoMFU)
	}
	src := steps[0].Source
	t.Notes = append(t.Notes, fmt.Sprintf("%s, windows from the %s", plural(len(steps), "steps"), map[string]string{
		"gpu": "gpu_user_annotation copies", "projected": "CPU ranges extended to the end of the GPU work they launched", "cpu": "CPU ranges"}[src]))
	if skip > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("the %s steps between #%d and #%d are not listed, but counted in mean, median and stdev; "+
			"export --table steps lists every step", thousands(int64(skip)), steps[stepRows/2-1].Number, steps[stepRows/2+skip].Number))
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Start < steps[i-1].End {
			t.Notes = append(t.Notes, "the windows overlap (one step's copies on several streams reach into the next): "+
				"what falls in two windows counts in both")
			break
		}
	}
	if note := warmupSentence(metrics.WarmupSteps(steps)); note != "" {
		t.Notes = append(t.Notes, note)
	}
	return t
}
