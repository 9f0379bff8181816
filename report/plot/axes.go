package plot

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// nsLogTicks marks an axis of log10 nanoseconds: decades, labelled "1 µs",
// "10 µs", …; also 2× and 5× (or every multiple) when the range holds
// fewer than three decades.
func nsLogTicks(lo, hi float64) []plot.Tick {
	return logTicks(lo, hi, func(v float64) string { return trimZeros(report.Format(v, metrics.NS)) })
}

// countLogTicks marks an axis of log10 counts.
func countLogTicks(lo, hi float64) []plot.Tick {
	return logTicks(lo, hi, func(v float64) string {
		if v < 1 {
			return ""
		}
		return report.Format(v, metrics.Count)
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
		return report.Format(v, metrics.Count)
	})
}

// nsTicks marks a linear axis of nanoseconds.
func nsTicks(lo, hi float64) []plot.Tick {
	return linearTicks(lo, hi, 7, func(v float64) string {
		if v == 0 {
			return "0"
		}
		return trimZeros(report.Format(v, metrics.NS))
	})
}

// plainTicks marks a linear axis in plain numbers, about every inch of a
// 10-inch plot.
func plainTicks(lo, hi float64) []plot.Tick {
	return linearTicks(lo, hi, 10, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
}

// stepTicks marks an axis of step numbers: a label on each whole step of a
// short run, else on the whole numbers among plainTicks' marks — never
// "2.5" for a step.
func stepTicks(lo, hi float64) []plot.Tick {
	if hi-lo <= 12 {
		var ticks []plot.Tick
		for v := math.Ceil(lo); v <= hi; v++ {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
		return ticks
	}
	return linearTicks(lo, hi, 10, func(v float64) string {
		if v != math.Trunc(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	})
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
