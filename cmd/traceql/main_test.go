package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/shared"
)

// traceql runs the whole CLI in-process.
func traceql(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), code
}

// sample is the README's sample trace, made by internal/synth.
const sample = "../../testdata/sample.pt.trace.json.gz"

func TestSummarizeGolden(t *testing.T) {
	realPair := func(t *testing.T) []string {
		dir := shared.Traces(t)
		wd, _ := os.Getwd()
		rel, err := filepath.Rel(wd, dir)
		if err != nil {
			t.Fatal(err)
		}
		return []string{filepath.Join(rel, "hta/trace_compare/base/base.json.gz"), filepath.Join(rel, "kineto/vllm_decode_mi300x_hipgraph.json.gz")}
	}
	tests := []struct {
		name  string
		args  func(t *testing.T) []string
		flags []string
	}{
		{"sample.text", func(*testing.T) []string { return []string{sample} }, nil},
		{"sample.csv", func(*testing.T) []string { return []string{sample} }, []string{"--format", "csv"}},
		{"sample.json", func(*testing.T) []string { return []string{sample} }, []string{"--format", "json", "--top", "3"}},
		{"sample.md", func(*testing.T) []string { return []string{sample} }, []string{"--format", "markdown", "--top", "3"}},
		{"real.text", realPair, nil},
		{"real.csv", realPair, []string{"--format", "csv"}},
		{"cpu_only.text", func(t *testing.T) []string {
			return []string{realPair(t)[0][:strings.Index(realPair(t)[0], "hta/")] + "hta/cpu_only"}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"summarize"}, tt.flags...)
			args = append(args, tt.args(t)...)
			out, errOut, code := traceql(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), []byte(out))
		})
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no args", []string{"summarize"}, 2, "needs at least 1 FILE"},
		{"bad format", []string{"summarize", "--format", "xml", "x"}, 2, `--format "xml"`},
		{"bad flag", []string{"summarize", "--nope", "x"}, 2, "unknown flag: --nope"},
		{"unknown command", []string{"sumarize"}, 2, "unknown command"},
		{"missing file", []string{"summarize", filepath.Join(dir, "missing.json")}, 1, "missing.json: no such file"},
		{"empty file", []string{"summarize", write("empty.json", "")}, 1, "empty.json: empty file"},
		{"plain text", []string{"summarize", write("notes.txt", "hello")}, 1, "notes.txt: unknown trace format: expected"},
		{"nsys-rep hint", []string{"summarize", write("r.nsys-rep", "\x00\x01binary")}, 1, "nsys export --type sqlite"},
		{"json syntax", []string{"summarize", write("bad.json", `{"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"dur":2},{"ph":"X","cat":kernel}]}`)}, 1, "bad.json: byte 73: event #1: invalid JSON"},
		{"no traceEvents", []string{"summarize", write("obj.json", `{"a":1}`)}, 1, "obj.json: a JSON object without a traceEvents array"},
		{"events not array", []string{"summarize", write("ev.json", `{"traceEvents":5}`)}, 1, "ev.json: byte 15: traceEvents is not an array"},
		{"junk dir", []string{"summarize", t.TempDir()}, 1, "no trace files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := traceql(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.want)
			}
			if tt.code == 1 && strings.Count(strings.TrimSpace(errOut), "\n") > 0 || strings.Contains(errOut, "goroutine") {
				t.Errorf("want one line, got %q", errOut)
			}
		})
	}
}

func TestTruncatedIsAWarning(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cut.json")
	full := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":2},`
	os.WriteFile(p, []byte(full+`{"ph":"X","ca`), 0o644)
	out, errOut, code := traceql("summarize", p)
	if code != 0 || !strings.Contains(out, "warning: truncated at byte") || !strings.Contains(out, "2 events read") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	_, errOut, code = traceql("summarize", "--strict", p)
	if code != 1 || !strings.Contains(errOut, "truncated at byte") {
		t.Errorf("--strict: exit %d, %q", code, errOut)
	}
}

// TestSummarizeFlags checks flag parsing alone, with the work stubbed out.
func TestSummarizeFlags(t *testing.T) {
	var got *summarizeOptions
	cmd := newSummarizeCmd(func(_ context.Context, o *summarizeOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-f", "csv", "--top", "3", "--strict", "a.json", "dir/"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Format != "csv" || got.Top != 3 || !got.Strict || strings.Join(got.Args, " ") != "a.json dir/" {
		t.Errorf("options %+v", got)
	}
}

func TestHelpShowsDefinitions(t *testing.T) {
	out, _, code := traceql("summarize", "--help")
	for _, s := range []string{"busy_ns", "union of GPU activity intervals", "kernel_median_ns", "h2d_gbps"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("--help lacks %q", s)
		}
	}
}
