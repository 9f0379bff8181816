package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/traceql/traceql/metrics"
)

// GateLines words each result of diff --fail-if, a line each: the gate,
// the device pair, old and new, the change, how it stands against the
// step-to-step spread, and whether it fails.
func GateLines(rs []metrics.GateResult) []string {
	units := map[string]metrics.Unit{}
	for _, c := range metrics.Columns() {
		units[c.Name] = c.Unit
	}
	var out []string
	for _, r := range rs {
		op := ">"
		if !r.Up {
			op = "<"
		}
		u := units[r.Column]
		s := fmt.Sprintf("%s%s%+g%%: device pair %d: %s → %s", r.Column, op, r.Pct, r.Device, gateValue(r.Old, u), gateValue(r.New, u))
		if math.IsNaN(r.Change) {
			s += ", no change to measure (no old value, or 0)"
		} else {
			s += ", " + strconv.FormatFloat(r.Change, 'f', 1, 64) + " %"
		}
		switch r.Spread {
		case metrics.NoSteps:
			s += "; no per-step test (a run has under 2 steps, or the metric has no per-step values): the threshold alone"
		case metrics.TooFewSteps:
			s += "; too few steps for the test to reach p < 0.05: the threshold alone"
		case metrics.WithinSpread:
			s += fmt.Sprintf("; within step-to-step spread (Mann-Whitney p=%.3g)", r.P)
		case metrics.OutsideSpread:
			s += fmt.Sprintf("; outside step-to-step spread (Mann-Whitney p=%.3g)", r.P)
		}
		switch {
		case r.Fail:
			s += ": FAIL"
		case r.Past:
			s += ": past the threshold but noise: pass"
		default:
			s += ": pass"
		}
		out = append(out, s)
	}
	return out
}

func gateValue(v float64, u metrics.Unit) string {
	if math.IsNaN(v) {
		return "none"
	}
	return Format(v, u)
}
