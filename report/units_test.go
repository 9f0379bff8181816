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
		// Rounding decides the unit and the decimals.
		{int64(999_999), metrics.NS, "1.00 ms"},
		{int64(999_499), metrics.NS, "999 µs"},
		{int64(9_999), metrics.NS, "10.0 µs"},
		{int64(99_960), metrics.NS, "100 µs"},
		{int64(999_999_999_999), metrics.Bytes, "1.00 TB"},
		// Small values keep three significant digits and never read 0.
		{0.0005, metrics.GBps, "0.000500 GB/s"},
		{0.382, metrics.GBps, "0.382 GB/s"},
		{0.000146898, metrics.Ratio, "0.0147 %"},
		{0.00051, metrics.Ratio, "0.0510 %"},
		{0.0005, metrics.Ratio, "0.0500 %"},
		{0.001, metrics.Ratio, "0.1 %"},
		{0.0, metrics.Ratio, "0.0 %"},
		{1.0, metrics.Ratio, "100.0 %"},
	} {
		if got := Format(tt.v, tt.u); got != tt.want {
			t.Errorf("Format(%v, %v) = %q, want %q", tt.v, tt.u, got, tt.want)
		}
	}
}

func TestChangeAndSigned(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Change(1_000_000, 1_000_115), "+0.0115 % ×1.00"},
		{Change(366_000_000, 366_004_220), "+<0.01 % ×1.00"},
		{Change(100, 1.4), "−98.6 % ×0.0140"},
		{Change(1, 0.9996), "−0.0400 % ×1.00"},
		{signed(0, metrics.Ratio), "0"},
		{signed(0.143, metrics.Ratio), "+14.3 pp"},
		{signed(-0.0001, metrics.Ratio), "−0.0100 pp"},
		{signed(-7820, metrics.NS), "−7.82 µs"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
