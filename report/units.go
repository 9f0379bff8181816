package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/traceql/traceql/metrics"
)

// Format renders a value for people: ns as ns/µs/ms/s, bytes as B/kB/MB/GB
// (powers of 1000), bandwidth in GB/s, ratios as percent, counts with
// thousands separators, all to three significant digits. This is the one
// place units are scaled.
func Format(v any, u metrics.Unit) string {
	switch x := v.(type) {
	case string:
		return x
	case nil: // no value
		return "–"
	}
	x := toFloat(v)
	switch u {
	case metrics.NS:
		return scaled(x, []unit{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}})
	case metrics.Bytes:
		return scaled(x, []unit{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}, {1, "B"}})
	case metrics.GBps:
		return sig3(x) + " GB/s"
	case metrics.Ratio:
		return percent(x) + " %"
	case metrics.FLOP:
		return scaled(x, []unit{{1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}, {1e3, "kFLOP"}, {1, "FLOP"}})
	case metrics.TFLOPS:
		return sig3(x) + " TFLOP/s"
	case metrics.Count:
		// Whole numbers, and fractions (a median, a mean) too big to
		// show decimals, get thousands separators.
		if r := math.RoundToEven(x); (x == r || math.Abs(x) >= 100) && math.Abs(x) < 1<<53 {
			return thousands(int64(r))
		}
		return sig3(x)
	}
	return Raw(v)
}

// Raw renders a value for machines: integers as integers, floats in the
// shortest form that reads back exactly.
func Raw(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case nil: // no value
		return ""
	}
	return fmt.Sprint(v)
}

type unit struct {
	size float64
	name string
}

// scaled picks the largest unit the value, rounded to three significant
// digits, fills once: 999,999 ns is 1.00 ms, not 1000 µs.
func scaled(x float64, units []unit) string {
	r := math.Abs(x)
	if r > 0 {
		p := math.Pow10(int(math.Floor(math.Log10(r))) - 2)
		r = math.Round(r/p) * p
	}
	for _, u := range units {
		if r >= u.size {
			return sig3(x/u.size) + " " + u.name
		}
	}
	last := units[len(units)-1]
	return sig3(x/last.size) + " " + last.name
}

// sig3 prints x with three significant digits, or its integer part where
// that is longer; whole numbers print without decimals.
func sig3(x float64) string {
	if a := math.Abs(x); a == math.Trunc(a) {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', decimals3(math.Abs(x)), 64)
}

// decimals3 is how many decimals show three significant digits of a ≥ 0
// once rounded: 2 for 1.23, 1 for 9.996 (which rounds to 10.0), 4 for
// 0.0123, 0 from 100 on.
func decimals3(a float64) int {
	if a == 0 {
		return 0
	}
	d := max(0, 2-int(math.Floor(math.Log10(a))))
	if p := math.Pow10(d); d > 0 && math.Round(a*p)/p >= math.Pow10(3-d) {
		d-- // the rounding carried into the next power of ten
	}
	return d
}

// percent prints a ratio as a percentage to one decimal (75.8), or to
// three significant digits below 0.1 % so that a small share never reads 0.
func percent(x float64) string {
	p := 100 * x
	if p != 0 && math.Abs(p) < 0.1 {
		return sig3(p)
	}
	return strconv.FormatFloat(p, 'f', 1, 64)
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}
