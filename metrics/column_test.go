package metrics

import (
	"fmt"
	"slices"
	"testing"

	"github.com/traceql/traceql/trace/torchlog"
)

// TestColumnsDeclared checks every column of every table declares what
// the outputs need: a name (once), a label, a definition, a kind that its
// values have, a missing rule and a place; and that each display's
// places are a ranking (1, 2, … with no gap or tie) of known columns.
func TestColumnsDeclared(t *testing.T) {
	frames := &CompileJoin{Frames: []CompiledFrame{{Log: &torchlog.Compile{GraphBreaks: -1}, Calls: 1}}}
	fd := &FrameDevice{KernelNS: 10, FrameNS: []int64{4}, FrameGraphNS: []int64{0}}
	checkTable(t, "device", Columns(), &DeviceSummary{})
	checkTable(t, "host", HostColumns(), &Summary{})
	checkTable(t, "frame", FrameColumns(), &FrameRow{J: frames, D: fd})
	checkTable(t, "whatif", ProjectionColumns(), &Projection{})
	for _, c := range Columns() {
		if c.Spread != "" && !slices.ContainsFunc(stepMetrics, func(m stepMetric) bool { return m.name == c.Spread }) {
			t.Errorf("%s: Spread %q is no per-step quantity of diff", c.Name, c.Spread)
		}
		if c.Show&Records == 0 {
			t.Errorf("%s: every device column is a column of the records", c.Name)
		}
	}
}

func checkTable[R any](t *testing.T, table string, cols []Col[R], row *R) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cols {
		where := table + " column " + c.Name
		switch {
		case c.Name == "":
			t.Errorf("%s column without a name (label %q)", table, c.Label)
		case seen[c.Name]:
			t.Errorf("%s: declared twice", where)
		}
		seen[c.Name] = true
		if c.Label == "" || c.Doc == "" || c.Value == nil {
			t.Errorf("%s: label %q, definition %q, value set %v: each is needed", where, c.Label, c.Doc, c.Value != nil)
		}
		if !c.Empty.Declared() {
			t.Errorf("%s: no missing rule (Never or When)", where)
		}
		if c.Show == 0 {
			t.Errorf("%s: shows nowhere", where)
		}
		if got := kindOf(c.Value(row)); got != c.Kind {
			t.Errorf("%s: declared kind %d, its value %T is of kind %d", where, c.Kind, c.Value(row), got)
		}
		if (c.Unit == Text) != (c.Kind == KindText) {
			t.Errorf("%s: unit %d and kind %d disagree on text", where, c.Unit, c.Kind)
		}
		if c.Show&EveryMetric != 0 && c.Show&Compared == 0 {
			t.Errorf("%s: in --all's metric table, so a measure diff and compare compare (Compared)", where)
		}
		if c.Show&GivesWay != 0 && c.Headline == 0 {
			t.Errorf("%s: gives way in compare's headline, which it is not in", where)
		}
		if c.Row > 0 && c.Show&Compared == 0 {
			t.Errorf("%s: a reading-order row (Row %d) of a column diff does not compare", where, c.Row)
		}
		if (c.Note != OverviewNote{}) && (c.Overview == 0 || c.Note.Lowest == "") {
			t.Errorf("%s: an overview note (%+v) needs its words and a place in the overview", where, c.Note)
		}
		if c.OverviewIf != "" {
			if c.Overview == 0 {
				t.Errorf("%s: OverviewIf without a place in the overview", where)
			}
			if g, ok := ColumnNamed(cols, c.OverviewIf); !ok || g.Kind != KindInt || g.Empty.when != nil {
				t.Errorf("%s: OverviewIf %q is no always-defined count column of the table", where, c.OverviewIf)
			}
		}
	}
	for _, d := range []struct {
		name string
		rank func(Col[R]) int
	}{{"Row", func(c Col[R]) int { return c.Row }}, {"Overview", func(c Col[R]) int { return c.Overview }},
		{"Headline", func(c Col[R]) int { return c.Headline }}} {
		at := map[int]string{}
		for _, c := range cols {
			if r := d.rank(c); r != 0 {
				if other, ok := at[r]; ok || r < 0 {
					t.Errorf("%s %s: %s %d taken by %q too", table, c.Name, d.name, r, other)
				}
				at[r] = c.Name
			}
		}
		for r := 1; r <= len(at); r++ {
			if _, ok := at[r]; !ok {
				t.Errorf("%s columns: %s ranks %d places with %d missing", table, d.name, len(at), r)
			}
		}
	}
}

func kindOf(v any) Kind {
	switch v.(type) {
	case int, int64:
		return KindInt
	case float64:
		return KindFloat
	case string:
		return KindText
	}
	panic(fmt.Sprintf("a column value of type %T", v))
}

// TestRanked checks the displays' order is their ranks', whatever the
// definitions' order, with unranked columns left out.
func TestRanked(t *testing.T) {
	cols := []Column{{Name: "a", Overview: 2}, {Name: "b"}, {Name: "c", Overview: 1}}
	got := Ranked(cols, func(c Column) int { return c.Overview })
	if len(got) != 2 || got[0].Name != "c" || got[1].Name != "a" {
		t.Errorf("Ranked: %v; want c, a", got)
	}
	if s := Shown([]Column{{Name: "a", Show: Records}, {Name: "b", Show: Compared | Records}}, Compared); len(s) != 1 || s[0].Name != "b" {
		t.Errorf("Shown: %v; want b", s)
	}
}

// TestOverviewStats checks the overview's statistics against a
// computation by hand: blanks (NaN) left out, the median of an even
// count the mean of the middle two, the first lowest GPU named.
func TestOverviewStats(t *testing.T) {
	nan := func() float64 { var z float64; return z / z }()
	rows := []OverviewRow{{3, nan}, {1, 10}, {nan, 2}, {1, 30}, {7, 40}}
	st := OverviewStats(rows, 2)
	want := []ColumnStats{{N: 4, Min: 1, Median: 2, Max: 7, Lowest: 1}, {N: 4, Min: 2, Median: 20, Max: 40, Lowest: 2}}
	for j := range want {
		if st[j] != want[j] {
			t.Errorf("column %d: %+v; want %+v", j, st[j], want[j])
		}
	}
	if !st[1].Straggler() || st[0].Straggler() {
		t.Errorf("Straggler: %v %v; want false (1 ≥ 2/2), true (2 < 20/2)", st[0].Straggler(), st[1].Straggler())
	}
	if e := OverviewStats([]OverviewRow{{nan}}, 1)[0]; e.N != 0 || e.Lowest != -1 {
		t.Errorf("no values: %+v; want N 0, Lowest -1", e)
	}
}
