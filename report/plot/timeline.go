package plot

import (
	"errors"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// A Line is the utilization timeline of one run or device, for
// Timeline. Origin is the time drawn at 0: the run's first GPU
// activity, the same for all the devices of one run.
type Line struct {
	Label  string
	Points []metrics.Point
	Origin int64
	Run    int // lines of one run (its devices) have one Run, and one Origin
}

// Timeline draws GPU utilization (0–100 %) over time, one step line
// per Line, each from its Origin, so runs align at 0 and the devices of one
// run keep their offsets.
func Timeline(w io.Writer, format string, lines []Line, title string) error {
	p := newPlot()
	// µs for runs under 1 ms, ms, or s for runs of 10 s or more, where tick
	// labels such as 50000 ms are hard to read.
	var longest int64
	for _, l := range lines {
		if n := len(l.Points); n > 0 {
			longest = max(longest, l.Points[n-1].EndNS-l.Origin)
		}
	}
	unit, perNS := "ms", 1e6
	switch {
	case longest >= 10e9:
		unit, perNS = "s", 1e9
	case longest < 1e6:
		unit, perNS = "µs", 1e3
	}
	p.X.Label.Text = "time since first GPU activity (" + unit + ")"
	// Runs of very different lengths on one axis leave the short ones a
	// sliver: each is then drawn on the share of its own span.
	// The lines of one run (its devices) share its span.
	runSpan := map[int]float64{}
	for _, l := range lines {
		if n := len(l.Points); n > 0 {
			runSpan[l.Run] = max(runSpan[l.Run], float64(l.Points[n-1].EndNS-l.Origin))
		}
	}
	shortest := math.Inf(1)
	for _, sp := range runSpan {
		shortest = min(shortest, sp)
	}
	spans := make([]float64, len(lines))
	for i, l := range lines {
		spans[i] = runSpan[l.Run]
	}
	share := len(runSpan) > 1 && shortest > 0 && float64(longest) > 2*shortest
	if share {
		p.X.Label.Text = "share of each run's span (%)"
	}
	p.Y.Label.Text = "GPU utilization (%)"
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = plot.TickerFunc(percentTicks)
	p.X.Tick.Marker = plot.TickerFunc(plainTicks)
	p.X.Min, p.X.Max = 0, 0
	p.Add(lightGrid(true, true))
	var leg []legendEntry
	for i, l := range lines {
		if len(l.Points) == 0 {
			continue
		}
		x := func(ns int64) float64 { return float64(ns-l.Origin) / perNS }
		label := l.Label
		if share {
			x = func(ns int64) float64 { return 100 * float64(ns-l.Origin) / spans[i] }
			label += " (span " + report.Format(int64(spans[i]), metrics.NS) + ")"
		}
		xys := make(plotter.XYs, 0, len(l.Points)+1)
		for _, pt := range l.Points {
			xys = append(xys, plotter.XY{X: x(pt.StartNS), Y: 100 * pt.Util})
		}
		// The last bin's end closes the step line.
		end := l.Points[len(l.Points)-1]
		last := plotter.XY{X: x(end.EndNS), Y: 100 * end.Util}
		xys = append(xys, last)
		style := runLine(i, vg.Points(1.25))
		p.Add(&plotter.Line{XYs: xys, LineStyle: style, StepStyle: plotter.PostStep})
		if last.X == xys[0].X { // a single instant: a dot
			sc := &plotter.Scatter{XYs: xys[:1], GlyphStyle: draw.GlyphStyle{Color: style.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}}
			p.Add(sc)
		}
		p.X.Max = max(p.X.Max, last.X)
		leg = append(leg, legendEntry{label: label, line: runLine(i, vg.Points(2))})
	}
	if len(leg) == 0 {
		return errors.New("nothing to plot: no utilization points")
	}
	if p.X.Max <= 0 { // single points only
		p.X.Max = 1
	}
	p.Y.Min, p.Y.Max = 0, 100
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: 10 * vg.Inch, h: 4 * vg.Inch})
}
