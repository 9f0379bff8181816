package metrics

import (
	"fmt"
	"math"
)

// ShareText writes part / whole in percent for a sentence, rounded to the
// unit, but never onto 0 % or 100 % unless exact: those get a decimal, cut
// toward them. "100 % of idle time waits on launches" must mean all of it,
// and "sync 0 %" none.
func ShareText(part, whole int64) string {
	p := sharePct(part, whole)
	switch r := math.Round(p); {
	case part == 0 || part == whole:
	case r == 0 && p < 0.1:
		return "<0.1 %"
	case r == 0:
		return fmt.Sprintf("%.1f %%", p)
	case r == 100:
		return fmt.Sprintf("%.1f %%", min(math.Floor(p*10)/10, 99.9))
	}
	return fmt.Sprintf("%.0f %%", p)
}

// sharePct is part / whole in percent, 0 for an empty whole; in float64,
// as doubling times near trace.MaxTime would overflow.
func sharePct(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
