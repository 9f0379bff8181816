package metrics

import "testing"

// TestShareText: a share in a sentence is rounded to the unit, but onto
// 100 % and 0 % only when exact: 99.7 % of idle time is not all of it.
func TestShareText(t *testing.T) {
	for _, tt := range []struct {
		part, whole int64
		want        string
	}{
		{0, 10, "0 %"}, {10, 10, "100 %"}, {0, 0, "0 %"}, {5, 10, "50 %"}, {994, 1000, "99 %"}, {996, 1000, "99.6 %"}, {9999, 10000, "99.9 %"},
		{999_999, 1_000_000, "99.9 %"}, {3, 1000, "0.3 %"}, {6, 1000, "1 %"}, {1, 1_000_000, "<0.1 %"}, {985, 1000, "98 %"}, {15, 1000, "2 %"},
	} {
		if got := ShareText(tt.part, tt.whole); got != tt.want {
			t.Errorf("ShareText(%d, %d) = %q, want %q", tt.part, tt.whole, got, tt.want)
		}
	}
}
