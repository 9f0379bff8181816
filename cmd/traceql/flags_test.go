package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/traceql/traceql/trace"
)

// The tests in this file check each command's flag parsing alone, as gh's
// do: the command is built with a runF that keeps its options instead of
// running, and a table of command lines gives the options each makes,
// defaults included, or the usage error it is refused with.

// A flagCase is one command line and the options it makes (want), or the
// usage error whose message contains wantErr.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// optionsCmp compares options structs: readOptions by its flags and by
// the host data the command asks the read for (needs); what prepare sets
// up for reading (streams, workers) is not the flags'.
var optionsCmp = []cmp.Option{
	cmp.AllowUnexported(readOptions{}),
	cmpopts.IgnoreFields(readOptions{}, "memory", "stderr", "stdin", "tty", "progress", "workers", "gc"),
	cmpopts.EquateEmpty(),
}

// testFlags runs each case through the command newCmd makes, with the
// root's flag error handling, and compares the options runF gets, its IO
// the streams the command was made with, with want.
func testFlags[O any](t *testing.T, newCmd func(*ioStreams, func(context.Context, *O) error) *cobra.Command, ioOf func(*O) **ioStreams, tests []flagCase[O]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _ := testStreams()
			var got *O
			cmd := newCmd(ios, func(_ context.Context, o *O) error { got = o; return nil })
			cmd.SetArgs(append([]string{}, tt.args...)) // nil would make cobra read os.Args (-update)
			cmd.SetFlagErrorFunc(flagError)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			usageArgs(cmd)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v; want a usage error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("runF not called")
			}
			if *ioOf(got) != ios {
				t.Errorf("IO is not the command's streams")
			}
			*ioOf(got) = nil
			if diff := cmp.Diff(&tt.want, got, optionsCmp...); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizeFlags(t *testing.T) {
	testFlags(t, newSummarizeCmd, func(o *summarizeOptions) **ioStreams { return &o.IO }, []flagCase[summarizeOptions]{
		{name: "defaults", args: []string{"a.json"},
			want: summarizeOptions{Args: []string{"a.json"}, Format: "text", Top: 10, Names: "full"}},
		{name: "every flag", args: []string{"-f", "csv", "--top", "3", "--all", "--by", "kernel,stream", "--by", "api", "--names", "family",
			"--label", "a,b", "--strict", "-q", "-j", "2", "--shard", "1/4", "--steps", "3:", "--kernel", "gemm", "--device", "0,1", "--stream", "7",
			"a.json", "dir/"},
			want: summarizeOptions{Args: []string{"a.json", "dir/"}, Format: "csv", Top: 3, TopSet: true, All: true, By: []string{"kernel", "stream", "api"},
				Names: "family", Labels: []string{"a", "b"}, Shard: shard{K: 1, N: 4},
				Read: readOptions{Strict: true, Quiet: true, Jobs: 2, Steps: "3:", Kernel: "gemm", Devices: []int{0, 1}, Streams: []int64{7}}}},
		{name: "md is markdown, overview", args: []string{"-f", "md", "--overview", "a.json"},
			want: summarizeOptions{Args: []string{"a.json"}, Format: "markdown", Overview: true, Top: 10, Names: "full"}},
		{name: "by op reads the ops", args: []string{"--by", "op", "a.json"},
			want: summarizeOptions{Args: []string{"a.json"}, Format: "text", Top: 10, Names: "full", By: []string{"op"},
				Read: readOptions{needs: shapeNeeds(true)}}},
		{name: "capture", args: []string{"--by", "op", "--capture", "cap.json", "a.json"},
			want: summarizeOptions{Args: []string{"a.json"}, Format: "text", Top: 10, Names: "full", By: []string{"op"}, Capture: []string{"cap.json"},
				Read: readOptions{needs: shapeNeeds(true)}}},
		{name: "capture without by op", args: []string{"--capture", "cap.json", "a.json"}, wantErr: "--capture names the kernels of graph launches by op; it needs --by op or --by region"},
		{name: "window", args: []string{"--window", "1ms:2ms", "--range", "fwd", "a.json"}, wantErr: "use one of --steps/--skip-steps, --window, --range and --steady"},
		{name: "compile log", args: []string{"--compile-log", "logs/", "-f", "md", "a.json"},
			want: summarizeOptions{Args: []string{"a.json"}, Format: "markdown", Top: 10, Names: "full", CompileLog: "logs/"}},
		{name: "compile log as json", args: []string{"--compile-log", "x.log", "-f", "json", "a.json"}, wantErr: "--compile-log adds text tables"},
		{name: "no file", args: nil, wantErr: "summarize needs at least 1 FILE or DIR"},
		{name: "bad format", args: []string{"-f", "xml", "a.json"}, wantErr: `--format "xml": want one of text, csv, json, markdown`},
		{name: "bad by", args: []string{"--by", "warp", "a.json"}, wantErr: `--by "warp"`},
		{name: "overview of csv", args: []string{"--overview", "-f", "csv", "a.json"}, wantErr: "--overview is a text or markdown table"},
		{name: "top 0", args: []string{"--top", "0", "a.json"}, wantErr: "--top 0: want at least 1"},
		{name: "labels", args: []string{"--label", "a,b", "a.json"}, wantErr: "--label has 2 labels for 1 argument"},
		{name: "jobs", args: []string{"-j", "-1", "a.json"}, wantErr: "--jobs -1"},
	})
}

