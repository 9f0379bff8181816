package metrics

// Per step: the metrics that add up over steps (counts, times, bytes,
// FLOPs) divided by the steps a device measured, so that runs profiled
// for 4 steps and for 10 compare as runs, not as windows. Rates and
// ratios (utilization, GB/s, MFU), means, medians, extremes and clock
// readings are left as they are: they do not grow with the steps. Each
// column says which it is (Col.Steps).

// perStep divides v, a column's total, by n steps, rounding once: an
// integer time, byte or FLOP total (int64) becomes the nearest integer
// (halves away from zero), the rational v/n rounded once, so that ns stay
// integers; a count (int) becomes the float64 nearest v/n (a count per step
// is fractional: 67.4 kernels a step); a float64 is divided.
func perStep(v any, n int) any {
	switch x := v.(type) {
	case int64:
		return divRound(x, int64(n))
	case int:
		return float64(x) / float64(n)
	case float64:
		return x / float64(n)
	}
	return v
}

// divRound returns a/b rounded to the nearest integer, halves away from
// zero, for b > 0, without overflowing.
func divRound(a, b int64) int64 {
	q, r := a/b, a%b
	switch {
	case r >= 0 && r >= b-r:
		q++
	case r < 0 && -r >= b+r:
		q--
	}
	return q
}

// SetPerStep makes each device of sums that measured steps show the
// metrics that add up over steps per step (DeviceSummary.PerStep), or,
// with on false, totals again.
func SetPerStep(sums []Summary, on bool) {
	for i := range sums {
		for j := range sums[i].Devices {
			d := &sums[i].Devices[j]
			d.PerStep = 0
			if on {
				d.PerStep = len(d.Steps)
			}
		}
	}
}

// AllHaveSteps reports whether every device of every run with GPU
// activity measured at least one step: the runs can be compared per step.
func AllHaveSteps(sums []Summary) bool {
	any := false
	for _, s := range sums {
		for _, d := range s.Devices {
			if len(d.Steps) == 0 {
				return false
			}
			any = true
		}
	}
	return any
}
