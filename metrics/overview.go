package metrics

import (
	"math"
	"slices"
)

// OverviewColumns are the columns of the overview of several traces
// (summarize of several files), in their Overview order.
func OverviewColumns() []Column {
	return Ranked(Columns(), func(c Column) int { return c.Overview })
}

// An OverviewRow is one GPU of one trace in the overview: its value of
// each overview column, NaN where it has none (no value, or blank: its
// OverviewIf count is 0).
type OverviewRow []float64

// ColumnStats summarise one overview column over the GPUs that have a
// value: what the overview's min, median and max rows and its notes say.
type ColumnStats struct {
	N                int     // GPUs with a value
	Min, Median, Max float64 // 0 when N is 0
	// Lowest is the row of the first GPU with the Min value; -1 when N is
	// 0.
	Lowest int
}

// OverviewStats computes each of n columns' statistics over rows.
func OverviewStats(rows []OverviewRow, n int) []ColumnStats {
	out := make([]ColumnStats, n)
	values := make([]float64, 0, len(rows))
	for j := range out {
		values = values[:0]
		st := ColumnStats{Lowest: -1}
		for i, r := range rows {
			v := r[j]
			if math.IsNaN(v) {
				continue
			}
			if st.Lowest < 0 || v < st.Min {
				st.Min, st.Lowest = v, i
			}
			values = append(values, v)
		}
		st.N = len(values)
		if st.N > 0 {
			st.Max = slices.Max(values)
			st.Median = MedianF(values)
		}
		out[j] = st
	}
	return out
}

// Straggler reports whether the lowest value of a column stands apart:
// three GPUs or more have one, and the lowest is under half the median.
// Of communication time in one data-parallel job it marks the rank the
// others wait for inside the collectives: the slowest spends the least
// time in them.
func (s ColumnStats) Straggler() bool { return s.N >= 3 && s.Min < s.Median/2 }