func TestDiffFlags(t *testing.T) {
	testFlags(t, newDiffCmd, func(o *diffOptions) **ioStreams { return &o.IO }, []flagCase[diffOptions]{
		{name: "defaults", args: []string{"a.json", "b.json"},
			want: diffOptions{PerStep: perStepFlag{On: true}, Old: "a.json", New: "b.json", Group: "name", Format: "text", Top: 20, Names: "full"}},
		{name: "every flag", args: []string{"a.json", "b.json", "--group", "family", "--by", "op", "-f", "json", "--top", "5", "--names", "short",
			"--label", "old,new", "--steady", "--strict"},
			want: diffOptions{PerStep: perStepFlag{On: true}, Old: "a.json", New: "b.json", Group: "family", By: "op", Format: "json", Top: 5, Names: "short",
				Labels: []string{"old", "new"}, Read: readOptions{Steady: true, Strict: true, needs: trace.Needs{Ops: true, Polls: true}}}},
		{name: "md", args: []string{"-f", "md", "a", "b"},
			want: diffOptions{PerStep: perStepFlag{On: true}, Old: "a", New: "b", Group: "name", Format: "markdown", Top: 20, Names: "full"}},
		{name: "a capture each", args: []string{"--by", "op", "--capture", "c1.json", "--capture", "c2.json", "a", "b"},
			want: diffOptions{PerStep: perStepFlag{On: true}, Old: "a", New: "b", Group: "name", By: "op", Format: "text", Top: 20, Names: "full", Capture: []string{"c1.json", "c2.json"},
				Read: readOptions{needs: trace.Needs{Ops: true, Polls: true}}}},
		{name: "totals", args: []string{"--per-step=false", "a", "b"},
			want: diffOptions{PerStep: perStepFlag{Set: true}, Old: "a", New: "b", Group: "name", Format: "text", Top: 20, Names: "full"}},
		{name: "three captures", args: []string{"--by", "op", "--capture", "c", "--capture", "c", "--capture", "c", "a", "b"}, wantErr: "--capture given 3 times; at most 2"},
		{name: "one trace", args: []string{"a.json"}, wantErr: "diff needs exactly two traces, OLD and NEW; got 1"},
		{name: "bad group", args: []string{"--group", "stream", "a", "b"}, wantErr: `--group "stream": want one of name, family`},
		{name: "bad by", args: []string{"--by", "kernel", "a", "b"}, wantErr: `--by "kernel": want one of op`},
		{name: "top -1", args: []string{"--top", "-1", "a", "b"}, wantErr: "--top -1: want at least 1"},
		{name: "jobs is not diff's", args: []string{"-j", "2", "a", "b"}, wantErr: "unknown shorthand flag: 'j'"},
	})
}

func TestCompareFlags(t *testing.T) {
	testFlags(t, newCompareCmd, func(o *compareOptions) **ioStreams { return &o.IO }, []flagCase[compareOptions]{
		{name: "defaults: labels from the names", args: []string{"eager/trace.json", "compiled/trace.json"},
			want: compareOptions{PerStep: perStepFlag{On: true}, Files: []string{"eager/trace.json", "compiled/trace.json"}, Labels: []string{"eager/trace", "compiled/trace"}, Format: "text"}},
		{name: "every flag", args: []string{"a.json", "b.json", "c.json", "--label", "x,y,z", "-f", "csv", "--metrics", "gpu_util,span_ns",
			"--plot", "m.svg", "--plot-size", "10x6", "-j", "3", "--skip-steps", "2"},
			want: compareOptions{PerStep: perStepFlag{On: true}, Files: []string{"a.json", "b.json", "c.json"}, Labels: []string{"x", "y", "z"}, Format: "csv",
				Metrics: []string{"gpu_util", "span_ns"}, Plot: "m.svg", PlotSize: "10x6", Read: readOptions{Jobs: 3, SkipSteps: 2}}},
		{name: "all", args: []string{"a", "b", "--all"},
			want: compareOptions{PerStep: perStepFlag{On: true}, Files: []string{"a", "b"}, Labels: []string{"a", "b"}, Format: "text", All: true}},
		{name: "per step asked", args: []string{"a", "b", "--per-step"},
			want: compareOptions{PerStep: perStepFlag{On: true, Set: true}, Files: []string{"a", "b"}, Labels: []string{"a", "b"}, Format: "text"}},
		{name: "one file", args: []string{"a.json"}, wantErr: "compare needs at least 2 FILEs"},
		{name: "all and metrics", args: []string{"a", "b", "--all", "--metrics", "gpu_util"}, wantErr: "use one of --metrics and --all"},
		{name: "no such metric", args: []string{"a", "b", "--metrics", "speed"}, wantErr: `--metrics "speed": want one of`},
	})
}

