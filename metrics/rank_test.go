package metrics

import (
	"math"
	"slices"
	"testing"
)

// TestRankRuns: by median step when every run has steps, by span when
// one has none; a run without the device is no rank; ties keep the order
// given. The expected orders are written out by hand.
func TestRankRuns(t *testing.T) {
	step := func(median float64, span int64) *DeviceSummary {
		return &DeviceSummary{Steps: make([]StepStat, 3), StepMedianNS: median, SpanNS: span}
	}
	tests := []struct {
		name   string
		devs   []*DeviceSummary
		bySpan bool
		order  []int
	}{
		{"steps", []*DeviceSummary{step(5, 10), step(1, 40), step(3, 5)}, false, []int{1, 2, 0}},
		{"one without steps: spans", []*DeviceSummary{step(5, 10), {SpanNS: 7}, step(3, 50)}, true, []int{1, 0, 2}},
		{"missing device, tie", []*DeviceSummary{step(2, 1), nil, step(2, 1)}, false, []int{0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := RankRuns(tt.devs)
			if r.BySpan != tt.bySpan || !slices.Equal(r.Order, tt.order) {
				t.Errorf("ranked by span %v: %v, want %v: %v", r.BySpan, r.Order, tt.bySpan, tt.order)
			}
			for i, d := range tt.devs {
				if (d == nil) != math.IsNaN(r.Values[i]) {
					t.Errorf("run %d: value %v", i, r.Values[i])
				}
			}
		})
	}
}
