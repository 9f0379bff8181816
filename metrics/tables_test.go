package metrics

import (
	"math"
	"testing"
)

// TestSpreadOf: mean, median (the mean of the two middle values for an
// even count) and sample standard deviation, against values worked by
// hand.
func TestSpreadOf(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{5}, Spread{5, 5, 0}},
		{[]float64{4, 1, 3, 2}, Spread{2.5, 2.5, math.Sqrt(5.0 / 3)}},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, Spread{5, 4.5, math.Sqrt(32.0 / 7)}},
	} {
		got := spreadOf(tt.in)
		if math.Abs(got.Mean-tt.want.Mean) > 1e-12 || got.Median != tt.want.Median || math.Abs(got.Stdev-tt.want.Stdev) > 1e-12 {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
