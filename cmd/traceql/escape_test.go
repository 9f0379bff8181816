package main

import (
	"slices"
	"strings"
	"testing"
)

// TestEscapesControls: escape sequences and bidirectional overrides in a
// trace's device name and in its file name reach text and markdown output
// (titles, cells, the overview) escaped, never raw; a newline in a file
// name does not split a row.
func TestEscapesControls(t *testing.T) {
	kernel := `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":5,"args":{"device":0,"stream":7}}`
	events := strings.ReplaceAll(kernel, "%d", "1") + "," + strings.ReplaceAll(kernel, "%d", "10")
	text := `{"deviceProperties":[{"id":0,"name":"GPU\u001b[2J\u001b]0;owned\u0007\u202eevil\u009b"}],"traceEvents":[` + events + `]}`
	a := writeTrace(t, "run\x1b[31m\u202e.json", text)
	b := writeTrace(t, "two\nlines.json", text)
	for _, args := range [][]string{
		{"summarize", a, b}, {"summarize", "-f", "markdown", a, b}, {"compare", a, b}, {"diff", a, b},
		{"diff", "-f", "markdown", a, b},
	} {
		out, errOut, code := traceql(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for _, r := range "\x1b\a\u202e\u009b" {
			if strings.ContainsRune(out, r) {
				t.Errorf("%v: output holds %U raw", args, r)
			}
		}
		name, newline, device := `\x1b[31m\u202e`, `two\nlines`, `GPU\x1b[2J\x1b]0;owned\a\u202eevil\u009b`
		if slices.Contains(args, "markdown") { // whose backslashes and brackets are escaped again
			name, newline, device = `\\x1b\[31m\\u202e`, `two\\nlines`, `GPU\\x1b\[2J\\x1b\]0;owned\\a\\u202eevil\\u009b`
		}
		if !strings.Contains(out, name) {
			t.Errorf("%v: the file name is not shown escaped:\n%s", args, out)
		}
		if strings.Contains(out, "two\nlines") || !strings.Contains(out, newline) {
			t.Errorf("%v: the newline in a file name is not escaped:\n%s", args, out)
		}
		if args[0] == "summarize" && !strings.Contains(out, device) {
			t.Errorf("%v: the device name is not shown escaped:\n%s", args, out)
		}
	}
}
