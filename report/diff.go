package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/traceql/traceql/metrics"
)

// signed formats a change with an explicit sign: "+1.20 ms", "−387".
func signed(v float64, u metrics.Unit) string {
	if v == 0 {
		return "0"
	}
	if u == metrics.Ratio {
		return signChar(v) + percent(math.Abs(v)) + " pp"
	}
	return signChar(v) + Format(math.Abs(v), u)
}

func signChar(v float64) string {
	if v < 0 {
		return "−"
	}
	return "+"
}

// Change formats new relative to old: "−98.6 % ×0.0140"; "from 0" when
// old is 0, which no ratio describes ("new" would read as a metric or
// kernel only the new run has).
func Change(old, new float64) string {
	switch {
	case old == new:
		return "0 %"
	case old == 0:
		return "from 0"
	}
	pct := 100 * (new - old) / old
	size := sig3(math.Abs(pct))
	if math.Abs(pct) < 0.01 {
		size = "<0.01" // a change, too small for digits to help
	}
	return fmt.Sprintf("%s%s %% ×%s", signChar(pct), size, ratio(new/old))
}

// ratio prints a factor with three significant digits: ×0.0140, ×1.50, ×71.0.
func ratio(r float64) string {
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', decimals3(math.Abs(r)), 64)
}

// DiffTables lays out a Diff: per device the summary metrics old/new/delta,
// the per-step comparison when both traces have steps, and the per-kernel
// table (top rows by |Δ total|).
func DiffTables(d metrics.Diff, top int, l Layout) []*Table {
	var out []*Table
	for _, dd := range d.Devices {
		title := fmt.Sprintf("%s (old) vs %s (new)", Printable(d.Old.Source), Printable(d.New.Source))
		if dd.Old != nil && dd.New != nil {
			title += fmt.Sprintf(": GPU %d vs GPU %d", dd.Old.Device, dd.New.Device)
		}
		title += "\n  measured:" + runWindows([]string{"old", "new"}, []metrics.Summary{d.Old, d.New})
		title += perStepTitle([]string{"old", "new"}, []*metrics.DeviceSummary{dd.Old, dd.New})
		for _, run := range []struct {
			label string
			s     metrics.Summary
			d     *metrics.DeviceSummary
		}{{"old", d.Old, dd.Old}, {"new", d.New, dd.New}} {
			if run.d != nil && run.s.Window == "" {
				if n := warmupNote(run.d); n != "" {
					title += fmt.Sprintf("\n  %s: %s", run.label, n)
				}
			}
		}
		if note := unpaired(dd); note != "" {
			out = append(out, &Table{Title: title, Notes: []string{note}})
			continue
		}
		// delta, which old and new tell, gives way on a narrow terminal.
		t := &Table{Title: title, Columns: []Column{{Name: "metric", Unit: metrics.Text}, {Name: "old", Unit: metrics.Count},
			{Name: "new", Unit: metrics.Count}, {Name: "delta", Unit: metrics.Text, Optional: true}, {Name: "change", Unit: metrics.Text}},
			DropNote: "delta (new − old) left out to fit: in a wider terminal, or --format csv"}
		for _, c := range textColumns() {
			if !shows(c, metrics.Compared) {
				continue
			}
			o, n := c.Get(dd.Old), c.Get(dd.New)
			if (o == nil || isZero(o)) && (n == nil || isZero(n)) && !shows(c, metrics.KeptAtZero) {
				continue
			}
			delta, change := "–", "–" // a change from or to no value is none
			if o != nil && n != nil {
				delta, change = signed(toFloat(n)-toFloat(o), c.Unit), Change(toFloat(o), toFloat(n))
			}
			t.Rows = append(t.Rows, []any{c.Label, Cell{o, c.Unit}, Cell{n, c.Unit}, delta, change})
		}

		if n := stepCountNote([]string{"old", "new"}, []*metrics.DeviceSummary{dd.Old, dd.New}); n != "" {
			t.Notes = append(t.Notes, n)
		}
		if n := queueingNote("new", dd.Old, dd.New); n != "" {
			t.Notes = append(t.Notes, n)
		}
		for _, n := range []string{workNote("old", dd.Old), workNote("new", dd.New)} {
			if n != "" {
				t.Notes = append(t.Notes, n)
			}
		}
		// What holds each run's GPU back, as summarize says it.
		t.Notes = append(t.Notes, runVerdict("old", dd.Old), runVerdict("new", dd.New))
		t.Notes = append(t.Notes, findingChanges("old", "new", dd.Old, dd.New)...)
		out = append(out, t)
		if len(dd.Steps) > 0 {
			out = append(out, stepTable(dd.Steps))
		}
		out = append(out, kernelDiffTable(dd.Kernels, top, l))
		if d.ByOp && dd.Old.Ops != nil && dd.New.Ops != nil {
			t := opDiffTable(dd.Old.Ops, dd.New.Ops, top, l)
			switch {
			case d.Old.Capture != nil || d.New.Capture != nil:
				for _, x := range []struct {
					side string
					s    *metrics.CaptureStats
				}{{"old", d.Old.Capture}, {"new", d.New.Capture}} {
					if x.s != nil {
						t.Notes = append(t.Notes, x.side+": "+CaptureNote(x.s))
					}
				}
			case dd.Old.Launch.GraphLaunches > 0 || dd.New.Launch.GraphLaunches > 0:
				t.Notes = append(t.Notes, "kernels that CUDA or HIP graphs replay count under the op that launched the graph, not "+
					"the ops they were captured from: an op at 0 ns in one run may still run there, inside a graph; "+
					"--capture TRACE (a trace profiled while the graphs were captured) names those ops")
			}
			out = append(out, t)
		}
	}
	return out
}

