package metrics

import (
	"math/big"
	"testing"
)

// TestPerStepClassified: every device column counting, timing, weighing
// or FLOP-counting something says whether it adds up over steps; no
// other column is divided per step.
func TestPerStepClassified(t *testing.T) {
	for _, c := range Columns() {
		switch c.Unit {
		case Count, NS, Bytes, FLOP:
			if c.Steps != Adds && c.Steps != Holds {
				t.Errorf("%s: a %v column that says neither Adds nor Holds over steps", c.Name, c.Unit)
			}
		default:
			if c.Steps == Adds {
				t.Errorf("%s: a %v column divided per step", c.Name, c.Unit)
			}
		}
	}
}

// TestDivRound checks divRound against big.Rat rounding, halves away
// from zero, at the edges of int64.
func TestDivRound(t *testing.T) {
	vals := []int64{0, 1, 2, 3, 5, 7, 9, 10, 11, 15, 1e9 + 7, 1<<63 - 1, 1<<63 - 2, -1, -5, -7, -(1 << 62)}
	for _, a := range vals {
		for _, b := range []int64{1, 2, 3, 4, 7, 10, 1<<62 + 1, 1<<63 - 1} {
			r := new(big.Rat).SetFrac(big.NewInt(a), big.NewInt(b))
			// round half away from zero: trunc(r + sign(r)/2)
			half := big.NewRat(int64(r.Sign()), 2)
			num := new(big.Rat).Add(r, half)
			want := new(big.Int).Quo(num.Num(), num.Denom())
			if got := divRound(a, b); got != want.Int64() {
				t.Errorf("divRound(%d, %d) = %d, want %s", a, b, got, want)
			}
		}
	}
}

// TestGetPerStep: per step divides the totals, leaves rates and sizes.
func TestGetPerStep(t *testing.T) {
	d := &DeviceSummary{Kernels: 674, KernelNS: 4_580_005, SpanNS: 10, BusyNS: 4, StepMedianNS: 1000, Steps: make([]StepStat, 10)}
	d.GPUUtil = 0.4
	before := map[string]any{}
	for _, c := range Columns() {
		before[c.Name] = c.Get(d)
	}
	d.PerStep = 10
	for _, c := range Columns() {
		got := c.Get(d)
		switch c.Name {
		case "kernels":
			if got != 67.4 {
				t.Errorf("kernels per step %v, want 67.4", got)
			}
		case "kernel_ns":
			if got != int64(458_001) { // 458000.5 rounds up
				t.Errorf("kernel_ns per step %v, want 458001", got)
			}
		case "gpu_util", "step_median_ns", "steps":
			if got != before[c.Name] {
				t.Errorf("%s: %v per step, %v in total; want unchanged", c.Name, got, before[c.Name])
			}
		}
	}
}
