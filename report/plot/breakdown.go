package plot

import (
	"errors"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/traceql/traceql/metrics"
)

// A BreakdownBar is one stacked bar of Breakdown: a step, a run's
// median step, or a whole run without steps, split into the busy classes
// and idle time.
type BreakdownBar struct {
	Label   string // under the bar
	Classes metrics.BusyClasses
	IdleNS  int64
}

// classColors are the classes' fixed colours, by metrics class, then
// idle: compute blue, comm purple, copies in warm colours (H2D orange,
// D2H red, other brown), memsets yellow, idle light gray.
var classColors = [metrics.NumClasses + 1]color.NRGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xf2, 0x8e, 0x2b, 0xff},
	{0xe1, 0x57, 0x59, 0xff}, {0x9c, 0x75, 0x5f, 0xff}, {0xed, 0xc9, 0x48, 0xff},
	{0xd9, 0xd9, 0xd9, 0xff},
}

// Breakdown draws one stacked bar per entry of bars: its time split
// into the busy classes, compute at the bottom, and idle time on top, in
// fixed colours, with a legend of the classes drawn.
// The slots' axis is named by label; "" leaves it unnamed.
func Breakdown(w io.Writer, format string, bars []BreakdownBar, label, title string) error {
	hi := 0.0
	for _, b := range bars {
		hi = max(hi, float64(b.Classes.BusyNS()+b.IdleNS))
	}
	if hi == 0 {
		return errors.New("nothing to plot: no step or run with GPU time")
	}
	// Bars named by runs, whose names are long, lie down, a row each,
	// named on the left, the first on top; steps stand, numbered below.
	lying := false
	for _, b := range bars {
		lying = lying || len([]rune(b.Label)) > 6
	}
	p := newPlot()
	time, slots := &p.Y, &p.X
	if lying {
		time, slots = &p.X, &p.Y
	}
	slots.Label.Text = label
	time.Label.Text = "time"
	time.Tick.Marker = plot.TickerFunc(nsTicks)
	time.Min, time.Max = 0, hi*1.05
	slots.Min, slots.Max = -0.6, float64(len(bars))-0.4
	p.Add(lightGrid(lying, !lying))
	const half = 0.35 // half a bar's width, in slots
	used := make([]bool, metrics.NumClasses+1)
	var ticks plot.ConstantTicks
	for i, b := range bars {
		x := float64(i)
		if lying {
			x = float64(len(bars) - 1 - i)
		}
		y := 0.0
		parts := append(b.Classes[:], b.IdleNS)
		for c, ns := range parts {
			if ns <= 0 {
				continue
			}
			used[c] = true
			box := plotter.XYs{{X: x - half, Y: y}, {X: x + half, Y: y}, {X: x + half, Y: y + float64(ns)}, {X: x - half, Y: y + float64(ns)}}
			if lying {
				for k := range box {
					box[k].X, box[k].Y = box[k].Y, box[k].X
				}
			}
			poly, err := plotter.NewPolygon(box)
			if err != nil {
				return err
			}
			poly.Color = classColors[c]
			poly.LineStyle.Width = 0
			p.Add(poly)
			y += float64(ns)
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: b.Label})
	}
	if len(bars) > 24 { // label every few bars, not a smear of them
		every := (len(bars) + 11) / 12
		for i := range ticks {
			if i%every != 0 {
				ticks[i].Label = ""
			}
		}
	}
	slots.Tick.Marker = ticks
	var leg []legendEntry
	for c, u := range used {
		if !u {
			continue
		}
		name := "idle"
		if c < metrics.NumClasses {
			name = metrics.ClassNames[c]
		}
		leg = append(leg, legendEntry{label: name, fill: classColors[c]})
	}
	h := 4.5 * vg.Inch
	if lying {
		h = max(3*vg.Inch, vg.Length(len(bars))*0.45*vg.Inch+1.6*vg.Inch)
	}
	return renderFigure(w, format, figure{title: title, p: p, legend: leg, w: 9 * vg.Inch, h: h})
}
