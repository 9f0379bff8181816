package main

import (
	"context"
	"fmt"

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
	Group    string
	Format   string
	CSV      report.CSVOptions // --csv-safe
	Top      int
	Labels   []string
	Capture  []string // --capture: one for both sides, or OLD's and NEW's
	IO       *ioStreams
}

func newDiffCmd(ios *ioStreams, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "What changed between two runs: metrics, steps and kernels",
		Long: `Diff compares two traces (any mix of Kineto JSON and Nsight SQLite), device
by device (devices pair up by position among those with GPU activity).

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

--format csv writes the summary metrics alone, one row per device pair and
metric (old, new, delta, ratio), clock readings (start_ns, end_ns) left
out; --format json the same rows as one document ({"version", "table":
"diff", "rows"}); export --table kernel-stats gives each run's kernels.` + windowHelp + captureHelp,
		Example: `  traceql diff default.json reduce-overhead.json
  traceql diff eager.json compiled.json --group family --top 30
  traceql diff a.json b.sqlite --format csv > diff.csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError{fmt.Errorf("diff needs exactly two traces, OLD and NEW; got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			if err := positive("top", opts.Top); err != nil {
				return err
			}
			if err := checkLabels(opts.Labels, args); err != nil {
				return err
			}
			if err := checkCapture(opts.Capture, 2, opts.By == "op", "--by op"); err != nil {
				return err
			}
			if opts.By == "op" {
				opts.Read.needs = trace.Needs{Ops: true, Polls: true} // every cpu_op; polls too, as before
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
	addCaptureFlag(f, &opts.Capture, 2)
	opts.Read.addFlags(f)
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	done := opts.Read.startProgress([]string{opts.Old, opts.New})
	defer done()
	// Both read at once: a gzipped trace is inflated on one goroutine,
	// which leaves a core to the other.
	var ts []*trace.Trace
	err := readEach(ctx, []string{opts.Old, opts.New}, &opts.Read, func(t *trace.Trace) *trace.Trace { return t },
		func(file string, t *trace.Trace, err error) error {
			if err != nil {
				return err
			}
			opts.Read.warn(file, t.Warnings)
			ts = append(ts, t)
			return nil
		})
	if err != nil {
		return err
	}
	caps, err := readCaptures(ctx, opts.Capture, &opts.Read, false)
	if err != nil {
		return err
	}
	do := metrics.DiffOptions{Family: opts.Group == "family", Ops: opts.By == "op", Workers: cores()}
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
	labels := opts.Labels
	if labels == nil {
		labels = runLabels([]string{opts.Old, opts.New})
	}
	d.Old.Label, d.New.Label = labels[0], labels[1]
	if len(d.Devices) == 0 {
		// Host-only runs (CPU, MPS): their host sides and ops, side by side.
		sums := []metrics.Summary{metrics.Summarize(ts[0], metrics.Options{}), metrics.Summarize(ts[1], metrics.Options{})}
		switch opts.Format {
		case "csv":
			return report.WriteCSVWith(opts.IO.Out, report.HostCompareRecords(labels, sums), opts.CSV)
		case "json":
			return report.WriteJSON(opts.IO.Out, "host-compare", report.HostCompareRecords(labels, sums))
		case "markdown":
			return report.WriteMarkdown(opts.IO.Out, report.HostCompareTables(labels, sums, opts.Top)...)
		}
		return report.WriteTextWidth(opts.IO.Out, opts.IO.TerminalWidth(), report.HostCompareTables(labels, sums, opts.Top)...)
	}
	switch opts.Format {
	case "csv", "json":
		t := report.DiffRecords(d)
		for _, n := range t.Notes { // not into the data
			complain(opts.IO.ErrOut, n)
		}
		if opts.Format == "json" {
			return report.WriteJSON(opts.IO.Out, "diff", t)
		}
		return report.WriteCSVWith(opts.IO.Out, t, opts.CSV)
	case "markdown":
		return report.WriteMarkdown(opts.IO.Out, report.DiffTables(d, opts.Top, textLayout(opts.IO, false, opts.Names))...)
	}
	return report.WriteTextWidth(opts.IO.Out, opts.IO.TerminalWidth(), report.DiffTables(d, opts.Top, textLayout(opts.IO, false, opts.Names))...)
}
