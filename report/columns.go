package report

import (
	"github.com/traceql/traceql/metrics"
)

// The displays take their columns from the columns' own declarations
// (metrics.Col: Show, Row, Overview, Headline), so that no list here can
// name a column that does not exist or forget one that does.

// shows reports whether c shows in place p.
func shows[R any](c metrics.Col[R], p metrics.Place) bool { return c.Show&p != 0 }

// textColumns returns the metric columns in reading order (their Row),
// then the others in definition order.
func textColumns() []metrics.Column {
	cols := metrics.Columns()
	out := metrics.Ranked(cols, func(c metrics.Column) int { return c.Row })
	for _, c := range cols {
		if c.Row == 0 {
			out = append(out, c)
		}
	}
	return out
}

// CompareHeadline are the metrics compare shows by default (the columns'
// Headline): the numbers of a torch.compile mode study.
var CompareHeadline = metrics.Names(metrics.Ranked(metrics.Columns(), func(c metrics.Column) int { return c.Headline }))
