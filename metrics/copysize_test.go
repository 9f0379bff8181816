package metrics

import "testing"

func TestCopyTiny(t *testing.T) {
	for _, tt := range []struct {
		c    CopyStat
		want bool
	}{
		{CopyStat{Copies: 10, Bytes: 80}, true},
		{CopyStat{Copies: 2, Bytes: 2*tinyCopyBytes - 1}, true},
		{CopyStat{Copies: 2, Bytes: 2 * tinyCopyBytes}, false},
		{CopyStat{}, false}, // no copies: no bandwidth to judge
	} {
		if got := tt.c.Tiny(); got != tt.want {
			t.Errorf("%d copies of %d B: Tiny %v, want %v", tt.c.Copies, tt.c.Bytes, got, tt.want)
		}
	}
}
