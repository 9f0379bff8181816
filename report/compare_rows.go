package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// RowsLayout is compare with runs as rows: what a study of many runs (a
// mode table) needs, where runs as columns run off the page.
type RowsLayout struct {
	Labels []string
	// Parts name the parts of each label, split at "_"
	// (vit-small_eager_b1: model, mode, batch), shown as columns in place
	// of the label; nil: the label, whole. Every label has len(Parts)
	// parts (the command leaves the others out).
	Parts []string
	// GroupBy names the parts whose runs are answered apart (model,
	// batch: each size and batch gets its line on modes); nil: one
	// answer for all runs.
	GroupBy []string
	// Metrics are the columns, by CSV name; nil: CompareHeadline.
	Metrics []string
}

// CompareRowsTables lays out device pos of each run as a row, the chosen
// metrics as columns, after a table of notes that answers which run is
// fastest (metrics.RankRuns), a line per group.
func CompareRowsTables(l RowsLayout, sums []metrics.Summary, pos int) []*Table {
	t := &Table{DropNote: "some columns left out to fit: in a wider terminal, or piped, or pick them with --metrics"}
	if l.Parts == nil {
		t.Columns = append(t.Columns, Column{Name: "run", Unit: metrics.Text})
	}
	for _, p := range l.Parts {
		t.Columns = append(t.Columns, Column{Name: p, Unit: metrics.Text})
	}
	names := l.Metrics
	if names == nil {
		names = CompareHeadline
	}
	cols := pickColumns(names)
	devs := make([]*metrics.DeviceSummary, len(sums))
	for i, s := range sums {
		if pos < len(s.Devices) {
			devs[i] = &s.Devices[pos]
		}
	}
	if l.Metrics == nil { // the headline leaves out bandwidths of a few bytes, and FLOPs not counted
		counted := slices.ContainsFunc(devs, func(d *metrics.DeviceSummary) bool { return d != nil && d.Util != nil })
		cols = slices.DeleteFunc(cols, func(c metrics.Column) bool { return tiny(c, devs) || !counted && metrics.CountsOps(c.Name) })
	}
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.Label, Unit: c.Unit, Optional: l.Metrics == nil && shows(c, metrics.GivesWay)})
	}
	for i := range sums {
		row := []any{}
		if l.Parts == nil {
			row = append(row, Printable(l.Labels[i]))
		} else {
			for _, p := range strings.Split(l.Labels[i], "_") {
				row = append(row, Printable(p))
			}
		}
		if devs[i] == nil {
			t.Notes = append(t.Notes, fmt.Sprintf("%s has no GPU #%d with activity", Printable(l.Labels[i]), pos))
			continue
		}
		for _, c := range cols {
			row = append(row, Cell{c.Get(devs[i]), c.Unit})
		}
		t.Rows = append(t.Rows, row)
	}
	var answers []string
	for _, g := range rowGroups(l) {
		gd := make([]*metrics.DeviceSummary, len(g.runs))
		for k, i := range g.runs {
			gd[k] = devs[i]
		}
		if a := answer(g, metrics.RankRuns(gd), l); a != "" {
			answers = append(answers, a)
		}
	}
	t.Title = fmt.Sprintf("GPU #%d of each run, a row per run\n  measured:", pos) + runWindows(l.Labels, sums) + perStepTitle(l.Labels, devs)
	for i, d := range devs {
		if d != nil && sums[i].Window == "" {
			if n := warmupNote(d); n != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", l.Labels[i], n))
			}
		}
	}
	if n := stepCountNote(l.Labels, devs); n != "" {
		t.Notes = append(t.Notes, n)
	}
	for i, d := range devs {
		if d != nil {
			if n := workNote(l.Labels[i], d); n != "" {
				t.Notes = append(t.Notes, n)
			}
		}
	}
	if len(answers) == 0 {
		return []*Table{t}
	}
	return []*Table{{Notes: answers}, t}
}

// rowGroup is the runs that share the GroupBy parts, by index, with
// those parts' values as key.
type rowGroup struct {
	key  []string
	runs []int
}

// rowGroups groups the runs by l.GroupBy, groups in the order of their
// first run.
func rowGroups(l RowsLayout) []rowGroup {
	var at []int // indexes of the GroupBy parts
	for _, g := range l.GroupBy {
		at = append(at, slices.Index(l.Parts, g))
	}
	var groups []rowGroup
	for i, lab := range l.Labels {
		parts := strings.Split(lab, "_")
		var key []string
		for _, k := range at {
			key = append(key, parts[k])
		}
		j := slices.IndexFunc(groups, func(g rowGroup) bool { return slices.Equal(g.key, key) })
		if j < 0 {
			groups, j = append(groups, rowGroup{key: key}), len(groups)
		}
		groups[j].runs = append(groups[j].runs, i)
	}
	return groups
}

// answer is a group's line: its fastest run, by how much it beats the
// group's slowest, and the next. "" when no run of the group has a value.
func answer(g rowGroup, r metrics.Ranking, l RowsLayout) string {
	if len(r.Order) == 0 {
		return ""
	}
	// A run is named by its label less the group's parts.
	name := func(k int) string {
		lab := l.Labels[g.runs[k]]
		if l.GroupBy == nil {
			return Printable(lab)
		}
		var rest []string
		for j, p := range strings.Split(lab, "_") {
			if !slices.Contains(l.GroupBy, l.Parts[j]) {
				rest = append(rest, p)
			}
		}
		return Printable(strings.Join(rest, "_"))
	}
	what := "median step"
	if r.BySpan {
		what = "span"
	}
	f := r.Order[0]
	var b strings.Builder
	if len(g.key) > 0 {
		b.WriteString(Printable(strings.Join(g.key, " ")) + ": ")
	}
	fmt.Fprintf(&b, "%s: shortest %s, %s", name(f), what, Format(r.Values[f], metrics.NS))
	if s := r.Order[len(r.Order)-1]; s != f && r.Values[f] > 0 {
		fmt.Fprintf(&b, ", %s× shorter than the longest, %s's %s", ratio(r.Values[s]/r.Values[f]), name(s), Format(r.Values[s], metrics.NS))
	}
	if len(r.Order) > 1 {
		n := r.Order[1]
		fmt.Fprintf(&b, "; next %s, %s", name(n), Format(r.Values[n], metrics.NS))
	}
	if r.BySpan {
		b.WriteString(" (not every run has steps: spans, comparable only for the same work)")
	}
	return b.String()
}
