package report

import (
	"testing"

	"github.com/traceql/traceql/metrics"
)

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		v    any
		u    metrics.Unit
		want string
	}{
		{27500, metrics.Count, "27,500"},
		{int64(-1234567), metrics.Count, "-1,234,567"},
		{13650.5, metrics.Count, "13,650"}, // a median of counts: no decimals this big, half to even
		{13651.5, metrics.Count, "13,652"},
		{42.5, metrics.Count, "42.5"},
		{1.25, metrics.Count, "1.25"},
		{int64(659_000_000), metrics.NS, "659 ms"},
		{int64(20_400), metrics.NS, "20.4 µs"},
		{int64(1_520_000_000), metrics.Bytes, "1.52 GB"},
		{17.04, metrics.GBps, "17.0 GB/s"},
		{0.758, metrics.Ratio, "75.8 %"},
		{"at::native::x", metrics.Text, "at::native::x"},
	} {
		if got := Format(tt.v, tt.u); got != tt.want {
			t.Errorf("Format(%v, %v) = %q, want %q", tt.v, tt.u, got, tt.want)
		}
	}
}
