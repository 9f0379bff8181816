package metrics

import (
	"math"
)

// A Gate is one threshold of a regression gate (diff --fail-if): the
// metric Column worsens past Pct percent, upward (step_median_ns>+3%)
// or downward (gpu_util<-5%).
type Gate struct {
	Column string  // a Columns name
	Pct    float64 // the threshold, signed: +3 for ">+3%", -5 for "<-5%"
	Up     bool    // a rise is the regression: ">"; else a fall: "<"
}

// GateSpread says how a gate's change stands against step-to-step spread.
type GateSpread int

const (
	// NoSteps: the metric has no per-step counterpart, or a run has under
	// two steps: the threshold alone decides.
	NoSteps GateSpread = iota
	// TooFewSteps: the steps cannot reach significance (StepDelta.Testable
	// false): the threshold alone decides.
	TooFewSteps
	// WithinSpread: the per-step values do not differ by Mann-Whitney U
	// (p ≥ alpha): noise, not a regression, whatever the threshold.
	WithinSpread
	// OutsideSpread: they do (p < alpha).
	OutsideSpread
)

// A GateResult is one gate on one device pair.
type GateResult struct {
	Gate
	Device   int     // the device pair's index in Diff.Devices
	Old, New float64 // the metric's values; NaN where a run has none
	Change   float64 // (New − Old) / Old × 100; NaN when Old is 0 or missing
	Past     bool    // Change is past the threshold, in the gate's direction
	Spread   GateSpread
	P        float64 // the step test's p-value, when GateSpread is Within or OutsideSpread
	Fail     bool    // Past, and not WithinSpread
}

// CheckGates checks each gate on each device pair of d that both runs
// have. A gate fails when the change is past its threshold and, where
// the steps allow a test (a per-step counterpart, steps enough), the
// step distributions differ too: a change within step-to-step spread is
// noise, however large.
func CheckGates(d Diff, gates []Gate) []GateResult {
	cols := map[string]Column{}
	for _, c := range Columns() {
		cols[c.Name] = c
	}
	var out []GateResult
	for i, dd := range d.Devices {
		if dd.Old == nil || dd.New == nil {
			continue
		}
		for _, g := range gates {
			c, ok := cols[g.Column]
			if !ok {
				continue
			}
			r := GateResult{Gate: g, Device: i, Old: number(c.Get(dd.Old)), New: number(c.Get(dd.New)), Change: math.NaN(), P: math.NaN()}
			if r.Old != 0 && !math.IsNaN(r.Old) && !math.IsNaN(r.New) {
				r.Change = (r.New - r.Old) / math.Abs(r.Old) * 100
			}
			if !math.IsNaN(r.Change) {
				r.Past = g.Up && r.Change > g.Pct || !g.Up && r.Change < g.Pct
			}
			for _, s := range dd.Steps {
				if s.Metric != c.Spread {
					continue
				}
				switch {
				case !s.Testable:
					r.Spread = TooFewSteps
				case s.Significant:
					r.Spread, r.P = OutsideSpread, s.P
				default:
					r.Spread, r.P = WithinSpread, s.P
				}
			}
			r.Fail = r.Past && r.Spread != WithinSpread
			out = append(out, r)
		}
	}
	return out
}

// number is a metric's value as a float64; NaN for none or for words.
func number(v any) float64 {
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
