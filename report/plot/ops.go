package plot

import (
	"cmp"
	"errors"
	"image/color"
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// Ops draws the top host ops (opsBySelf) as horizontal bars of self
// time, a group per op and a bar per run, longest on top. Self time, not
// total: ops nest (aten::linear holds aten::addmm), and bars of totals
// would count the inner op's time twice. Times are absolute, not ratios to the first run: eager and compiled runs launch
// from different ops (a compiled region has no eager counterpart), and an
// op a run did not call is labelled "none" there. The image grows taller
// with the number of bars.
func Ops(w io.Writer, format string, labels []string, sums []metrics.Summary, top int, title string) error {
	names, byName := opsBySelf(sums)
	names = names[:min(len(names), top)]
	if len(names) == 0 {
		return errors.New("nothing to plot: no host ops (cpu_op events)")
	}
	nr := len(sums)
	p := newPlot()
	p.X.Label.Text = "self time (less the ops nested inside)"
	p.X.Tick.Marker = plot.TickerFunc(nsTicks)
	p.Y.Tick.Label = styled(p.Y.Tick.Label, 9, text.XRight, text.YCenter)
	p.Y.Tick.Length = topNameGap // unseen ticks: see TopKernels
	p.Y.Tick.LineStyle.Color = color.White
	p.Y.Padding = 0
	bars := &barPlot{part: barAll, width: 0.8 / float64(nr), horizontal: true, label: styled(p.X.Tick.Label, 8, text.XLeft, text.YCenter)}
	var ticks plot.ConstantTicks
	var longest int64
	short := fitNames(p.Y.Tick.Label, names, func(s string) string { return s }, topNameWidth)
	for k := range names {
		center := float64(len(names) - 1 - k)
		ticks = append(ticks, plot.Tick{Value: center, Label: short[k]})
		for i := range sums {
			// The first run's bar on top of its group.
			y := center + 0.4 - (float64(i)+0.5)*bars.width
			op, ok := byName[i][names[k]]
			label := "none"
			if ok {
				label = report.Format(float64(op.SelfNS), metrics.NS)
			}
			bars.bars = append(bars.bars, plotBar{pos: y, val: float64(op.SelfNS), color: runColor(i), label: label})
			longest = max(longest, op.SelfNS)
		}
	}
	p.Y.Tick.Marker = ticks
	p.Add(lightGrid(true, false), bars)
	p.X.Min, p.X.Max = 0, max(float64(longest), 1)
	p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5
	var leg []legendEntry
	for i, l := range labels {
		leg = append(leg, legendEntry{label: l, fill: runColor(i)})
	}
	h := 1.5*vg.Inch + vg.Length(len(names)*max(nr, 2))*vg.Inch/6
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: 10 * vg.Inch, h: max(h, 3*vg.Inch)})
}

// opsBySelf is opsByLongest by self time: the ops' names, the longest
// self time in any run first, ties by name, and each run's ops by name.
func opsBySelf(sums []metrics.Summary) (names []string, byName []map[string]metrics.OpStat) {
	names, byName = report.OpsByLongest(sums)
	longest := map[string]int64{}
	for i := range byName {
		for n, op := range byName[i] {
			longest[n] = max(longest[n], op.SelfNS)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(longest[b], longest[a]), cmp.Compare(a, b)) })
	return names, byName
}
