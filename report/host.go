package report

import (
	"cmp"
	"io"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// hostRows are the rows of the host metrics of s that are not zero.
func hostRows(s *metrics.Summary) [][]any {
	var rows [][]any
	for _, c := range metrics.HostColumns() {
		if v := c.Get(s); v != nil && !isZero(v) || shows(c, metrics.KeptAtZero) {
			rows = append(rows, []any{c.Label, Cell{v, c.Unit}})
		}
	}
	return rows
}

// HostRecords is the machine-readable shape of host-only summaries: one
// row per file, columns "file", "rank" then metrics.HostColumns().
func HostRecords(sums []metrics.Summary) *Table {
	t := &Table{Columns: []Column{{Name: "file", Unit: metrics.Text, Doc: docFile},
		{Name: "rank", Unit: metrics.Count, Null: true, Doc: "the trace's rank in its job (distributedInfo); none when unknown"}}}
	cols := metrics.HostColumns()
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.Name, Unit: c.Unit, Float: c.Float(), Doc: c.Doc, Null: c.Nullable()})
	}
	t.Columns = append(t.Columns, labelColumn)
	for i := range sums {
		row := []any{sums[i].Source, rankOf(&sums[i])}
		for _, c := range cols {
			row = append(row, c.Get(&sums[i]))
		}
		row = append(row, sums[i].Label)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// hostOpsShown is how many ops HostCompareTables lists.
const hostOpsShown = 20

// HostCompareTables puts the host sides of several runs side by side, for
// runs without GPU activity (an eager and a compiled CPU or MPS run): the
// host metrics that are not zero in every run as rows (HostMetricTable),
// then the top ops by name (HostOpTable; top is hostOpsShown when 0).
func HostCompareTables(labels []string, sums []metrics.Summary, top int) []*Table {
	m := HostMetricTable(labels, sums, nil, false)
	if ops := HostOpTable(labels, sums, top); ops != nil {
		return []*Table{m, ops}
	}
	return []*Table{m}
}

// hostCompareHead is the header of a host comparison: first, then each
// run's value and, after the first, its ratio to the first run's.
func hostCompareHead(first string, labels []string) *Table {
	t := &Table{Columns: []Column{{Name: first, Unit: metrics.Text}}}
	for i, l := range labels {
		t.Columns = append(t.Columns, Column{Name: l, Unit: metrics.Count})
		if i > 0 {
			t.Columns = append(t.Columns, Column{Name: "×", Unit: metrics.Text})
		}
	}
	return t
}

// hostRatioCell is v's ratio to base, "×1.23", or "–" against no value or 0.
func hostRatioCell(v, base any) string {
	if r := ratioOf(v, base); r != nil {
		return "×" + ratio(r.(float64))
	}
	return "–"
}

// HostMetricTable has the host metrics of several runs as rows, each
// run's value and its ratio to the first run's: the metrics named in rows
// (metrics.HostColumns names) in that order, or without rows all of them
// (all) or those not zero in every run, host_span_ns always.
func HostMetricTable(labels []string, sums []metrics.Summary, rows []string, all bool) *Table {
	m := hostCompareHead("metric", labels)
	m.Title = "host side (no GPU activity)"
	cols := metrics.HostColumns()
	if rows != nil {
		byName := map[string]metrics.HostColumn{}
		for _, c := range cols {
			byName[c.Name] = c
		}
		cols = cols[:0:0]
		for _, n := range rows {
			if c, ok := byName[n]; ok {
				cols = append(cols, c)
			}
		}
	}
	for _, c := range cols {
		row := []any{c.Label}
		zero := true
		for i := range sums {
			v := c.Get(&sums[i])
			zero = zero && (v == nil || isZero(v))
			row = append(row, Cell{v, c.Unit})
			if i > 0 {
				row = append(row, hostRatioCell(v, c.Get(&sums[0])))
			}
		}
		if !zero || all || rows != nil || shows(c, metrics.KeptAtZero) {
			m.Rows = append(m.Rows, row)
		}
	}
	return m
}

// HostOpTable lists the ops of several runs by name, each run's total
// time in the op and its ratio to the first run's, by their longest total
// in any run, ties by name; the first top (hostOpsShown when 0). Nil when
// no run has ops.
func HostOpTable(labels []string, sums []metrics.Summary, top int) *Table {
	if top <= 0 {
		top = hostOpsShown
	}
	ops := hostCompareHead("op", labels)
	ops.Title = "host ops: total time per run"
	names, byName := opsByLongest(sums)
	if len(names) == 0 {
		return nil
	}
	if len(names) > top {
		ops.Notes = append(ops.Notes, plural(len(names)-top, "more ops")+" not shown")
		names = names[:top]
	}
	short := shortNames(names, func(s string) string { return s }, 60)
	for j, n := range names {
		row := []any{short[j]}
		for i := range sums {
			op, ok := byName[i][n]
			var v any = op.TotalNS
			if !ok {
				v = "–"
			}
			row = append(row, Cell{v, metrics.NS})
			if i > 0 {
				r := ""
				if _, ok0 := byName[0][n]; ok && ok0 {
					r = hostRatioCell(op.TotalNS, byName[0][n].TotalNS)
				}
				row = append(row, r)
			}
		}
		ops.Rows = append(ops.Rows, row)
	}
	return ops
}

// opsByLongest lists the op names of several runs by their longest total
// in any run, ties by name, with each run's ops by name: the order in
// which compare and plot --kind ops pair runs' ops.
func opsByLongest(sums []metrics.Summary) (names []string, byName []map[string]metrics.OpStat) {
	byName = make([]map[string]metrics.OpStat, len(sums))
	longest := map[string]int64{}
	for i := range sums {
		byName[i] = map[string]metrics.OpStat{}
		for _, op := range sums[i].Host.AllOps {
			byName[i][op.Name] = op
			longest[op.Name] = max(longest[op.Name], op.TotalNS)
		}
	}
	names = make([]string, 0, len(longest))
	for n := range longest {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(longest[b], longest[a]), cmp.Compare(a, b)) })
	return names, byName
}

