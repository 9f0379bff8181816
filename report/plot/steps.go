package plot

import (
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// A StepRun is the step times of one run or device, for Steps.
type StepRun struct {
	Label  string
	Steps  []metrics.StepStat
	Warmup int // leading steps that look like warm-up (metrics.WarmupSteps)
}

// Steps draws each run's step time per step, a line with a dot a
// step; the warm-up steps (see metrics.WarmupSteps) are hollow rings on a
// dotted line, so warm-up and steady state show apart. The y axis is log
// when step times differ by more than a factor of 20.
func Steps(w io.Writer, format string, runs []StepRun, title string) error {
	lo, hi := math.Inf(1), 0.0
	for _, r := range runs {
		for _, st := range r.Steps {
			if d := float64(st.DurNS()); d > 0 {
				lo, hi = min(lo, d), max(hi, d)
			}
		}
	}
	if hi == 0 {
		return errors.New("nothing to plot: no ProfilerStep#N with a duration (profile with a schedule and call prof.step())")
	}
	p := newPlot()
	p.X.Label.Text = "step (ProfilerStep#N)"
	p.Y.Label.Text = "step time"
	p.X.Tick.Marker = plot.TickerFunc(stepTicks)
	y := func(ns int64) float64 { return float64(ns) }
	logY := hi/lo > 20
	if logY {
		y = func(ns int64) float64 { return logOrInf(float64(ns)) }
		p.Y.Tick.Marker = plot.TickerFunc(nsLogTicks)
		p.Y.Label.Text += " (log scale)"
		p.Y.Min, p.Y.Max = math.Log10(lo/1.5), math.Log10(hi*1.5)
	} else {
		p.Y.Tick.Marker = plot.TickerFunc(nsTicks)
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	p.Add(lightGrid(true, true))
	var leg []legendEntry
	warm := false
	for i, r := range runs {
		if len(r.Steps) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(r.Steps))
		for k, st := range r.Steps {
			xys[k] = plotter.XY{X: float64(st.Number), Y: y(st.DurNS())}
		}
		style := runLine(i, vg.Points(1.5))
		n := min(r.Warmup, len(xys))
		if n > 0 {
			warm = true
			dotted := style
			dotted.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(&plotter.Line{XYs: xys[:min(n+1, len(xys))], LineStyle: dotted},
				&plotter.Scatter{XYs: xys[:n], GlyphStyle: draw.GlyphStyle{Color: style.Color, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}})
		}
		if rest := xys[n:]; len(rest) > 0 {
			p.Add(&plotter.Line{XYs: rest, LineStyle: style},
				&plotter.Scatter{XYs: rest, GlyphStyle: draw.GlyphStyle{Color: style.Color, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}})
		}
		label := fmt.Sprintf("%s (%s", r.Label, report.Plural(len(r.Steps), "steps"))
		if n > 0 {
			label += fmt.Sprintf(", %d warm-up", n)
		}
		leg = append(leg, legendEntry{label: label + ")", line: runLine(i, vg.Points(2))})
	}
	if warm {
		leg = append(leg, legendEntry{label: "○ warm-up: a leading step over twice the median step (--steady leaves it out)"})
	}
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: 9 * vg.Inch, h: 4.5 * vg.Inch})
}

// HostSteps is the host steps of a summary (ProfilerStep#N on the CPU),
// for Steps: what a run without GPU activity has in place of device
// steps.
func HostSteps(label string, s *metrics.Summary) StepRun {
	r := StepRun{Label: label, Warmup: s.Host.WarmupSteps}
	for _, st := range s.Host.Steps {
		r.Steps = append(r.Steps, metrics.StepStat{Step: st})
	}
	return r
}