func TestExportFlags(t *testing.T) {
	testFlags(t, newExportCmd, func(o *exportOptions) **ioStreams { return &o.IO }, []flagCase[exportOptions]{
		{name: "defaults", args: []string{"runs/"},
			want: exportOptions{Args: []string{"runs/"}, Table: "summary", Format: "csv"}},
		{name: "format from -o", args: []string{"runs/", "-t", "kernels", "-o", "k.PARQUET"},
			want: exportOptions{Args: []string{"runs/"}, Table: "kernels", Format: "parquet", Output: "k.PARQUET", Read: readOptions{needs: shapeNeeds(false)}}},
		{name: "-o - is stdout", args: []string{"a.json", "-o", "-", "-f", "jsonl", "--table", "ops"},
			want: exportOptions{Args: []string{"a.json"}, Table: "ops", Format: "jsonl", Read: readOptions{needs: shapeNeeds(true)}}},
		{name: "every flag", args: []string{"a.json", "b.json", "--table", "gaps", "--per-stream", "--format", "json", "--label", "x,y",
			"--shard", "0/2", "-j", "1", "--window", "1ms:"},
			want: exportOptions{Args: []string{"a.json", "b.json"}, Table: "gaps", PerStream: true, Format: "json", Labels: []string{"x", "y"},
				Shard: shard{K: 0, N: 2}, Read: readOptions{Jobs: 1, Window: "1ms:"}}},
		{name: "no file", args: nil, wantErr: "export needs at least 1 FILE or DIR"},
		{name: "bad table", args: []string{"-t", "kernel", "a"}, wantErr: `--table "kernel": want one of summary, `},
		{name: "md is not export's", args: []string{"-f", "md", "a"}, wantErr: `--format "md": want one of csv, json, jsonl, parquet`},
		{name: "format against -o", args: []string{"-f", "csv", "-o", "x.json", "a"}, wantErr: "-o x.json is json, but --format is csv"},
		{name: "per-stream of kernels", args: []string{"--per-stream", "-t", "kernels", "a"}, wantErr: "--per-stream is for --table gaps"},
		{name: "schema with a file", args: []string{"--schema", "a"}, wantErr: "--schema prints a table's columns and reads no trace; drop a"},
		{name: "compile log", args: []string{"a", "-t", "findings", "--compile-log", "logs/"},
			want: exportOptions{Args: []string{"a"}, Table: "findings", Format: "csv", CompileLog: "logs/"}},
		{name: "compile log of the summary table", args: []string{"a", "--compile-log", "logs/"}, wantErr: "it is for --table findings, not summary"},
	})
}

func TestCheckFlags(t *testing.T) {
	testFlags(t, newCheckCmd, func(o *checkOptions) **ioStreams { return &o.IO }, []flagCase[checkOptions]{
		{name: "defaults", args: []string{"runs/"}, want: checkOptions{Args: []string{"runs/"}, Format: "text", FailOn: "high"}},
		{name: "every flag", args: []string{"a", "--fail-on", "warn", "--compile-log", "l.log", "-f", "markdown", "--steady"},
			want: checkOptions{Args: []string{"a"}, Format: "markdown", FailOn: "warn", CompileLog: "l.log", Read: readOptions{Steady: true}}},
		{name: "no file", args: nil, wantErr: "check needs at least 1 FILE or DIR, or --rules"},
	})
}

