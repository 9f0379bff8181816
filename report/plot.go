package report

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/traceql/traceql/metrics"
)

// The plots below take computed results and draw them with gonum.org/v1/plot.
// Each writes one image, "png" (96 dpi) or "svg", to w. The same input
// always gives the same bytes.

// A Series is a sample of durations of one run or device, in ns: kernel
// durations for PlotKernelHist, idle-gap lengths for PlotGapHist.
type Series struct {
	Label  string
	Values []int64 // ns
}

// A Line is the utilization timeline of one run or device, for
// PlotTimeline. Origin is the time drawn at 0: the run's first GPU
// activity, the same for all the devices of one run.
type Line struct {
	Label  string
	Points []metrics.Point
	Origin int64
	Run    int // lines of one run (its devices) have one Run, and one Origin
}

// Bars holds the headline metrics of several runs, for PlotCompare.
type Bars struct {
	Runs    []string // run labels; the first is the baseline
	Metrics []BarMetric
}

// A BarMetric is one metric of every run in a Bars.
type BarMetric struct {
	Name   string
	Unit   metrics.Unit
	Values []float64 // one per run, in the order of Bars.Runs
}

// PlotCompare draws grouped bars, one group per metric and one bar per run.
// A bar's height is the run's value divided by the first run's (the
// baseline is 1; a bar whose baseline is 0 is drawn as 0), and its label
// is the absolute value. The y axis turns logarithmic when the ratios span
// more than a factor of 10.
//
// size is the image's width and height in inches; zero: 8 × 5.
func PlotCompare(w io.Writer, format string, b Bars, title string, size [2]float64) error {
	if len(b.Runs) == 0 || len(b.Metrics) == 0 {
		return errors.New("nothing to plot: no runs or no metrics")
	}
	for _, m := range b.Metrics {
		if len(m.Values) != len(b.Runs) {
			return fmt.Errorf("plot compare: metric %q has %d values for %d runs", m.Name, len(m.Values), len(b.Runs))
		}
		if math.IsNaN(m.Values[0]) {
			return fmt.Errorf("nothing to compare with: %s, the first run, has no GPU activity", b.Runs[0])
		}
	}
	const group = 0.9 // share of a metric's slot taken by its bars
	width, height := 8*vg.Inch, 5*vg.Inch
	if size[0] > 0 && size[1] > 0 {
		width, height = vg.Length(size[0])*vg.Inch, vg.Length(size[1])*vg.Inch
	}
	nm, nr := len(b.Metrics), len(b.Runs)
	p := newPlot()
	lo, hi := 1.0, 1.0
	bars := &barPlot{width: group / float64(nr) * 0.94, label: styled(p.X.Tick.Label, 8, text.XCenter, text.YBottom)}
	var rebased []string // metrics whose first run is 0: drawn as ratios to another run
	names := make([]string, nm)
	for i, m := range b.Metrics {
		names[i] = m.Name
		// A metric the first run has none of is drawn against the first
		// run that has some, and says so.
		base := m.Values[0]
		for _, v := range m.Values {
			if base == 0 && v != 0 && !math.IsNaN(v) {
				base = v
			}
		}
		if base != m.Values[0] {
			k := slices.Index(m.Values, base)
			names[i] += "*"
			rebased = append(rebased, fmt.Sprintf("%s: %s has none; bars are ratios to %s", m.Name, b.Runs[0], b.Runs[k]))
		}
		for j, v := range m.Values {
			r := 0.0
			if base != 0 && !math.IsNaN(v/base) && !math.IsInf(v/base, 0) {
				r = v / base
			}
			if r > 0 {
				lo, hi = min(lo, r), max(hi, r)
			}
			x := float64(i) - group/2 + (float64(j)+0.5)*group/float64(nr)
			label := Format(v, m.Unit)
			if math.IsNaN(v) {
				label = "no GPU"
			}
			bars.bars = append(bars.bars, plotBar{pos: x, val: r, color: runColor(j), label: label})
		}
	}
	logY := hi/lo > 10

	// Labels wider than their bars are turned upright. The data area is
	// about the figure less the margins and the y axis.
	slot := (width - 2*figureMargin - 65) / vg.Length(nm)
	var widest vg.Length
	for _, br := range bars.bars {
		widest = max(widest, bars.label.Width(br.label))
	}
	if widest+2 > slot*group/vg.Length(nr) {
		bars.label.Rotation = math.Pi / 2
		bars.label.XAlign, bars.label.YAlign = text.XLeft, text.YCenter
	}

	p.Y.Label.Text = "ratio to " + b.Runs[0]
	one := 1.0
	if logY {
		// Log axes are drawn as linear axes of log10 values: gonum's
		// LogScale misplaces the axis label's glyph box.
		for i := range bars.bars {
			bars.bars[i].val = logOrInf(bars.bars[i].val)
		}
		p.Y.Tick.Marker = plot.TickerFunc(ratioLogTicks)
		p.Y.Label.Text += " (log scale)"
		p.Y.Min, p.Y.Max = math.Log10(lo/2), math.Log10(hi*2)
		bars.base = p.Y.Min
		one = 0
	} else {
		p.Y.Tick.Marker = plot.TickerFunc(ratioTicks)
		p.Y.Min, p.Y.Max = 0, hi*1.1
	}
	p.X.Min, p.X.Max = -0.5, float64(nm)-0.5
	p.X.Padding = 0
	p.X.Tick.Length = 0
	// Metric names wrap at spaces to fit their slot; if some still do not
	// fit, or take more than two lines, they are slanted instead.
	var ticks plot.ConstantTicks
	slant := false
	for i := range b.Metrics {
		name := wrapLabel(p.X.Tick.Label, names[i], slot*0.95)
		if p.X.Tick.Label.Width(name) > slot*0.95 || strings.Count(name, "\n") > 1 {
			slant = true
		}
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: name})
	}
	if slant {
		for i := range b.Metrics {
			ticks[i].Label = names[i]
		}
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = text.XRight, text.YTop
	}
	p.X.Tick.Marker = ticks

	// The dashed line at 1 goes over the bars and under their labels.
	labels := *bars
	bars.part, labels.part = barFills, barLabels
	p.Add(lightGrid(false, true), bars, baseLine(-0.5, float64(nm)-0.5, one), &labels)
	var leg []legendEntry
	for j, r := range b.Runs {
		leg = append(leg, legendEntry{label: r, fill: runColor(j)})
	}
	for _, n := range rebased {
		leg = append(leg, legendEntry{label: "* " + n})
	}
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: width, h: height})
}

