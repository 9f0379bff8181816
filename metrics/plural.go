package metrics

import (
	"strconv"
	"strings"
)

// Noun is plural, a noun's plural ("kernels", "copies", "launches",
// "graph breaks"), as many of it as n: its singular when n is 1. The one
// rule every count in words follows (Plural, report.Plural), so that no
// message reads "1 kernels".
func Noun(n int, plural string) string {
	if n != 1 {
		return plural
	}
	for _, es := range []string{"ches", "shes", "sses", "xes"} {
		if strings.HasSuffix(plural, es) {
			return strings.TrimSuffix(plural, "es")
		}
	}
	if s, ok := strings.CutSuffix(plural, "ies"); ok {
		return s + "y"
	}
	return strings.TrimSuffix(plural, "s")
}

// Plural counts n things in words: "1 kernel", "3 kernels", "1 copy".
// Tables write counts with separators (report.Plural); evidence and
// messages, as here, as plain digits.
func Plural(n int, plural string) string { return strconv.Itoa(n) + " " + Noun(n, plural) }