func TestPlotFlags(t *testing.T) {
	testFlags(t, newPlotCmd, func(o *plotOptions) **ioStreams { return &o.IO }, []flagCase[plotOptions]{
		{name: "defaults", args: []string{"a.json", "-o", "k.png"},
			want: plotOptions{Files: []string{"a.json"}, Output: "k.png", Kind: "kernels", Weight: "time", Bins: 100, Top: 15, Names: "full"}},
		{name: "every flag", args: []string{"a.json", "b.json", "-k", "timeline", "--weight", "count", "-o", "u.svg", "--label", "x,y",
			"--bins", "200", "--top", "5", "--names", "short", "--range", "fwd"},
			want: plotOptions{Files: []string{"a.json", "b.json"}, Kind: "timeline", Weight: "count", Output: "u.svg", Labels: []string{"x", "y"},
				Bins: 200, Top: 5, Names: "short", Read: readOptions{Range: "fwd"}}},
		{name: "ops reads the ops", args: []string{"a.json", "--kind", "ops", "-o", "o.png"},
			want: plotOptions{Files: []string{"a.json"}, Output: "o.png", Kind: "ops", Weight: "time", Bins: 100, Top: 15, Names: "full",
				Read: readOptions{needs: trace.Needs{Ops: true}}}},
		{name: "no output", args: []string{"a.json"}, wantErr: "plot needs -o OUT.png or OUT.svg"},
		{name: "bad kind", args: []string{"-k", "pie", "a", "-o", "x.png"}, wantErr: `--kind "pie": want one of kernels, gaps, timeline, top, steps, breakdown, ops`},
		{name: "bad weight", args: []string{"--weight", "bytes", "a", "-o", "x.png"}, wantErr: `--weight "bytes": want one of time, count`},
		{name: "top of two runs", args: []string{"-k", "top", "a", "b", "-o", "x.png"}, wantErr: "--kind top draws one run's kernels"},
		{name: "bins too many", args: []string{"--bins", "2001", "a", "-o", "x.png"}, wantErr: "--bins 2001: at most 2000"},
	})
}

func TestPprofFlags(t *testing.T) {
	testFlags(t, newPprofCmd, func(o *pprofOptions) **ioStreams { return &o.IO }, []flagCase[pprofOptions]{
		{name: "defaults", args: []string{"a.json", "-o", "gpu.pb.gz"},
			want: pprofOptions{File: "a.json", Output: "gpu.pb.gz"}},
		{name: "stdout, a pipe", args: []string{"a.json", "-o", "-", "--steps", "2:4"},
			want: pprofOptions{File: "a.json", Output: "-", Read: readOptions{Steps: "2:4"}}},
		{name: "no output", args: []string{"a.json"}, wantErr: "pprof needs -o FILE"},
		{name: "two traces", args: []string{"a", "b", "-o", "p"}, wantErr: "pprof takes one trace; got 2"},
	})
}

func TestReportFlags(t *testing.T) {
	testFlags(t, newReportCmd, func(o *reportOptions) **ioStreams { return &o.IO }, []flagCase[reportOptions]{
		{name: "defaults", args: []string{"a.json", "-o", "r.html"},
			want: reportOptions{Args: []string{"a.json"}, Output: "r.html", Top: 20, Bins: 200, Names: "full"}},
		{name: "every flag", args: []string{"a.json", "b.json", "-o", "r.HTM", "--label", "x,y", "--top", "5", "--ops", "--bins", "50",
			"--names", "family", "-j", "2", "--steady", "--whatif", "graphs,pinned"},
			want: reportOptions{Args: []string{"a.json", "b.json"}, Output: "r.HTM", Labels: []string{"x", "y"}, Top: 5, Ops: true, Bins: 50,
				Names: "family", Whatif: []string{"graphs", "pinned"}, Read: readOptions{Jobs: 2, Steady: true, needs: trace.Needs{Ops: true}}}},
		{name: "no output", args: []string{"a.json"}, wantErr: "report needs -o REPORT.html"},
		{name: "not html", args: []string{"a.json", "-o", "r.pdf"}, wantErr: "-o r.pdf: the report is HTML"},
		{name: "bad names", args: []string{"a.json", "-o", "r.html", "--names", "long"}, wantErr: `--names "long": want one of full, short, family`},
		{name: "bad whatif", args: []string{"a.json", "-o", "r.html", "--whatif", "kernel"}, wantErr: `--whatif "kernel": want one of graphs, no-syncs, pinned`},
	})
}

func TestAnnotateFlags(t *testing.T) {
	testFlags(t, newAnnotateCmd, func(o *annotateOptions) **ioStreams { return &o.IO }, []flagCase[annotateOptions]{
		{name: "defaults", args: []string{"a.json", "-o", "b.json.gz"},
			want: annotateOptions{File: "a.json", Output: "b.json.gz", Bins: 1000}},
		{name: "every flag", args: []string{"a.json", "-o", "b.json", "--bins", "20", "--strict", "-q"},
			want: annotateOptions{File: "a.json", Output: "b.json", Bins: 20, Read: readOptions{Strict: true, Quiet: true}}},
		{name: "stdin", args: []string{"-", "-o", "b.json"}, wantErr: "annotate reads its FILE twice"},
		{name: "no output", args: []string{"a.json"}, wantErr: "annotate needs -o"},
		{name: "windows are not annotate's", args: []string{"a.json", "-o", "b.json", "--steady"}, wantErr: "unknown flag: --steady"},
	})
}