// PlotKernelHist draws a histogram of kernel durations (ns) with 40
// log-spaced bins, one outlined, translucent histogram per series. By
// time, each bin holds the kernel time of its kernels, so that where the
// time goes shows (27,500 kernels of 20 µs weigh 550 ms); else it counts
// them. The y axis turns logarithmic when the series' peaks differ by more
// than a factor of 10.
func PlotKernelHist(w io.Writer, format string, s []Series, title string, byTime bool) error {
	return plotHist(w, format, s, title, "kernel duration", "kernels", "kernel time", "zero-length kernels", byTime)
}

// PlotGapHist draws a histogram of idle-gap lengths (ns), like
// PlotKernelHist: by time, each bin holds the idle time of its gaps, so
// that 445 ms of idle in 11 long gaps is not a sliver beside 3,000 short
// ones.
func PlotGapHist(w io.Writer, format string, s []Series, title string, byTime bool) error {
	return plotHist(w, format, s, title, "idle gap length", "gaps", "idle time", "zero-length gaps", byTime)
}

// plotHist draws PlotKernelHist and PlotGapHist: xlabel names the axis,
// noun the things counted ("kernels"), timeNoun what their time is
// ("kernel time"), zeros those a log axis cannot place.
func plotHist(w io.Writer, format string, s []Series, title, xlabel, noun, timeNoun, zerosNoun string, byTime bool) error {
	what := noun
	const nbins = 40
	n, lo, hi := 0, int64(math.MaxInt64), int64(0)
	for _, se := range s {
		for _, v := range se.Values {
			n++
			if v > 0 {
				lo = min(lo, v)
			}
			hi = max(hi, v)
		}
	}
	if n == 0 {
		return fmt.Errorf("nothing to plot: no %s", what)
	}
	if hi <= 0 { // all zero
		lo, hi = 1, 1
	}
	flo, fhi := float64(lo), float64(hi)
	if fhi/flo < 1.5 {
		flo, fhi = flo/2, fhi*2
	}
	// Bins and axes are in log10 units (see PlotCompare).
	llo, lhi := math.Log10(flo), math.Log10(fhi)
	step := (lhi - llo) / nbins
	edges := make([]float64, nbins+1)
	for k := range edges {
		edges[k] = llo + float64(k)*step
	}
	edges[nbins] = lhi

	counts := make([][]float64, len(s))
	zeros := make([]int, len(s)) // a log axis has no 0: the legend counts them
	var peakLo, peakHi float64
	for i, se := range s {
		c := make([]float64, nbins)
		for _, v := range se.Values {
			if v <= 0 {
				zeros[i]++
				continue
			}
			weight := 1.0
			if byTime {
				weight = float64(v)
			}
			c[min(max(int((math.Log10(float64(v))-llo)/step), 0), nbins-1)] += weight
		}
		counts[i] = c
		if peak := slices.Max(c); peak > 0 {
			if peakLo == 0 {
				peakLo = peak
			}
			peakLo, peakHi = min(peakLo, peak), max(peakHi, peak)
		}
	}

	p := newPlot()
	p.X.Label.Text = xlabel + " (log scale)"
	p.X.Tick.Marker = plot.TickerFunc(nsLogTicks)
	p.X.Min, p.X.Max = edges[0], edges[nbins]
	p.X.Padding = 0
	p.Y.Label.Text = noun
	linear, logT := plot.TickerFunc(countTicks), plot.TickerFunc(countLogTicks)
	floor := 0.5 // below one of a count
	if byTime {
		p.Y.Label.Text = timeNoun + " per bin"
		linear, logT = plot.TickerFunc(nsTicks), plot.TickerFunc(nsLogTicks)
		floor = peakLo / 1e3
	}
	base := 0.0
	if peakHi/peakLo > 10 {
		for _, c := range counts {
			for k := range c {
				c[k] = logOrInf(c[k])
			}
		}
		p.Y.Tick.Marker = logT
		p.Y.Label.Text += " (log scale)"
		base = math.Log10(floor)
		p.Y.Min, p.Y.Max = base, math.Log10(peakHi*2)
	} else {
		p.Y.Tick.Marker = linear
		p.Y.Min, p.Y.Max = 0, peakHi*1.08
	}

	p.Add(lightGrid(true, true))
	var fills, lines []plot.Plotter
	var leg []legendEntry
	for i, se := range s {
		fill := translucent(runColor(i))
		line := runLine(i, vg.Points(1.5))
		fills = append(fills, &stepHist{edges: edges, counts: counts[i], base: base, fill: fill})
		lines = append(lines, &stepHist{edges: edges, counts: counts[i], base: base, line: line})
		label := fmt.Sprintf("%s (%s", se.Label, plural(len(se.Values), noun))
		if byTime {
			var sum int64
			for _, v := range se.Values {
				sum += v
			}
			label += ", " + Format(sum, metrics.NS)
		}
		if zeros[i] > 0 {
			label += fmt.Sprintf(", %s not drawn", plural(zeros[i], zerosNoun))
		}
		leg = append(leg, legendEntry{
			label: label + ")",
			fill:  fill,
			line:  line,
		})
	}
	p.Add(fills...) // all fills under all outlines
	p.Add(lines...)
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: 8 * vg.Inch, h: 5 * vg.Inch})
}

