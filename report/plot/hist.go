package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// A Series is a sample of durations of one run or device, in ns: kernel
// durations for KernelHist, idle-gap lengths for GapHist.
type Series struct {
	Label  string
	Values []int64 // ns
}

// KernelHist draws a histogram of kernel durations (ns) with 40
// log-spaced bins, one outlined, translucent histogram per series. By
// time, each bin holds the kernel time of its kernels, so that where the
// time goes shows (27,500 kernels of 20 µs weigh 550 ms); else it counts
// them. The y axis turns logarithmic when the series' peaks differ by more
// than a factor of 10.
func KernelHist(w io.Writer, format string, s []Series, title string, byTime bool) error {
	return plotHist(w, format, s, title, "kernel duration", "kernels", "kernel time", "zero-length kernels", byTime)
}

// GapHist draws a histogram of idle-gap lengths (ns), like
// KernelHist: by time, each bin holds the idle time of its gaps, so
// that 445 ms of idle in 11 long gaps is not a sliver beside 3,000 short
// ones.
func GapHist(w io.Writer, format string, s []Series, title string, byTime bool) error {
	return plotHist(w, format, s, title, "idle gap length", "gaps", "idle time", "zero-length gaps", byTime)
}

// plotHist draws KernelHist and GapHist: xlabel names the axis,
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
	// Bins and axes are in log10 units (see Compare).
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
	// A bin's width of room at each end: the first and last bins show
	// whole, their outlines clear of the y axis and of the plot's edge,
	// rather than flush with them as if the histogram went on.
	p.X.Min, p.X.Max = edges[0]-step, edges[nbins]+step
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

	// What each series is: its count, time and the zeros not drawn.
	about := make([]string, len(s))
	for i, se := range s {
		about[i] = report.Plural(len(se.Values), noun)
		if byTime {
			var sum int64
			for _, v := range se.Values {
				sum += v
			}
			about[i] += ", " + report.Format(sum, metrics.NS)
		}
		if zeros[i] > 0 {
			about[i] += fmt.Sprintf(", %s not drawn", report.Plural(zeros[i], zerosNoun))
		}
	}
	if len(s) > MaxOverlaid {
		return renderFigure(w, format, histPanels(p, s, about, edges, counts, base, title))
	}

	p.Add(lightGrid(true, true))
	var fills, lines []plot.Plotter
	var leg []legendEntry
	for i, se := range s {
		fill := translucent(runColor(i))
		line := runLine(i, vg.Points(1.5))
		fills = append(fills, &stepHist{edges: edges, counts: counts[i], base: base, fill: fill})
		lines = append(lines, &stepHist{edges: edges, counts: counts[i], base: base, line: line})
		leg = append(leg, legendEntry{
			label: se.Label + " (" + about[i] + ")",
			fill:  fill,
			line:  line,
		})
	}
	p.Add(fills...) // all fills under all outlines
	p.Add(lines...)
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: 8 * vg.Inch, h: 5 * vg.Inch})
}

// MaxOverlaid is the most series a histogram overlays. Beyond it, outlines
// and translucent fills pile into one brown mass, so each series gets a
// panel of its own instead: small multiples on the same axes.
const MaxOverlaid = 4

// histPanels lays the histograms out as small multiples, histPanelCols to
// a row, each on axes like those of proto (ranges, ticks, scale) and titled
// with its series' label and about; tick labels only on the left column
// and the bottom panel of each column, the axis names once for the figure.
func histPanels(proto *plot.Plot, s []Series, about []string, edges []float64, counts [][]float64, base float64, title string) figure {
	const cols = histPanelCols
	rows := (len(s) + cols - 1) / cols
	width := 10 * vg.Inch
	panelW := (width-2*figureMargin-histYLabelRoom)/cols - 40 // less the y ticks
	panels := make([][]*plot.Plot, rows)
	for r := range panels {
		panels[r] = make([]*plot.Plot, cols)
	}
	for i, se := range s {
		p := newPlot()
		p.X.Min, p.X.Max, p.X.Padding = proto.X.Min, proto.X.Max, proto.X.Padding
		p.Y.Min, p.Y.Max = proto.Y.Min, proto.Y.Max
		// A panel is a third of the figure wide and an inch and a half
		// tall: four labels an axis at most.
		p.X.Tick.Marker, p.Y.Tick.Marker = thinLabels(proto.X.Tick.Marker, 4), thinLabels(proto.Y.Tick.Marker, 4)
		if i+cols < len(s) { // a panel below shows the x ticks' labels
			p.X.Tick.Marker = blankLabels(p.X.Tick.Marker)
		}
		if i%cols != 0 {
			p.Y.Tick.Marker = blankLabels(p.Y.Tick.Marker)
		}
		p.Title.TextStyle = styled(p.Title.TextStyle, 9, text.XCenter, text.YTop)
		p.Title.Padding = 3
		p.Title.Text = panelTitle(p.Title.TextStyle, se.Label, about[i], panelW)
		p.Add(lightGrid(true, true),
			&stepHist{edges: edges, counts: counts[i], base: base, fill: translucent(runColor(i))},
			&stepHist{edges: edges, counts: counts[i], base: base, line: runLine(i, vg.Points(1.2))})
		panels[i/cols][i%cols] = p
	}
	return figure{
		title: title, p: proto, panels: panels, // p: the title's style
		xlabel: proto.X.Label.Text, ylabel: proto.Y.Label.Text,
		w: width, h: vg.Inch + vg.Length(rows)*1.5*vg.Inch,
	}
}

const (
	histPanelCols  = 3
	histYLabelRoom = 18 // points left of the panels for the y axis's name
)

// panelTitle is a panel's label and what it holds, on one line if they fit
// w, else on two, the label cut in its middle to fit.
func panelTitle(st text.Style, label, about string, w vg.Length) string {
	if one := label + " (" + about + ")"; st.Width(one) <= w {
		return one
	}
	r := []rune(label)
	for n := len(r); st.Width(label) > w && n > 8; n-- {
		head := (n - 1) / 2
		label = string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
	}
	return label + "\n" + about
}

// thinLabels marks where m does, but labels only every k-th of its
// labelled ticks (the others turn minor), k the least that leaves at most
// n labels.
func thinLabels(m plot.Ticker, n int) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := m.Ticks(lo, hi)
		labelled := 0
		for _, t := range ticks {
			if t.Label != "" {
				labelled++
			}
		}
		k := (labelled + n - 1) / n
		if k <= 1 {
			return ticks
		}
		j := 0
		for i := range ticks {
			if ticks[i].Label == "" {
				continue
			}
			if j%k != 0 {
				ticks[i].Label = ""
			}
			j++
		}
		return ticks
	})
}

// blankLabels marks where m does, with labels of a space: the grid stays
// (it skips unlabelled, minor ticks), the numbers go.
func blankLabels(m plot.Ticker) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := m.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = " "
			}
		}
		return ticks
	})
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
