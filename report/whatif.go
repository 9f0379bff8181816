package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// A WhatifRow is one device's projection, with the file it comes from.
type WhatifRow struct {
	File  string // the path as given
	Label string // --label, or the file's name
	metrics.Projection
}

// WhatifTables lays out each device's projection for people: the measured
// and projected median step and span, the critical path of the median step
// by class before and after, and notes saying how close the replay without
// edits comes and which constants the edits used.
func WhatifTables(rows []WhatifRow) []*Table {
	var out []*Table
	for _, r := range rows {
		p := &r.Projection
		t := &Table{
			Title: fmt.Sprintf("%s, GPU %d: what if %s", r.Label, p.Device, p.Edits),
			Columns: []Column{{Name: "", Unit: metrics.Text}, {Name: "as run", Unit: metrics.NS},
				{Name: "projected", Unit: metrics.NS}, {Name: "change", Unit: metrics.Text}},
		}
		add := func(label string, before, after float64) {
			t.Rows = append(t.Rows, []any{label, before, after, Change(before, after)})
		}
		add("median step", p.StepMedianNS, p.ProjectedStepNS)
		add(fmt.Sprintf("span of %s", Format(p.Steps, metrics.Count)+" steps"), float64(p.SpanNS), float64(p.ProjectedSpanNS))
		for i, class := range metrics.PathClassNames {
			add("  "+class, float64(p.Before[i]), float64(p.After[i]))
		}
		t.Rows = append(t.Rows[:2], append([][]any{{"critical path of the median step:", "", "", ""}}, t.Rows[2:]...)...)
		t.Notes = whatifNotes(p)
		out = append(out, t)
	}
	return out
}

// whatifNotes say what the projection rests on.
func whatifNotes(p *metrics.Projection) []string {
	off := "exactly"
	if d := p.ReplayStepMedianNS - p.StepMedianNS; d != 0 {
		off = fmt.Sprintf("%s %s", map[bool]string{true: "over by", false: "under by"}[d > 0], Format(max(d, -d), metrics.NS))
	}
	notes := []string{fmt.Sprintf("projected: a replay of the steps from durations and dependencies, not a measurement; "+
		"replayed without edits, the median step comes back %s (%s), and the critical path as run is that replay's", off,
		Format(p.ReplayStepMedianNS, metrics.NS))}
	if p.Unlaunched > 0 {
		notes = append(notes, fmt.Sprintf("%s pieces of device work inside the steps have no launch call in the trace: left out of the replay",
			Format(p.Unlaunched, metrics.Count)))
	}
	if p.Captures > 0 {
		notes = append(notes, fmt.Sprintf("--graphs: %s, %s kernels each on average (what ran inside compiled regions, or each step's launches, between blocking calls and host copies)",
			plural(p.Captures, "graph launches"), Format(float64(p.GraphNodes)/float64(p.Captures), metrics.Count)))
	}
	if len(p.Constants) > 0 {
		var cs []string
		for _, c := range p.Constants {
			cs = append(cs, fmt.Sprintf("%s %s", c.Name, Format(c.Value, c.Unit)))
		}
		notes = append(notes, "constants: "+strings.Join(cs, ", ")+"; each measured on the H100 runs in testdata/gpu: see whatif --help")
	}
	return notes
}

// WhatifRecords lays out the projections as rows for CSV and JSON: the
// file, then metrics.ProjectionColumns, times in integer ns.
func WhatifRecords(rows []WhatifRow) *Table {
	cols := metrics.ProjectionColumns()
	t := &Table{Title: "whatif", Columns: []Column{{Name: "file", Unit: metrics.Text, Doc: "the trace, as given"}}}
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.Name, Unit: c.Unit, Doc: c.Doc, Null: c.Nullable()})
	}
	for _, r := range rows {
		row := []any{r.File}
		for _, c := range cols {
			v := c.Get(&r.Projection)
			if f, ok := v.(float64); ok && c.Unit == metrics.NS {
				v = int64(f + 0.5) // integer ns: a median of an even count ends in .5
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// WhatifHelp lists whatif's columns and constants, for --help.
func WhatifHelp() string {
	cols := metrics.ProjectionColumns()
	name := 0
	for _, c := range cols {
		name = max(name, len(c.Name))
	}
	indent := strings.Repeat(" ", 2+name+2)
	var b strings.Builder
	b.WriteString("Columns of --format csv and json (times integer ns), after file:\n")
	for _, c := range cols {
		for i, line := range wrap(c.Doc, helpWidth-len(indent), helpWidth-len(indent)) {
			if i == 0 {
				fmt.Fprintf(&b, "  %-*s  %s\n", name, c.Name, line)
			} else {
				b.WriteString(indent + line + "\n")
			}
		}
	}
	b.WriteString("Constants (graph_* of --graphs, pinned_* of --pinned):\n")
	for _, c := range metrics.AllConstants() {
		unit := " ns"
		if c.Unit != metrics.NS {
			unit = ""
		}
		for i, line := range wrap(fmt.Sprintf("%s = %d%s: %s", c.Name, c.Value, unit, c.Doc), helpWidth-2, helpWidth-4) {
			if i == 0 {
				b.WriteString("  " + line + "\n")
			} else {
				b.WriteString("    " + line + "\n")
			}
		}
	}
	return b.String()
}