// PlotTimeline draws GPU utilization (0–100 %) over time, one step line
// per Line, each from its Origin, so runs align at 0 and the devices of one
// run keep their offsets.
func PlotTimeline(w io.Writer, format string, lines []Line, title string) error {
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
			label += " (span " + Format(int64(spans[i]), metrics.NS) + ")"
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

// A StepRun is the step times of one run or device, for PlotSteps.
type StepRun struct {
	Label  string
	Steps  []metrics.StepStat
	Warmup int // leading steps that look like warm-up (metrics.WarmupSteps)
}

// PlotSteps draws each run's step time per step, a line with a dot a
// step; the warm-up steps (see metrics.WarmupSteps) are hollow rings on a
// dotted line, so warm-up and steady state show apart. The y axis is log
// when step times differ by more than a factor of 20.
func PlotSteps(w io.Writer, format string, runs []StepRun, title string) error {
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
	p.X.Tick.Marker = plot.TickerFunc(plainTicks)
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
		label := fmt.Sprintf("%s (%s", r.Label, plural(len(r.Steps), "steps"))
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

// PlotTopKernels draws the kernels' total times as horizontal bars,
// longest on top, each labelled with its count and share of kernel time.
// The image grows taller with the number of kernels.
func PlotTopKernels(w io.Writer, format string, k []metrics.KernelStat, title string) error {
	if len(k) == 0 {
		return errors.New("nothing to plot: no kernels")
	}
	ks := slices.Clone(k)
	slices.SortStableFunc(ks, func(a, b metrics.KernelStat) int {
		return cmp.Or(cmp.Compare(b.TotalNS, a.TotalNS), cmp.Compare(a.Name, b.Name))
	})
	p := newPlot()
	p.X.Label.Text = "total time"
	p.X.Tick.Marker = plot.TickerFunc(nsTicks)
	p.Y.Tick.Label = styled(p.Y.Tick.Label, 9, text.XRight, text.YCenter)
	p.Y.Tick.Length = 0
	p.Y.Padding = 0
	bars := &barPlot{part: barAll, width: 0.7, horizontal: true, label: styled(p.X.Tick.Label, 9, text.XLeft, text.YCenter)}
	var names plot.ConstantTicks
	var longest int64
	labels := shortNames(ks, kernelName, 60)
	for i, s := range ks {
		y := float64(len(ks) - 1 - i)
		names = append(names, plot.Tick{Value: y, Label: labels[i]})
		label := plural(s.Count, "calls") + ", " + Format(s.Share, metrics.Ratio)
		bars.bars = append(bars.bars, plotBar{pos: y, val: float64(s.TotalNS), color: runColor(0), label: label})
		longest = max(longest, s.TotalNS)
	}
	p.Y.Tick.Marker = names
	p.Add(lightGrid(true, false), bars)
	p.X.Min, p.X.Max = 0, max(float64(longest), 1)
	p.Y.Min, p.Y.Max = -0.5, float64(len(ks))-0.5
	h := 1.25*vg.Inch + vg.Length(len(ks))*vg.Inch/4
	return renderFigure(w, format, figure{title: title, p: p, w: 10 * vg.Inch, h: max(h, 3*vg.Inch)})
}

// figure is a plot with its title and a legend row drawn above it.
type figure struct {
	title  string
	p      *plot.Plot
	legend []legendEntry
	w, h   vg.Length
}

// A legendEntry is a label after a swatch: a filled box, a line, or a box
// outlined by the line.
type legendEntry struct {
	label string
	fill  color.Color
	line  draw.LineStyle
}

const figureMargin = 10 // points around the figure

// renderFigure draws f on a white canvas of the given format and writes it to w.
func renderFigure(w io.Writer, format string, f figure) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("plot: unsupported image format %q (want png or svg)", format)
	}
	cw, err := draw.NewFormattedCanvas(f.w, f.h, format)
	if err != nil {
		return err
	}
	c := draw.New(cw)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, figureMargin, -figureMargin, figureMargin, -figureMargin)
	if f.title != "" {
		st := f.p.Title.TextStyle
		st.Font = font.From(font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}, 14)
		c.FillText(st, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.title)
		c.Max.Y -= st.Height(f.title) + 6
	}
	if len(f.legend) > 0 {
		c.Max.Y = drawLegend(c, styled(f.p.X.Tick.Label, 10, text.XLeft, text.YCenter), f.legend) - 4
	}
	f.p.Title.Text = ""
	f.p.Draw(c)
	_, err = cw.WriteTo(w)
	return err
}

