package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// enumFlags returns every enum flag of every command, with its values.
func enumFlags() map[string]map[string][]string {
	ios, _, _ := testStreams()
	all := map[string]map[string][]string{}
	for _, cmd := range newRootCmd(ios).Commands() {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			var values []string
			switch v := f.Value.(type) {
			case *enumValue:
				values = v.values
			case *enumSliceValue:
				values = v.values
			default:
				return
			}
			if all[cmd.Name()] == nil {
				all[cmd.Name()] = map[string][]string{}
			}
			all[cmd.Name()][f.Name] = values
		})
	}
	return all
}

// TestFlagCompletion: every enum flag's values complete through cobra's
// __complete, which the bash, zsh and fish scripts all call, and no file
// names with them; each value offered is one the command accepts.
func TestFlagCompletion(t *testing.T) {
	out, _, code := traceql("__complete", "summarize", "--format", "")
	if want := "text\ncsv\njson\nmarkdown\n:4\n"; code != 0 || out != want {
		t.Errorf("__complete summarize --format \"\": exit %d, %q; want %q", code, out, want)
	}
	// By the shorthand too; the shell keeps those that start as typed.
	out, _, _ = traceql("__complete", "plot", "-k", "t")
	if want := "kernels\ngaps\ntimeline\ntop\nsteps\nbreakdown\nops\n:4\n"; out != want {
		t.Errorf("__complete plot -k t: %q; want %q", out, want)
	}
	n := 0
	for cmd, flags := range enumFlags() {
		for flag, want := range flags {
			out, errOut, code := traceql("__complete", cmd, "--"+flag, "")
			if code != 0 {
				t.Fatalf("__complete %s --%s: exit %d: %s", cmd, flag, code, errOut)
			}
			got := strings.Split(strings.TrimSpace(out), "\n")
			if !slices.Equal(got, append(slices.Clone(want), ":4")) {
				t.Errorf("__complete %s --%s: %q, want %q then :4 (no file names)", cmd, flag, got, want)
			}
			n++
		}
	}
	// summarize: format, names, by; diff: format, group, by, names;
	// compare: format, metrics, layout, whatif; plot: kind, weight, names;
	// export: table, format; report: names, whatif; check: format, fail-on;
	// whatif: format.
	if n != 21 {
		t.Errorf("%d enum flags completed, want 21", n)
	}
	// The values offered are accepted: a few, run for real.
	for _, args := range [][]string{{"plot", sample, "--kind", "steps", "-o", filepath.Join(t.TempDir(), "s.png")},
		{"export", sample, "--table", "gaps", "--format", "json"}, {"diff", sample, sample, "--group", "family", "--names", "short"}} {
		if _, errOut, code := traceql(args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestEnumFlagErrors: a value outside an enum flag's values is refused as
// the command line is parsed, before any argument is checked or file
// read: exit 2 and one line naming the flag and listing its values.
func TestEnumFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"summarize", "--format", "xml", "x"}, `--format "xml": want one of text, csv, json, markdown`},
		{[]string{"summarize", "-f", "xml"}, `--format "xml": want one of text, csv, json, markdown`},
		{[]string{"export", "--format", "md", "x"}, `--format "md": want one of csv, json, jsonl, parquet`},
		{[]string{"export", "-t", "kernel", "x"}, `--table "kernel": want one of ` + strings.Join(enumFlags()["export"]["table"], ", ")},
		{[]string{"plot", "--kind", "pie", "-o", "p.png", "x"}, `--kind "pie": want one of kernels, gaps, timeline, top, steps, breakdown, ops`},
		{[]string{"plot", "--weight", "bytes", "x"}, `--weight "bytes": want one of time, count`},
		{[]string{"diff", "--group", "stream", "a", "b"}, `--group "stream": want one of name, family`},
		{[]string{"diff", "--by", "kernel", "a", "b"}, `--by "kernel": want one of op`},
		{[]string{"summarize", "--by", "kernel,warp", "x"}, `--by "warp": want one of kernel, stream, api, range, op, region`},
		{[]string{"report", "--names", "long", "-o", "r.html", "x"}, `--names "long": want one of full, short, family`},
		{[]string{"compare", "--metrics", "gpu_util,speed", "a", "b"}, `--metrics "speed": want one of ` + strings.Join(metricNames(), ", ")},
	} {
		out, errOut, code := traceql(tt.args...)
		if want := "traceql: " + tt.want + "\n"; code != 2 || errOut != want || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, want)
		}
	}
	// Every enum flag, the same way.
	for cmd, flags := range enumFlags() {
		for flag, values := range flags {
			_, errOut, code := traceql(cmd, "--"+flag, "nope", "x")
			want := "traceql: --" + flag + ` "nope": want one of ` + strings.Join(values, ", ") + "\n"
			if code != 2 || errOut != want {
				t.Errorf("%s --%s nope: exit %d, stderr %q; want 2 and %q", cmd, flag, code, errOut, want)
			}
		}
	}
}
