package report

import (
	"github.com/traceql/traceql/metrics"
)

// What the plots (report/plot) and the HTML page (report/html) write as the
// tables do: counts of things, names cut to fit, ops in the order compare
// pairs them, values as numbers.

// Plural formats n things as tables write counts: "1 kernel", "27,500
// kernels", "1 copy" (noun is the plural; metrics.Noun makes it singular).
func Plural(n int, noun string) string {
	return Format(n, metrics.Count) + " " + metrics.Noun(n, noun)
}

func plural(n int, noun string) string { return Plural(n, noun) }

// ShortNames returns the names of xs (name(x)) cut to n columns as the
// tables cut them (shortNames).
func ShortNames[T any](xs []T, name func(T) string, n int) []string { return shortNames(xs, name, n) }

// OpsByLongest lists the op names of several runs by their longest total
// in any run, ties by name, with each run's ops by name: the order in
// which compare and plot --kind ops pair runs' ops.
func OpsByLongest(sums []metrics.Summary) (names []string, byName []map[string]metrics.OpStat) {
	return opsByLongest(sums)
}

// Float is a table value (int, int64 or float64) as a float64; NaN for
// anything else.
func Float(v any) float64 { return toFloat(v) }

// FormatCell formats one value of a column of unit u for people (scaled
// units, human) or machines (raw), as the tables' outputs do.
func FormatCell(v any, u metrics.Unit, human bool) string { return cell(v, u, human) }