// drawLegend lays the entries out in centered rows at the top of c and
// returns the y coordinate below them.
func drawLegend(c draw.Canvas, st text.Style, entries []legendEntry) vg.Length {
	const swatch, gap, sep = 16, 5, 18
	rowH := st.Height("Xg") + 4
	itemW := func(e legendEntry) vg.Length { return swatch + gap + st.Width(e.label) }
	var rows [][]legendEntry
	var rowW []vg.Length
	for _, e := range entries {
		n := len(rows)
		if n == 0 || rowW[n-1]+sep+itemW(e) > c.Size().X {
			rows, rowW = append(rows, nil), append(rowW, -sep)
			n++
		}
		rows[n-1] = append(rows[n-1], e)
		rowW[n-1] += sep + itemW(e)
	}
	y := c.Max.Y
	for i, row := range rows {
		x := c.Center().X - rowW[i]/2
		mid := y - rowH/2
		for _, e := range row {
			box := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: mid - 5},
				Max: vg.Point{X: x + swatch, Y: mid + 5},
			}}
			if e.fill != nil {
				box.SetColor(e.fill)
				box.Fill(box.Rectangle.Path())
			}
			if e.line.Width > 0 {
				if e.fill != nil {
					box.StrokeLines(e.line, []vg.Point{box.Min, {X: box.Min.X, Y: box.Max.Y}, box.Max, {X: box.Max.X, Y: box.Min.Y}, box.Min})
				} else {
					box.StrokeLine2(e.line, box.Min.X, mid, box.Max.X, mid)
				}
			}
			c.FillText(st, vg.Point{X: x + swatch + gap, Y: mid}, e.label)
			x += itemW(e) + sep
		}
		y -= rowH
	}
	return y
}

