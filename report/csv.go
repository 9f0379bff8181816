package report

import (
	"strings"
	"unicode/utf8"
)

// CSVOptions say how CSV text cells are written.
type CSVOptions struct {
	// Safe prefixes ' to a text cell that a spreadsheet would run as a
	// formula: one that starts with =, +, -, @, a tab or a carriage
	// return, as OWASP's "CSV injection" advice has it. Kernel names,
	// labels and file names come from the traces, which anyone can
	// write. Off by default, as encoding/csv, pandas and Python's csv
	// module write and read cells: with it, pandas reads the ' too.
	Safe bool
}

// csvText is a text cell as written: invalid UTF-8 replaced by U+FFFD a
// byte, as encoding/json writes it, so that a file name that is not
// UTF-8 leaves the rest of the file valid; under Safe, a formula
// prefixed with '.
func csvText(s string, o CSVOptions) string {
	if !utf8.ValidString(s) {
		var b strings.Builder
		for _, r := range s { // an invalid byte ranges as one RuneError
			b.WriteRune(r)
		}
		s = b.String()
	}
	if o.Safe && s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		s = "'" + s
	}
	return s
}
