package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// gateFailed says that diff --fail-if found a regression: exit code 3, so
// that CI tells it from a run that failed (1) or was misused (2).
type gateFailed struct{ n int }

func (e gateFailed) Error() string {
	return fmt.Sprintf("--fail-if: %s worse past the threshold, beyond step-to-step spread", metrics.Plural(e.n, "metrics"))
}

// parseGates reads --fail-if: comma-separated NAME>+P% (a rise past P
// percent is a regression) or NAME<-P% (a fall), NAME a metric's CSV name
// or that name without its unit suffix (step_median for step_median_ns).
func parseGates(s string) ([]metrics.Gate, error) {
	names := map[string]string{}
	for _, c := range metrics.Columns() {
		names[c.Name] = c.Name
		for _, suf := range []string{"_ns", "_gbps", "_bytes"} {
			if b, ok := strings.CutSuffix(c.Name, suf); ok {
				names[b] = c.Name
			}
		}
	}
	var gates []metrics.Gate
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		bad := func(why string) error {
			return usageError{fmt.Errorf("--fail-if %q: %s; want NAME>+P%% or NAME<-P%%, e.g. step_median>+3%%,kernels>+10%%", part, why)}
		}
		i := strings.IndexAny(part, "<>")
		if i < 0 {
			return nil, bad("no < or >")
		}
		name, op, pct := part[:i], part[i], strings.TrimSpace(part[i+1:])
		col, ok := names[strings.TrimSpace(name)]
		if !ok {
			return nil, bad(fmt.Sprintf("no metric %q (see summarize --help)", strings.TrimSpace(name)))
		}
		num, ok := strings.CutSuffix(pct, "%")
		if !ok {
			return nil, bad("the threshold is a percentage")
		}
		p, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return nil, bad("the threshold is no number")
		}
		if op == '>' && p < 0 || op == '<' && p > 0 {
			return nil, bad("a rise is >+P%, a fall <-P%")
		}
		gates = append(gates, metrics.Gate{Column: col, Pct: p, Up: op == '>'})
	}
	return gates, nil
}