// newPlot returns a plot with sans-serif text and no title (renderFigure
// draws the title).
func newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil // renderFigure paints the whole canvas
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = styled(a.Label.TextStyle, 12, a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign)
		a.Tick.Label = styled(a.Tick.Label, 10, a.Tick.Label.XAlign, a.Tick.Label.YAlign)
		a.Tick.Length = 4
		a.LineStyle.Color = color.Gray{Y: 90}
		a.Tick.LineStyle.Color = color.Gray{Y: 90}
	}
	return p
}

// styled returns st in Liberation Sans of the given size and alignment,
// unrotated.
func styled(st text.Style, size vg.Length, x text.XAlignment, y text.YAlignment) text.Style {
	st.Font = font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
	st.XAlign, st.YAlign = x, y
	st.Rotation = 0
	return st
}

// runColor returns the color of the i-th run: the Tableau 10 palette.
func runColor(i int) color.NRGBA {
	p := [...]color.NRGBA{
		{0x4e, 0x79, 0xa7, 0xff}, // blue
		{0xf2, 0x8e, 0x2b, 0xff}, // orange
		{0x59, 0xa1, 0x4f, 0xff}, // green
		{0xe1, 0x57, 0x59, 0xff}, // red
		{0xb0, 0x7a, 0xa1, 0xff}, // purple
		{0x76, 0xb7, 0xb2, 0xff}, // teal
		{0xed, 0xc9, 0x48, 0xff}, // yellow
		{0x9c, 0x75, 0x5f, 0xff}, // brown
		{0xff, 0x9d, 0xa7, 0xff}, // pink
		{0xba, 0xb0, 0xac, 0xff}, // gray
	}
	c := p[i%len(p)]
	if i/len(p)%2 == 1 {
		// Runs 11 to 20 (ranks, often): the same hues, darker.
		c.R, c.G, c.B = c.R/2, c.G/2, c.B/2
	}
	return c
}

