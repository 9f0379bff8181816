package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// Bars holds the headline metrics of several runs, for Compare.
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

// Compare draws grouped bars, one group per metric and one bar per run.
// A bar's height is the run's value divided by the first run's (the
// baseline is 1; a bar whose baseline is 0 is drawn as 0), and its label
// is the absolute value. The y axis turns logarithmic when the ratios span
// more than a factor of 10.
//
// size is the image's width and height in inches; zero: 8 × 5.
func Compare(w io.Writer, format string, b Bars, title string, size [2]float64) error {
	if len(b.Runs) == 0 || len(b.Metrics) == 0 {
		return errors.New("nothing to plot: no runs or no metrics")
	}
	// A first run without a value of one metric (no ProfilerStep#N: every
	// Nsight export) is rebased below; only a first run without any value
	// leaves nothing to compare with.
	baseless := 0
	for _, m := range b.Metrics {
		if len(m.Values) != len(b.Runs) {
			return fmt.Errorf("plot compare: metric %q has %d values for %d runs", m.Name, len(m.Values), len(b.Runs))
		}
		if math.IsNaN(m.Values[0]) {
			baseless++
		}
	}
	if baseless == len(b.Metrics) {
		return fmt.Errorf("nothing to compare with: %s, the first run, has no GPU activity", b.Runs[0])
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
		base, k := m.Values[0], 0
		for j, v := range m.Values {
			if (base == 0 || math.IsNaN(base)) && v != 0 && !math.IsNaN(v) {
				base, k = v, j
			}
		}
		if k != 0 {
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
			label := report.Format(v, m.Unit)
			if math.IsNaN(v) {
				label = "none" // no GPU activity, or none of this metric (no steps)
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
	if widest+2 > slot*vg.Length(bars.width) {
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

	// The dashed line at 1 goes over the bars and under their labels,
	// which keep clear of it.
	bars.ref, bars.hasRef = one, true
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

// TopKernels draws the kernels' total times as horizontal bars,
// longest on top, each labelled with its count and share of kernel time.
// The image grows taller with the number of kernels.
func TopKernels(w io.Writer, format string, k []metrics.KernelStat, title string) error {
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
	// White (unseen) ticks keep the names off the axis: a raster's hinted glyphs
	// draw a long name a few pixels wider than it measures.
	p.Y.Tick.Length = topNameGap
	p.Y.Tick.LineStyle.Color = color.White
	p.Y.Padding = 0
	bars := &barPlot{part: barAll, width: 0.7, horizontal: true, label: styled(p.X.Tick.Label, 9, text.XLeft, text.YCenter)}
	var names plot.ConstantTicks
	var longest int64
	labels := fitNames(p.Y.Tick.Label, ks, func(k metrics.KernelStat) string { return k.Name }, topNameWidth)
	for i, s := range ks {
		y := float64(len(ks) - 1 - i)
		names = append(names, plot.Tick{Value: y, Label: labels[i]})
		label := report.Plural(s.Count, "calls") + ", " + report.Format(s.Share, metrics.Ratio)
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

const (
	topNameWidth = 270 // points for a kernel name of TopKernels, at most
	topNameGap   = 8   // points between the names and the axis, besides a space
)

// fitNames returns the names of xs cut by shortNames (so that names alike
// keep what tells them apart) to at most 60 runes, and those still wider
// than w points in st to fewer, until they fit.
func fitNames[T any](st text.Style, xs []T, name func(T) string, w vg.Length) []string {
	names := report.ShortNames(xs, name, 60)
	for n := 59; n >= 8; n-- {
		wide := false
		var cut []string
		for i, s := range names {
			if st.Width(s) <= w {
				continue
			}
			if cut == nil {
				cut = report.ShortNames(xs, name, n)
			}
			names[i], wide = cut[i], true
		}
		if !wide {
			break
		}
	}
	return names
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
//
// A vertical bar's label keeps clear of the reference line at ref (the
// dashed 1× of Compare) when hasRef: a label that would cross it is
// lifted over it when that moves it little, else drawn inside the top of
// its bar in a color that contrasts with the bar's, else (a bar too short
// to hold it) lifted over the line all the same.
type barPlot struct {
	bars       []plotBar
	width      float64 // in category-axis units
	base       float64
	horizontal bool
	label      text.Style
	part       barPart // what Plot draws
	ref        float64 // on the value axis, when hasRef
	hasRef     bool
}

// A barPart says what of a barPlot its Plot method draws.
type barPart int

const (
	barFills barPart = 1 << iota
	barLabels
	barAll = barFills | barLabels
)

const (
	labelGap = 4   // points between a bar's end and its label
	refHalf  = 0.5 // half the width of the reference line, in points
)

// Plot implements plot.Plotter.
func (b *barPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, br := range b.bars {
		v := max(br.val, b.base)
		lo, hi := br.pos-b.width/2, br.pos+b.width/2
		var r vg.Rectangle
		var at vg.Point
		st := b.label
		if b.horizontal {
			r = vg.Rectangle{Min: vg.Point{X: trX(b.base), Y: trY(lo)}, Max: vg.Point{X: trX(v), Y: trY(hi)}}
			at = vg.Point{X: r.Max.X + labelGap, Y: trY(br.pos)}
		} else {
			r = vg.Rectangle{Min: vg.Point{X: trX(lo), Y: trY(b.base)}, Max: vg.Point{X: trX(hi), Y: trY(v)}}
			// The label's anchor is its lower end, upright or turned.
			y, inside := b.labelStart(r, b.labelLength(br.label), trY)
			at = vg.Point{X: trX(br.pos), Y: y}
			if inside {
				st.Color = contrastText(br.color)
			}
		}
		if b.part&barFills != 0 {
			c.SetColor(br.color)
			c.Fill(r.Path())
		}
		if b.part&barLabels != 0 {
			c.FillText(st, at, br.label)
		}
	}
}

// labelLength is how far a vertical bar's label reaches up: its width when
// turned upright, else its height.
func (b *barPlot) labelLength(s string) vg.Length {
	if b.label.Rotation != 0 {
		return b.label.Width(s)
	}
	return b.label.Height(s)
}

// labelStart returns where the label of length n of the vertical bar r
// starts (its lower end), and whether that is inside the bar.
func (b *barPlot) labelStart(r vg.Rectangle, n vg.Length, trY func(float64) vg.Length) (vg.Length, bool) {
	top := r.Max.Y
	start := top + labelGap
	if !b.hasRef {
		return start, false
	}
	ref := trY(b.ref)
	if start >= ref+refHalf+labelGap || start+n+labelGap <= ref-refHalf {
		return start, false // clear of the line: above it, or below it
	}
	over := ref + refHalf + labelGap
	if over-top <= 2*labelGap { // the bar ends at the line or just under it
		return over, false
	}
	if top-r.Min.Y >= n+2*labelGap {
		return top - labelGap - n, true
	}
	return over, false
}

// contrastText returns black or white, whichever contrasts more with the
// fill (WCAG's contrast ratio of relative luminances).
func contrastText(fill color.Color) color.Color {
	r, g, b, _ := fill.RGBA()
	lin := func(v uint32) float64 {
		c := float64(v) / 0xffff
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	if (l+0.05)*(l+0.05) < 1.05*0.05 {
		return color.White
	}
	return color.Black
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
		if b.hasRef && !b.horizontal && v < b.ref {
			// The label may be lifted over the reference line, which
			// depends on the canvas: room for that too.
			g.Y = p.Y.Norm(b.ref)
			g.Rectangle.Min.Y += refHalf
			g.Rectangle.Max.Y += refHalf
			boxes = append(boxes, g)
		}
	}
	return boxes
}

// HeadlineBars gathers the headline metrics (kernels, mean kernel, median
// step, idle, utilization, span, H2D bandwidth) of device pos of each run
// (in ID order, as compare pairs them) for Compare.
func HeadlineBars(labels []string, sums []metrics.Summary, pos int) Bars {
	return MetricBars(labels, sums, pos, metrics.Names(metrics.Shown(metrics.Columns(), metrics.PlotHeadline)))
}

// MetricBars is HeadlineBars for the metrics named (CSV names, compare
// --metrics), in the order named. Metrics without a number (a verdict's
// words) have no bars.
func MetricBars(labels []string, sums []metrics.Summary, pos int, names []string) Bars {
	b := Bars{Runs: labels}
	cols := metrics.Columns()
	for _, name := range names {
		i := slices.IndexFunc(cols, func(c metrics.Column) bool { return c.Name == name })
		if i < 0 {
			continue
		}
		c := cols[i]
		m := BarMetric{Name: c.Label, Unit: c.Unit}
		zero := true
		for _, s := range sums {
			v := math.NaN() // no GPU activity, or no value (a bandwidth of no copies): no bar
			if pos < len(s.Devices) {
				v = report.Float(c.Get(&s.Devices[pos]))
			}
			zero = zero && (v == 0 || math.IsNaN(v))
			m.Values = append(m.Values, v)
		}
		if !zero { // a metric no run has (no copies) is no bars at all
			b.Metrics = append(b.Metrics, m)
		}
	}
	return b
}
