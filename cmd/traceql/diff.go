package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

type diffOptions struct {
	By       string // "op": compare GPU time by host op too
	Names    string // kernel name style: full, short or family
	Read     readOptions
	Old, New string
	Args     []string // set when a folder holds OLD and NEW, found when run
	Group    string
	Format   string
	CSV      report.CSVOptions // --csv-safe
	Top      int
	Labels   []string
	FailIf   []metrics.Gate // --fail-if: exit 3 when one fails
	Capture  []string       // --capture: one for both sides, or OLD's and NEW's
	PerStep  perStepFlag
	Flops    flopsFlags
	// Pair names the pair of diff OLDDIR NEWDIR being diffed (its path
	// inside the folders), for the --fail-if lines; "" otherwise.
	Pair string
	IO   *ioStreams
}

func newDiffCmd(ios *ioStreams, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{IO: ios}
	var failIf string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | DIR | OLDDIR NEWDIR",
		Short: "What changed between two runs: metrics, steps and kernels",
		Long: `Diff compares two traces (any mix of Kineto JSON and Nsight SQLite), device
by device (devices pair up by position among those with GPU activity).
A DIR holding two traces is OLD and NEW in natural order (files that are
no trace skipped with a note, as summarize does). OLDDIR NEWDIR diffs
each trace of OLDDIR with NEWDIR's of the same path inside the folder, one
diff after another in natural order (text or markdown), a line on stderr
for a trace on one side only; the exit code is the worst of the pairs': 1
when one failed, else 3 when --fail-if found a regression in one.

It prints every summary metric old, new, the absolute delta and the change
(−98.6 % ×0.0140), and each run's verdict as summarize gives it; when both
traces hold at least two ProfilerStep#N, the per-step distributions of
step time, kernels, busy, idle and utilization (median, n, and ~ when the
change lies within step-to-step spread:
Mann-Whitney U, p ≥ 0.05, as benchstat; with fewer than about 4 steps a
side the test cannot reach 0.05, and the change is shown marked † as not
tested); then kernels matched by name —
or with --group family by a normalized family (triton_poi_fused_add_0 and
_1 → triton_poi_fused_add; templated C++ names cut to their base name) —
with count, total and mean on both sides, new/gone ones marked, sorted by
the absolute change in total time.

--flops reads the shapes recorded with record_shapes=True (slower): the
FLOP metrics (flops … mfu in summarize --help) join the rows, and a note
per run gives its peak or why it has no MFU, the kernel time its counted
ops ran and its precision mix; a --fail-if on a FLOP metric reads them too.

--fail-if 'step_median>+3%,kernels>+10%' is a regression gate for CI:
diff exits 3 when a listed metric (summarize's CSV name, its unit suffix
optional) rises past its threshold (NAME<-P%: falls) and, where both runs
have steps enough for the test, the per-step values differ beyond their
spread; a change within the spread is noise and passes. Each gate is worded
on stderr. Exit codes: 0 pass, 1 a run failed, 2 bad usage, 3 regression.
See docs/ci.md for a GitHub Actions job.

--format csv writes the summary metrics alone, one row per device pair and
metric (old, new, delta, ratio), clock readings (start_ns, end_ns) left
out; --format json the same rows as one document ({"version", "table":
"diff", "rows"}); export --table kernel-stats gives each run's kernels.` + perStepHelp + `
The --fail-if gates read the metrics per step when the text would.` + windowHelp + captureHelp,
		Example: `  traceql diff default.json reduce-overhead.json
  traceql diff eager.json compiled.json --group family --top 30
  traceql diff a.json b.sqlite --format csv > diff.csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && anyDir(args) { // a folder of the two runs
				return nil
			}
			if len(args) != 2 {
				return usageError{fmt.Errorf("diff needs exactly two traces, OLD and NEW; got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.PerStep.Set = cmd.Flags().Changed("per-step")
			if bothDirs(args) && (opts.Format == "csv" || opts.Format == "json") {
				return usageError{fmt.Errorf("diff OLDDIR NEWDIR writes a diff per pair: --format text or markdown")}
			}
			if anyDir(args) {
				opts.Args = args // the traces are found when run
			} else {
				opts.Old, opts.New = args[0], args[1]
				if err := checkLabels(opts.Labels, args); err != nil {
					return err
				}
			}
			if err := positive("top", opts.Top); err != nil {
				return err
			}
			if failIf != "" {
				gates, err := parseGates(failIf)
				if err != nil {
					return err
				}
				opts.FailIf = gates
			}
			if err := opts.Flops.Peak.check(); err != nil {
				return err
			}
			var gated []string
			for _, g := range opts.FailIf {
				gated = append(gated, g.Column)
			}
			if opts.By == "op" {
				opts.Read.needs = trace.Needs{Ops: true, Polls: true} // every cpu_op; polls too, as before
			}
			opts.Flops.want(&opts.Read, opts.By == "op", gated...)
			if err := checkCapture(opts.Capture, 2, opts.By == "op" || opts.Flops.On, "--by op or --flops"); err != nil {
				return err
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDiff(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	enumFlag(cmd, &opts.Group, "group", "", "name", []string{"name", "family"}, "match kernels by exact name or by family")
	enumFlag(cmd, &opts.By, "by", "", "", []string{"op"}, "op: also compare the GPU time launched from each host op (reads the cpu_ops)")
	formatFlag(cmd, &opts.Format, "text", tableFormats, "output format: text, csv, json or markdown")
	csvSafeFlag(cmd.Flags(), &opts.CSV)
	f.IntVar(&opts.Top, "top", 20, "kernel rows shown")
	namesFlag(cmd, &opts.Names)
	addLabelFlag(f, &opts.Labels, false)
	f.StringVar(&failIf, "fail-if", "", "exit 3 when a metric worsens past its threshold, beyond step-to-step spread: 'step_median>+3%,kernels>+10%'")
	addCaptureFlag(f, &opts.Capture, 2)
	addPerStepFlag(f, &opts.PerStep)
	opts.Flops.add(f)
	opts.Read.addFlags(f)
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	if bothDirs(opts.Args) {
		return runDiffDirs(ctx, opts)
	}
	in := &runInputs{Files: []string{opts.Old, opts.New}, Labels: opts.Labels}
	if in.Labels == nil {
		in.Labels = runLabels(in.Files)
	}
	dir := opts.Args != nil
	if dir { // a folder: its two traces, OLD first in natural order
		var err error
		if in, err = expandRuns(opts.Args, opts.Labels, opts.IO); err != nil {
			return err
		}
	}
	done := opts.Read.startProgress(in.Files)
	defer done()
	// Both read at once: a gzipped trace is inflated on one goroutine,
	// which leaves a core to the other.
	var ts []*trace.Trace
	var kept []int
	i := 0
	err := readEach(ctx, in.Files, &opts.Read, func(t *trace.Trace) *trace.Trace { return t },
		func(file string, t *trace.Trace, err error) error {
			defer func() { i++ }()
			if err := in.keep(i, err, opts.IO, &kept); err != nil || t == nil {
				return err
			}
			opts.Read.warn(file, t.Warnings)
			ts = append(ts, t)
			return nil
		})
	if err != nil {
		return err
	}
	if err := in.only(kept); err != nil {
		return err
	}
	if len(ts) != 2 {
		return usageError{fmt.Errorf("diff needs exactly two traces, OLD and NEW; %s holds %s", strings.Join(opts.Args, ", "), metrics.Plural(len(ts), "traces"))}
	}
	opts.Old, opts.New = in.Files[0], in.Files[1]
	if dir {
		opts.Labels = in.Labels
	}
	caps, err := readCaptures(ctx, opts.Capture, &opts.Read, false)
	if err != nil {
		return err
	}
	do := metrics.DiffOptions{Family: opts.Group == "family", Ops: opts.By == "op", Flops: opts.Flops.On, Peak: opts.Flops.Peak.PeakOverride,
		Workers: cores()}
	switch len(caps) {
	case 1:
		do.Capture = [2]*metrics.Capture{caps[0], caps[0]}
	case 2:
		do.Capture = [2]*metrics.Capture{caps[0], caps[1]}
	}
	d := metrics.DiffTraces(ts[0], ts[1], do)
	for i, s := range []*metrics.Summary{&d.Old, &d.New} {
		if s.Capture != nil {
			file := []string{opts.Old, opts.New}[i]
			opts.Read.warn(file, s.Capture.Warnings())
			complain(opts.IO.ErrOut, file+": "+report.CaptureNote(s.Capture))
		}
	}
	both := []metrics.Summary{d.Old, d.New} // their devices are d's
	labels := opts.Labels
	if labels == nil {
		labels = runLabels([]string{opts.Old, opts.New})
	}
	perStep, err := opts.PerStep.decide(opts.Format, labels, both)
	if err != nil {
		return err
	}
	metrics.SetPerStep(both, perStep)
	if err := writeDiff(opts, d, ts); err != nil {
		return err
	}
	// The gates read what the text shows, whatever the format.
	gateStep, _ := opts.PerStep.decide("text", labels, both)
	metrics.SetPerStep(both, gateStep)
	return checkGates(opts, d)
}

// checkGates words each --fail-if gate on stderr, a line each, and
// returns gateFailed when one fails.
func checkGates(opts *diffOptions, d metrics.Diff) error {
	if opts.FailIf == nil {
		return nil
	}
	rs := metrics.CheckGates(d, opts.FailIf)
	failed := 0
	for i, line := range report.GateLines(rs) {
		if opts.Pair != "" {
			line = opts.Pair + ": " + line
		}
		complain(opts.IO.ErrOut, "--fail-if "+line)
		if rs[i].Fail {
			failed++
		}
	}
	if len(rs) == 0 {
		return fmt.Errorf("--fail-if: no device pair with GPU activity in both runs to check")
	}
	if failed > 0 {
		return gateFailed{failed}
	}
	return nil
}

// writeDiff writes the comparison d of the traces ts.
func writeDiff(opts *diffOptions, d metrics.Diff, ts []*trace.Trace) error {
	labels := opts.Labels
	if labels == nil {
		labels = runLabels([]string{opts.Old, opts.New})
	}
	d.Old.Label, d.New.Label = labels[0], labels[1]
	if len(d.Devices) == 0 {
		// Host-only runs (CPU, MPS): their host sides and ops, side by side.
		sums := []metrics.Summary{metrics.Summarize(ts[0], metrics.Options{}), metrics.Summarize(ts[1], metrics.Options{})}
		out := tableOutput(opts.IO, opts.Format, opts.CSV, "host-compare")
		if out.Records() {
			return report.Write(opts.IO.Out, out, report.HostCompareRecords(labels, sums))
		}
		return report.Write(opts.IO.Out, out, report.HostCompareTables(labels, sums, opts.Top)...)
	}
	out := tableOutput(opts.IO, opts.Format, opts.CSV, "diff")
	if out.Records() {
		t := report.DiffRecords(d)
		for _, n := range t.Notes { // not into the data
			complain(opts.IO.ErrOut, n)
		}
		return report.Write(opts.IO.Out, out, t)
	}
	return report.Write(opts.IO.Out, out, report.DiffTables(d, opts.Top, textLayout(opts.IO, false, opts.Names))...)
}