// runLine is the line of run i: solid, or dashed for runs 11 to 20, whose
// darker colours alone are hard to tell from the first ten's in thin lines.
func runLine(i int, width vg.Length) draw.LineStyle {
	l := draw.LineStyle{Color: runColor(i), Width: width}
	if i/10%2 == 1 {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
	}
	return l
}

// translucent returns c at 28 % opacity, for fills that overlap.
func translucent(c color.NRGBA) color.NRGBA {
	c.A = 0x48
	return c
}

// lightGrid draws light lines at the major ticks.
func lightGrid(vertical, horizontal bool) *plotter.Grid {
	g := &plotter.Grid{}
	light := draw.LineStyle{Color: color.Gray{Y: 225}, Width: vg.Points(0.6)}
	if vertical {
		g.Vertical = light
	}
	if horizontal {
		g.Horizontal = light
	}
	return g
}

// baseLine is a dashed horizontal line at y from x0 to x1.
func baseLine(x0, x1, y float64) *plotter.Line {
	return &plotter.Line{
		XYs: plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}},
		LineStyle: draw.LineStyle{
			Color:  color.Gray{Y: 60},
			Width:  vg.Points(1),
			Dashes: []vg.Length{vg.Points(5), vg.Points(3)},
		},
	}
}

// wrapLabel breaks s at spaces into lines no wider than w, where it can.
func wrapLabel(st text.Style, s string, w vg.Length) string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return s
	}
	lines := []string{words[0]}
	for _, word := range words[1:] {
		if cand := lines[len(lines)-1] + " " + word; st.Width(cand) <= w {
			lines[len(lines)-1] = cand
		} else {
			lines = append(lines, word)
		}
	}
	return strings.Join(lines, "\n")
}

// A plotBar is one bar of a barPlot: centered at pos on the category axis,
// val long on the value axis.
type plotBar struct {
	pos, val float64
	color    color.Color
	label    string
}

// barPlot draws bars from base (0, or the axis minimum of a log axis) with
// a label past each bar's end: above vertical bars, right of horizontal
// ones.
type barPlot struct {
	bars       []plotBar
	width      float64 // in category-axis units
	base       float64
	horizontal bool
	label      text.Style
	part       barPart // what Plot draws
}

// A barPart says what of a barPlot its Plot method draws.
type barPart int

const (
	barFills barPart = 1 << iota
	barLabels
	barAll = barFills | barLabels
)

const labelGap = 3 // points between a bar's end and its label

// Plot implements plot.Plotter.
func (b *barPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, br := range b.bars {
		v := max(br.val, b.base)
		lo, hi := br.pos-b.width/2, br.pos+b.width/2
		var r vg.Rectangle
		var at vg.Point
		if b.horizontal {
			r = vg.Rectangle{Min: vg.Point{X: trX(b.base), Y: trY(lo)}, Max: vg.Point{X: trX(v), Y: trY(hi)}}
			at = vg.Point{X: r.Max.X + labelGap, Y: trY(br.pos)}
		} else {
			r = vg.Rectangle{Min: vg.Point{X: trX(lo), Y: trY(b.base)}, Max: vg.Point{X: trX(hi), Y: trY(v)}}
			at = vg.Point{X: trX(br.pos), Y: r.Max.Y + labelGap}
		}
		if b.part&barFills != 0 {
			c.SetColor(br.color)
			c.Fill(r.Path())
		}
		if b.part&barLabels != 0 {
			c.FillText(b.label, at, br.label)
		}
	}
}

