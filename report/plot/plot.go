package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The plots take computed results and draw them with gonum.org/v1/plot,
// one file per kind: plot_bars.go (Compare, TopKernels),
// plot_hist.go (kernel and gap histograms), plot_timeline.go,
// plot_steps.go. This file holds what they share: the figure with its
// title and legend, colors and styles; plot_axes.go the ticks. Each plot
// writes one image, "png" (96 dpi) or "svg", to w. The same input always
// gives the same bytes.

// figure is a plot with its title and a legend row drawn above it, or
// panels of plots (small multiples, nil where a row ends early) with their
// axes' names drawn once, xlabel below and ylabel left of them all.
type figure struct {
	title          string
	p              *plot.Plot
	legend         []legendEntry
	panels         [][]*plot.Plot
	xlabel, ylabel string
	w, h           vg.Length
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
	if f.panels != nil {
		drawPanels(c, f)
	} else {
		f.p.Title.Text = ""
		f.p.Draw(c)
	}
	_, err = cw.WriteTo(w)
	return err
}

// drawPanels draws f's panels, aligned, in c, with the axes' names below
// and left of them.
func drawPanels(c draw.Canvas, f figure) {
	st := styled(f.p.X.Label.TextStyle, 12, text.XCenter, text.YBottom)
	if f.xlabel != "" {
		c.FillText(st, vg.Point{X: c.Center().X, Y: c.Min.Y}, f.xlabel)
		c.Min.Y += st.Height(f.xlabel) + 4
	}
	if f.ylabel != "" {
		st.Rotation = math.Pi / 2
		st.YAlign = text.YTop
		c.FillText(st, vg.Point{X: c.Min.X, Y: c.Center().Y}, f.ylabel)
		c.Min.X += st.FontExtents().Height + 4
	}
	rows, cols := len(f.panels), len(f.panels[0])
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 12, PadY: 8}
	for r, row := range plot.Align(f.panels, tiles, c) {
		for k, pc := range row {
			if p := f.panels[r][k]; p != nil {
				p.Draw(pc)
			}
		}
	}
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
