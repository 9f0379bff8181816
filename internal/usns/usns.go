// Package usns reads Kineto's times, decimal microseconds with up to three
// decimals, as integer nanoseconds, for tests that check the readers
// against a reading of their own: from the text, never through float64,
// and apart from the reader's parser.
package usns

import (
	"strconv"
	"strings"
	"testing"
)

// Parse returns s, decimal µs, in ns; it fails tb when s is not a decimal
// with at most three decimals. A negative time stays negative: tests
// refuse negative durations themselves.
func Parse(tb testing.TB, s string) int64 {
	tb.Helper()
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		tb.Fatalf("time %s: finer than 1 ns", s)
	}
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || f < 0 {
		tb.Fatalf("time %s: not a decimal", s)
	}
	if strings.HasPrefix(whole, "-") {
		return w*1000 - f
	}
	return w*1000 + f
}