// GlyphBoxes implements plot.GlyphBoxer, so that labels are not clipped.
func (b *barPlot) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	if b.part&barLabels == 0 {
		return nil
	}
	var boxes []plot.GlyphBox
	for _, br := range b.bars {
		v := max(br.val, b.base)
		w, h := b.label.Width(br.label), b.label.Height(br.label)
		var g plot.GlyphBox
		switch {
		case b.horizontal:
			g.X, g.Y = p.X.Norm(v), p.Y.Norm(br.pos)
			g.Rectangle = vg.Rectangle{Min: vg.Point{X: labelGap, Y: -h / 2}, Max: vg.Point{X: labelGap + w, Y: h / 2}}
		case b.label.Rotation != 0:
			g.X, g.Y = p.X.Norm(br.pos), p.Y.Norm(v)
			g.Rectangle = vg.Rectangle{Min: vg.Point{X: -h / 2, Y: labelGap}, Max: vg.Point{X: h / 2, Y: labelGap + w}}
		default:
			g.X, g.Y = p.X.Norm(br.pos), p.Y.Norm(v)
			g.Rectangle = vg.Rectangle{Min: vg.Point{X: -w / 2, Y: labelGap}, Max: vg.Point{X: w / 2, Y: labelGap + h}}
		}
		boxes = append(boxes, g)
	}
	return boxes
}

// stepHist draws a histogram as a filled area or an outline: counts[k] over
// [edges[k], edges[k+1]), dropping to base at both ends.
type stepHist struct {
	edges, counts []float64
	base          float64
	fill          color.Color
	line          draw.LineStyle
}

// Plot implements plot.Plotter. Each run of non-empty bins is one shape,
// so that empty bins leave no line along the x axis.
func (h *stepHist) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for k := 0; k < len(h.counts); k++ {
		if !(h.counts[k] > h.base) {
			continue
		}
		pts := []vg.Point{{X: trX(h.edges[k]), Y: trY(h.base)}}
		for ; k < len(h.counts) && h.counts[k] > h.base; k++ {
			y := trY(h.counts[k])
			pts = append(pts, vg.Point{X: trX(h.edges[k]), Y: y}, vg.Point{X: trX(h.edges[k+1]), Y: y})
		}
		pts = append(pts, vg.Point{X: trX(h.edges[k]), Y: trY(h.base)})
		if h.fill != nil {
			var path vg.Path
			path.Move(pts[0])
			for _, pt := range pts[1:] {
				path.Line(pt)
			}
			path.Close()
			c.SetColor(h.fill)
			c.Fill(path)
		}
		if h.line.Width > 0 {
			c.StrokeLines(h.line, pts)
		}
	}
}

// logOrInf is math.Log10, except that it returns -Inf for all x <= 0.
func logOrInf(x float64) float64 {
	if x <= 0 || math.IsNaN(x) {
		return math.Inf(-1)
	}
	return math.Log10(x)
}

// nsLogTicks marks an axis of log10 nanoseconds: decades, labelled "1 µs",
// "10 µs", …; also 2× and 5× (or every multiple) when the range holds
// fewer than three decades.
func nsLogTicks(lo, hi float64) []plot.Tick {
	return logTicks(lo, hi, func(v float64) string { return trimZeros(Format(v, metrics.NS)) })
}

// countLogTicks marks an axis of log10 counts.
func countLogTicks(lo, hi float64) []plot.Tick {
	return logTicks(lo, hi, func(v float64) string {
		if v < 1 {
			return ""
		}
		return Format(v, metrics.Count)
	})
}

// ratioLogTicks marks an axis of log10 ratios: "0.1×", "1×", "10×".
func ratioLogTicks(lo, hi float64) []plot.Tick {
	return logTicks(lo, hi, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "×" })
}

// logTicks marks a linear axis of log10 values from lo to hi at 10^k,
// labelled by label(10^k); if that gives fewer than three labels, also at 2
// and 5 times 10^k, and failing that at every multiple.
func logTicks(lo, hi float64, label func(float64) string) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	lo, hi = math.Pow(10, lo), math.Pow(10, hi)
	var ticks []plot.Tick
	for _, labelled := range [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		ticks = ticks[:0]
		n := 0
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			for m := 1; m <= 9; m++ {
				// Parse the decimal form so that 3e-2 is 0.03, not 0.030000000000000002.
				v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(int(e)), 64)
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: math.Log10(v)}
				if slices.Contains(labelled, m) {
					t.Label = label(v)
					if t.Label != "" {
						n++
					}
				}
				ticks = append(ticks, t)
			}
		}
		if n >= 3 {
			break
		}
	}
	return ticks
}