// unpaired says which GPU of a device pair has no counterpart; "" for a
// pair.
func unpaired(dd metrics.DeviceDiff) string {
	switch {
	case dd.Old == nil:
		return fmt.Sprintf("GPU %d has no counterpart in the old trace", dd.New.Device)
	case dd.New == nil:
		return fmt.Sprintf("GPU %d has no counterpart in the new trace", dd.Old.Device)
	}
	return ""
}

func stepTable(steps []metrics.StepDelta) *Table {
	t := &Table{Title: "per step (median over steps; ~ = within step-to-step spread, Mann-Whitney U, p ≥ 0.05)",
		Columns: []Column{{Name: "metric", Unit: metrics.Text}, {Name: "old", Unit: metrics.Count}, {Name: "n", Unit: metrics.Count},
			{Name: "new", Unit: metrics.Count}, {Name: "n", Unit: metrics.Count}, {Name: "change", Unit: metrics.Text}, {Name: "p", Unit: metrics.Text}}}
	untested := ""
	for _, s := range steps {
		o, n := metrics.MedianF(s.Old), metrics.MedianF(s.New)
		change := "~"
		switch {
		case s.Significant:
			change = Change(o, n)
		case !s.Testable:
			change = Change(o, n) + " †"
			untested = fmt.Sprintf("† not tested: with %d and %d steps the smallest p the test can give is %.3f, not under 0.05, however large the change; about 4 steps a side are needed",
				len(s.Old), len(s.New), s.MinP)
		}
		t.Rows = append(t.Rows, []any{s.Metric, Cell{o, s.Unit}, len(s.Old), Cell{n, s.Unit}, len(s.New),
			change, strconv.FormatFloat(s.P, 'f', 3, 64)})
	}
	if untested != "" {
		t.Notes = append(t.Notes, untested)
	}
	return t
}

