package trace

import "github.com/traceql/traceql/trace/internal/jsonlex"

// MicrosToNanos converts a decimal number of microseconds, as written in a
// JSON trace ("1420179485153.755", "1623142623460111", "12.5", "1e3"), to
// integer nanoseconds exactly, without going through float64. Digits past
// the nanosecond are rounded to the nearest ns, halves away from zero.
func MicrosToNanos(s string) (int64, error) { return jsonlex.MicrosToNanos(s) }