// ratioTicks marks a linear axis of ratios.
func ratioTicks(lo, hi float64) []plot.Tick {
	return linearTicks(lo, hi, 6, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "×" })
}

// countTicks marks a linear axis of counts; fractions are unlabelled.
func countTicks(lo, hi float64) []plot.Tick {
	return linearTicks(lo, hi, 6, func(v float64) string {
		if v != math.Trunc(v) {
			return ""
		}
		return Format(v, metrics.Count)
	})
}

// nsTicks marks a linear axis of nanoseconds.
func nsTicks(lo, hi float64) []plot.Tick {
	return linearTicks(lo, hi, 7, func(v float64) string {
		if v == 0 {
			return "0"
		}
		return trimZeros(Format(v, metrics.NS))
	})
}

// plainTicks marks a linear axis in plain numbers, about every inch of a
// 10-inch plot.
func plainTicks(lo, hi float64) []plot.Tick {
	return linearTicks(lo, hi, 10, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
}

// percentTicks marks 0–100 % every 20, with minor ticks every 10.
func percentTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for v := 0; v <= 100; v += 10 {
		t := plot.Tick{Value: float64(v)}
		if v%20 == 0 {
			t.Label = strconv.Itoa(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// linearTicks marks [lo, hi] at multiples of a round step (1, 2, 2.5 or 5
// times a power of ten) that gives at most about want labelled ticks, with
// unlabelled minor ticks between them.
func linearTicks(lo, hi float64, want int, label func(float64) string) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / float64(want)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minor := 10*mag, 5
	for _, s := range []struct {
		f     float64
		minor int
	}{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}} {
		if s.f*mag >= raw {
			step, minor = s.f*mag, s.minor
			break
		}
	}
	small := step / float64(minor)
	var ticks []plot.Tick
	for i := math.Ceil(lo/small - 1e-9); i*small <= hi+small*1e-9; i++ {
		// Round through decimal text: 3*0.1 is 0.30000000000000004.
		v, _ := strconv.ParseFloat(strconv.FormatFloat(i*small, 'g', 12, 64), 64)
		if v == 0 {
			v = 0 // not -0
		}
		t := plot.Tick{Value: v}
		if k := int64(i); k%int64(minor) == 0 {
			t.Label = label(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// plural formats n things: "1 kernel", "27,500 kernels", "1 launch"
// (noun is the plural, ending in "s" or "ches").
func plural(n int, noun string) string {
	if n == 1 {
		if strings.HasSuffix(noun, "ches") {
			noun = strings.TrimSuffix(noun, "es")
		} else {
			noun = strings.TrimSuffix(noun, "s")
		}
	}
	return Format(n, metrics.Count) + " " + noun
}

// trimZeros drops trailing zeros after a decimal point: "1.50 ms" → "1.5 ms".
func trimZeros(s string) string {
	num, unit, _ := strings.Cut(s, " ")
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	if unit == "" {
		return num
	}
	return num + " " + unit
}

// headline are the metrics HeadlineBars draws.
var headline = []string{"kernels", "kernel_mean_ns", "step_median_ns", "idle_ns", "gpu_util", "span_ns", "h2d_gbps"}

// HeadlineBars gathers the headline metrics (kernels, mean kernel, median
// step, idle, utilization, span, H2D bandwidth) of device pos of each run
// (in ID order, as compare pairs them) for PlotCompare.
func HeadlineBars(labels []string, sums []metrics.Summary, pos int) Bars {
	b := Bars{Runs: labels}
	for _, c := range metrics.Columns() {
		if !slices.Contains(headline, c.Name) {
			continue
		}
		m := BarMetric{Name: c.Label, Unit: c.Unit}
		zero := true
		for _, s := range sums {
			v := math.NaN() // no GPU activity: nothing measured
			if pos < len(s.Devices) {
				v = toFloat(c.Value(&s.Devices[pos]))
			}
			zero = zero && v == 0
			m.Values = append(m.Values, v)
		}
		if !zero { // a metric no run has (no copies) is no bars at all
			b.Metrics = append(b.Metrics, m)
		}
	}
	return b
}