func kernelDiffTable(ks []metrics.KernelDelta, top int, l Layout) *Table {
	// The name last: a whole name (files, pipes) pads nothing.
	t := &Table{Title: "kernels by |Δ total time|", Columns: []Column{
		{Name: "count old", Unit: metrics.Count}, {Name: "count new", Unit: metrics.Count},
		{Name: "total old", Unit: metrics.NS}, {Name: "total new", Unit: metrics.NS}, {Name: "Δ total", Unit: metrics.Text},
		{Name: "mean old", Unit: metrics.NS}, {Name: "mean new", Unit: metrics.NS}, {Name: "", Unit: metrics.Text},
		{Name: "kernel", Unit: metrics.Text}}}
	var newN, gone int
	for _, k := range ks {
		switch k.Status() {
		case "new":
			newN++
		case "gone":
			gone++
		}
	}
	// On a terminal the numbers take about 80 columns: under 124, the
	// counts and means give way to the names, which are cut to what is
	// left, and a note says where they are.
	width := l.nameWidth(40)
	if l.narrow() {
		t.Notes = append(t.Notes, "counts and means: in a terminal of 124 columns or more, or export --table kernel-stats of each run")
		width = l.nameWidth(0)
	}
	names := shortNames(styledNames(ks[:min(top, len(ks))], func(k metrics.KernelDelta) string { return k.Name }, l.Names), same, width)
	for i, k := range ks {
		if i == top {
			t.Notes = append(t.Notes, plural(len(ks)-top, "more kernels")+" (--top to show more)")
			break
		}
		row := []any{k.Old.Count, k.New.Count, k.Old.TotalNS, k.New.TotalNS,
			signed(float64(k.DeltaNS), metrics.NS), k.Old.MeanNS, k.New.MeanNS, k.Status(), names[i]}
		t.Rows = append(t.Rows, row)
	}
	if l.narrow() {
		t.keepColumns(2, 3, 4, 7, 8) // totals, Δ, status; the name
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%s in both runs, %d only in new, %d only in old", plural(len(ks)-newN-gone, "kernel names"), newN, gone))
	return t
}

// opDiffTable compares the GPU time launched from each host op, the
// largest change first, ties by name.
func opDiffTable(old, new []metrics.ScopeStat, top int, l Layout) *Table {
	type pair struct {
		name string
		o, n metrics.ScopeStat
	}
	by := map[string]*pair{}
	var all []*pair
	for i, side := range [][]metrics.ScopeStat{old, new} {
		for _, s := range side {
			p := by[s.Name]
			if p == nil {
				p = &pair{name: s.Name}
				by[s.Name] = p
				all = append(all, p)
			}
			if i == 0 {
				p.o = s
			} else {
				p.n = s
			}
		}
	}
	delta := func(p *pair) int64 { return p.n.GPUNS - p.o.GPUNS }
	abs := func(x int64) int64 { return max(x, -x) }
	slices.SortFunc(all, func(a, b *pair) int {
		return cmp.Or(cmp.Compare(abs(delta(b)), abs(delta(a))), cmp.Compare(a.name, b.name))
	})
	t := &Table{Title: "GPU time by host op, by |Δ|", Columns: []Column{
		{Name: "GPU old", Unit: metrics.NS}, {Name: "GPU new", Unit: metrics.NS}, {Name: "Δ", Unit: metrics.Text},
		{Name: "launched old", Unit: metrics.Count}, {Name: "launched new", Unit: metrics.Count},
		{Name: "calls old", Unit: metrics.Count}, {Name: "calls new", Unit: metrics.Count}, {Name: "op", Unit: metrics.Text}}}
	shown := all[:min(top, len(all))]
	width := l.nameWidth(40)
	if l.narrow() { // launches and calls give way to the names
		t.Notes = append(t.Notes, "launched and calls: in a terminal of 124 columns or more, or export --table ops of each run")
		width = l.nameWidth(0)
	}
	names := shortNames(shown, func(p *pair) string { return p.name }, width)
	for i, p := range shown {
		t.Rows = append(t.Rows, []any{p.o.GPUNS, p.n.GPUNS, signed(float64(delta(p)), metrics.NS), p.o.Kernels, p.n.Kernels,
			p.o.Calls, p.n.Calls, names[i]})
	}
	if l.narrow() {
		t.keepColumns(0, 1, 2, 7)
	}
	if len(all) > top {
		t.Notes = append(t.Notes, plural(len(all)-top, "more ops")+" (--top to show more)")
	}
	return t
}

// DiffRecords is a Diff in tidy form for CSV: one row per (device pair,
// metric) with raw values; a device without a counterpart has no rows,
// but a note.
func DiffRecords(d metrics.Diff) *Table {
	t := &Table{Columns: []Column{{Name: "old_file", Unit: metrics.Text, Doc: "the OLD trace file"},
		{Name: "new_file", Unit: metrics.Text, Doc: "the NEW trace file"},
		{Name: "old_device", Unit: metrics.Count, Doc: "the device of OLD (devices pair up by position)"},
		{Name: "new_device", Unit: metrics.Count, Doc: "the device of NEW"},
		{Name: "metric", Unit: metrics.Text, Doc: "a column of the summary table"},
		{Name: "old", Unit: metrics.Count, Mixed: true, Null: true, Doc: metricValueDoc + " in OLD"},
		{Name: "new", Unit: metrics.Count, Mixed: true, Null: true, Doc: metricValueDoc + " in NEW"},
		{Name: "delta", Unit: metrics.Count, Mixed: true, Null: true, Doc: "new − old; none when either has no value"},
		{Name: "ratio", Unit: metrics.Count, Float: true, Null: true, Doc: ratioDoc("old")},
		{Name: "old_label", Unit: metrics.Text, Doc: "OLD's label: " + docLabel},
		{Name: "new_label", Unit: metrics.Text, Doc: "NEW's label"}}}
	for _, dd := range d.Devices {
		if note := unpaired(dd); note != "" {
			t.Notes = append(t.Notes, note)
			continue
		}
		for _, c := range metrics.Columns() {
			if !shows(c, metrics.Compared) {
				continue
			}
			o, n := c.Get(dd.Old), c.Get(dd.New)
			r, delta := ratioOf(n, o), deltaOf(n, o)
			t.Rows = append(t.Rows, []any{d.Old.Source, d.New.Source, dd.Old.Device, dd.New.Device, c.Name, o, n, delta, r, d.Old.Label, d.New.Label})
		}
	}
	return t
}

// metricValueDoc defines a column holding the value of the metric of its
// row.
const metricValueDoc = "the metric's value, in its unit (integer ns, bytes, …; an integer for integer metrics); none when undefined"

// ratioDoc defines the ratio column of a table, against base.
func ratioDoc(base string) string {
	return "the value / the value in " + base + "; none when either has no value or " + base + "'s is 0"
}

// ratioOf is new / old, nil (no value) when either has none or old is 0.
func ratioOf(new, old any) any {
	if new == nil || old == nil || toFloat(old) == 0 {
		return nil
	}
	return toFloat(new) / toFloat(old)
}

// deltaOf is new − old, an integer when both are; nil when either has no
// value.
func deltaOf(new, old any) any {
	if new == nil || old == nil {
		return nil
	}
	switch o := old.(type) {
	case int64:
		return new.(int64) - o
	case int:
		return new.(int) - o
	}
	return toFloat(new) - toFloat(old)
}

// CompareTable puts several runs side by side: metrics as rows, each run a
// column, and each run after the first followed by its ratio to the first.
// Devices pair up by position, as in diff; pos selects which.
//
// rows names the metrics to show, in that order (metrics.Columns names);
// nil shows every metric in reading order. Rows that are zero in every run
// are left out, but for those named in picked, which the user asked for.
// The title names each run's window, and says which runs start with steps
// that look like warm-up.
func CompareTable(labels []string, sums []metrics.Summary, pos int, rows []string, picked bool) *Table {
	t := &Table{Columns: []Column{{Name: "metric", Unit: metrics.Text}},
		DropNote: "× (the ratio to the first run) left out to fit: in a wider terminal, or piped"}
	devs := make([]*metrics.DeviceSummary, len(sums))
	for i, s := range sums {
		t.Columns = append(t.Columns, Column{Name: labels[i], Unit: metrics.Count})
		if i > 0 {
			t.Columns = append(t.Columns, Column{Name: "×", Unit: metrics.Text, Optional: true})
		}
		if pos < len(s.Devices) {
			devs[i] = &s.Devices[pos]
		}
	}
	title := "GPU"
	for i, d := range devs {
		if d == nil {
			t.Notes = append(t.Notes, fmt.Sprintf("%s has no GPU #%d with activity", Printable(labels[i]), pos))
			continue
		}
		title += fmt.Sprintf(" %s:%d", Printable(labels[i]), d.Device)
	}
	t.Title = title + "\n  measured:" + runWindows(labels, sums) + perStepTitle(labels, devs)
	for i, d := range devs {
		if d != nil && sums[i].Window == "" {
			if n := warmupNote(d); n != "" {
				t.Title += fmt.Sprintf("\n  %s: %s", labels[i], n)
			}
		}
	}
	cols := textColumns()
	if rows != nil {
		cols = pickColumns(rows)
	}
	for _, c := range cols {
		if !shows(c, metrics.Compared) {
			continue
		}
		row := []any{c.Label}
		zero := true
		var base any
		for i, d := range devs {
			var v any
			if d != nil {
				v = c.Get(d)
				zero = zero && (v == nil || isZero(v))
			}
			row = append(row, Cell{v, c.Unit})
			if i == 0 {
				base = v
				continue
			}
			r := "–" // against no value or 0
			if x := ratioOf(v, base); x != nil {
				r = "×" + ratio(x.(float64))
			}
			row = append(row, r)
		}
		if (zero && !shows(c, metrics.KeptAtZero) || tiny(c, devs)) && !picked {
			continue
		}
		t.Rows = append(t.Rows, row)
	}
	if n := stepCountNote(labels, devs); n != "" {
		t.Notes = append(t.Notes, n)
	}
	for i, d := range devs {
		if i > 0 && d != nil && devs[0] != nil {
			if n := queueingNote(labels[i], devs[0], d); n != "" {
				t.Notes = append(t.Notes, n)
			}
		}
	}
	for i, d := range devs {
		if d != nil {
			if n := workNote(labels[i], d); n != "" {
				t.Notes = append(t.Notes, n)
			}
		}
	}
	// What holds each run's GPU back, as summarize and diff say it.
	for i, d := range devs {
		if d != nil {
			t.Notes = append(t.Notes, runVerdict(labels[i], d))
			if i > 0 && devs[0] != nil {
				t.Notes = append(t.Notes, findingChanges(labels[0], labels[i], devs[0], d)...)
			}
		}
	}
	return t
}

// queueingNote says what a change of the queue delay between two runs
// means, so that a CPU running further ahead of the GPU (healthy) does not
// read as slower launches; "" when it changed by under a quarter or under
// 10 µs, a few launches' cost, or either run has no launches.
func queueingNote(run string, old, new *metrics.DeviceSummary) string {
	o, n := old.Launch.QueueDelayMedianNS, new.Launch.QueueDelayMedianNS
	if old.Launch.Launches+old.Launch.GraphLaunches == 0 || new.Launch.Launches+new.Launch.GraphLaunches == 0 ||
		math.Abs(n-o) <= 0.25*math.Abs(o) || math.Abs(n-o) < 10e3 {
		return ""
	}
	waits, ahead := "longer", "further"
	if n < o {
		waits, ahead = "less", "less far"
	}
	return fmt.Sprintf("%s: queue delay %s (was %s): launched work waits %s behind work already queued, as the CPU runs %s "+
		"ahead of the GPU; that is queue depth, not launch cost (CPU cost of a launch %s, was %s)",
		run, Format(n, metrics.NS), Format(o, metrics.NS), waits, ahead,
		Format(new.Launch.MeanLaunchNS, metrics.NS), Format(old.Launch.MeanLaunchNS, metrics.NS))
}

// pickColumns returns the metric columns named, in that order; names
// that are not metrics are left out (the command checks them first).
func pickColumns(names []string) []metrics.Column {
	by := map[string]metrics.Column{}
	for _, c := range metrics.Columns() {
		by[c.Name] = c
	}
	var out []metrics.Column
	for _, n := range names {
		if c, ok := by[n]; ok {
			out = append(out, c)
		}
	}
	return out
}

// runWindows says what part of each run was measured: once when all
// runs agree, else per run.
func runWindows(labels []string, sums []metrics.Summary) string {
	same := true
	for _, s := range sums {
		same = same && s.Window == sums[0].Window
	}
	if same {
		return " " + windowName(sums[0].Window) + " of each run"
	}
	windows := make([]string, len(sums))
	for i, s := range sums {
		windows[i] = windowName(s.Window)
	}
	return perRunLines(labels, windows)
}

// runVerdict says what holds run's device back, or that nothing does.
func runVerdict(run string, d *metrics.DeviceSummary) string {
	v := verdict(d)
	if v == "" {
		v = noVerdict(d)
	}
	return run + ": " + v
}

// CompareRecords is the CSV and JSON shape of compare: one row per run
// and device, the runs in the order given ("run", from 1) with their
// labels, then the columns of SummaryRecords: every metric, bound
// included, integers as integers. A ratio to the first run is a division
// away.
func CompareRecords(labels []string, sums []metrics.Summary) *Table {
	// The summary's columns, with its label (last there) and run first.
	cols := SummaryRecords(nil).Columns
	n := len(cols) - 1
	t := &Table{Columns: append([]Column{labelColumn, {Name: "run", Unit: metrics.Count, Doc: "the run's position among the files given, from 1"}},
		cols[:n]...)}
	for i := range sums {
		for _, r := range SummaryRecords(sums[i : i+1]).Rows {
			t.Rows = append(t.Rows, append([]any{labels[i], i + 1}, r[:n]...))
		}
	}
	return t
}
