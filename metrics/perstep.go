package metrics

// Per step: the metrics that add up over steps (counts, times, bytes,
// FLOPs) divided by the steps a device measured, so that runs profiled
// for 4 steps and for 10 compare as runs, not as windows. Rates and
// ratios (utilization, GB/s, MFU), means, medians, extremes and clock
// readings are left as they are: they do not grow with the steps.

// perStepTotals names the device columns (Columns) that add up over
// steps. TestPerStepClassified checks that every count, time, byte and
// FLOP column is named here or in notPerStep, so that a new column is
// placed on purpose.
var perStepTotals = map[string]bool{
	"kernels": true, "kernel_ns": true, "kernel_busy_ns": true,
	"span_ns": true, "busy_ns": true, "idle_ns": true, "idle_gaps": true,
	"h2d_copies": true, "h2d_bytes": true, "h2d_ns": true,
	"d2h_copies": true, "d2h_bytes": true, "d2h_ns": true,
	"other_copies": true, "other_copy_bytes": true, "other_copy_ns": true,
	"memsets": true, "memset_bytes": true, "memset_ns": true,
	"launches": true, "graph_launches": true, "graph_kernels": true,
	"launch_ns": true, "slow_launches": true, "slow_launch_ns": true,
	"idle_sync_ns": true, "idle_launch_ns": true, "idle_other_ns": true,
	"comm_kernels": true, "comm_ns": true, "compute_ns": true,
	"comm_exposed_ns": true, "copy_exposed_ns": true, "h2d_exposed_ns": true,
	"d2h_exposed_ns": true, "other_copy_exposed_ns": true, "memset_exposed_ns": true,
	"compiled_regions": true, "compiled_kernel_ns": true, "graph_kernel_ns": true,
	"dynamo_lookup_ns": true, "flops": true,
}

// notPerStep names the count, time, byte and FLOP columns that do not add
// up over steps: sizes of one thing (means, medians, percentiles,
// extremes), clock readings, and counts of distinct things.
var notPerStep = map[string]bool{
	"device": true, "streams": true, "steps": true, "step_median_ns": true,
	"kernel_mean_ns": true, "kernel_median_ns": true, "kernel_min_ns": true,
	"kernel_p90_ns": true, "kernel_p99_ns": true, "kernel_max_ns": true,
	"largest_gap_ns": true, "start_ns": true, "end_ns": true,
	"kernels_per_launch": true, "kernels_per_graph_launch": true,
	"launch_mean_ns": true, "launch_median_ns": true,
	"queue_delay_median_ns": true, "queue_delay_p90_ns": true,
	"launch_to_start_median_ns": true, "launch_to_start_p90_ns": true,
	"compiled_frames": true, "recompiles": true,
}

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
