package main

import (
	"os"
	"strings"
	"testing"
)

// TestUsageErrors: every mistake in the command line — cobra's own (an
// unknown flag, a flag's value missing or of the wrong type, arguments a
// cobra validator refuses) as traceql's — exits 2 with one line, and a
// failure at run time exits 1. run tells them apart by type (usageError),
// never by the words of the message.
func TestUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown flag", []string{"summarize", "--nope", "x"}, 2, "unknown flag: --nope"},
		{"unknown shorthand", []string{"summarize", "-Z", "x"}, 2, "unknown shorthand flag: 'Z' in -Z"},
		{"flag without its value", []string{"summarize", "x", "--top"}, 2, "flag needs an argument: --top"},
		{"flag of the wrong type", []string{"diff", "--top", "many", "a", "b"}, 2, `invalid argument "many" for "--top" flag: strconv.ParseInt: parsing "many": invalid syntax`},
		{"bad enum value", []string{"plot", "--kind", "pie", "-o", "p.png", "x"}, 2, `--kind "pie": want one of kernels, gaps, timeline, top, steps, breakdown, ops`},
		{"missing args", []string{"summarize"}, 2, "summarize needs at least 1 FILE or DIR; see traceql summarize --help"},
		{"too few args", []string{"diff", "a"}, 2, "diff needs exactly two traces, OLD and NEW; got 1"},
		{"too many args", []string{"pprof", "a", "b", "-o", "p.pb.gz"}, 2, "pprof takes one trace; got 2"},
		{"args to no-args command", []string{"version", "x"}, 2, "traceql version takes no arguments"},
		{"cobra.NoArgs", []string{"completion", "bash", "extra"}, 2, `unknown command "extra" for "traceql completion bash"`},
		{"unknown command", []string{"sumarize"}, 2, `unknown command "sumarize"; did you mean summarize? (see traceql --help)`},
		{"missing file", []string{"diff", "gone.json", "gone.json"}, 1, "gone.json: no such file or directory"},
		// A failure whose message starts as cobra's usage errors do.
		{"runtime error worded as usage", []string{"pprof", "unknown command", "-o", "p.pb.gz"}, 1,
			"unknown command: unknown trace format: expected a PyTorch profiler/Kineto JSON trace (.json, .json.gz) or an Nsight Systems SQLite export (.sqlite)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile("unknown command", []byte("not a trace"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := traceql(tt.args...)
			if want := "traceql: " + tt.want + "\n"; code != tt.code || errOut != want || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and one line %q", code, out, errOut, tt.code, want)
			}
			if strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr of %d lines, want one", strings.Count(errOut, "\n"))
			}
		})
	}
}