// HostCompareRecords is the CSV shape of HostCompareTables: one row per
// (run, metric) and (run, op), raw values, and the ratio to the first run
// ("" where it has none).
func HostCompareRecords(labels []string, sums []metrics.Summary) *Table {
	t := &Table{Columns: []Column{
		labelColumn,
		{Name: "file", Unit: metrics.Text, Doc: docFile},
		{Name: "kind", Unit: metrics.Text, Doc: "metric (a host column of summarize --help) or op_total_ns (a host op's total time)"},
		{Name: "name", Unit: metrics.Text, Doc: "the metric's or the op's name"},
		{Name: "value", Unit: metrics.Count, Mixed: true, Null: true, Doc: metricValueDoc},
		{Name: "ratio", Unit: metrics.Count, Float: true, Null: true, Doc: ratioDoc("the first run")}}}
	rel := ratioOf
	for i := range sums {
		for _, c := range metrics.HostColumns() {
			v := c.Get(&sums[i])
			t.Rows = append(t.Rows, []any{labels[i], sums[i].Source, "metric", c.Name, v, rel(v, c.Get(&sums[0]))})
		}
	}
	if len(sums) == 0 {
		return t
	}
	first := map[string]int64{}
	for _, op := range sums[0].Host.AllOps {
		first[op.Name] = op.TotalNS
	}
	for i := range sums {
		for _, op := range sums[i].Host.AllOps {
			var r any
			if b, ok := first[op.Name]; ok {
				r = rel(op.TotalNS, b)
			}
			t.Rows = append(t.Rows, []any{labels[i], sums[i].Source, "op_total_ns", op.Name, op.TotalNS, r})
		}
	}
	return t
}

// hostHelp renders the definitions of metrics.HostColumns for `summarize
// --help`.
func hostHelp(name int) string {
	var b strings.Builder
	b.WriteString("Host-only runs (no kernel, memcpy or memset: CPU, Apple MPS, or device\n" +
		"activity not recorded) have one row per file instead, and compare and diff\n" +
		"put their host sides and ops side by side:\n")
	writeColumnDocs(&b, name, metrics.HostColumns())
	return b.String()
}

// WriteHostJSON writes the rows of HostRecords as the JSON document of
// the host table (see WriteJSON).
func WriteHostJSON(w io.Writer, sums []metrics.Summary) error {
	return WriteJSON(w, "host", HostRecords(sums))
}

// HostOnly reports whether there are summaries and none has a device with
// GPU activity: their host sides are all they have to report.
func HostOnly(sums []metrics.Summary) bool {
	for i := range sums {
		if len(sums[i].Devices) > 0 {
			return false
		}
	}
	return len(sums) > 0
}
