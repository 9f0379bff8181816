package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/report/plot"
	"github.com/traceql/traceql/trace"
)

type compareOptions struct {
	Read   readOptions
	Files  []string
	Labels []string
	Format string
	CSV    report.CSVOptions // --csv-safe
	Plot   string
	// Metrics are the rows shown, by CSV name; nil: the headline
	// (report.CompareHeadline) in text and Markdown, all in CSV.
	Metrics  []string
	All      bool
	PlotSize string // WxH in inches
	// Layout is rows (a row per run), columns (a column per run) or ""
	// for the default: rows above 4 runs.
	Layout  string
	Parts   []string // names of the labels' parts, split at "_": rows' leading columns
	GroupBy []string // parts whose runs are answered apart
	PerStep perStepFlag
	// Whatif are the edits (whatif's flags without --) each run is also
	// projected with, shown apart as a projection.
	Whatif []string
	Flops  flopsFlags
	IO     *ioStreams
}

func newCompareCmd(ios *ioStreams, runF func(context.Context, *compareOptions) error) *cobra.Command {
	opts := &compareOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "compare FILE|DIR...",
		Short: "Runs side by side: metrics as rows, ratios to the first run",
		Long: `Compare puts two or more runs side by side — the table of a torch.compile
mode study: kernels, mean kernel, idle, utilization, duration (span),
bandwidth, one column per run and the ratio of each run to the first.
When no run has GPU activity (CPU or Apple MPS runs, eager vs compiled),
their host sides are compared instead: span, steps, time in and outside
ops, torch.compile's regions, then each op's total time per run and its
ratio to the first (see summarize --help); --metrics picks host metrics
then, shown alone.
--layout rows (the default above 4 runs) puts a run a row and the metrics
in columns, after a line that answers which run's median step is shortest
(its span when a run has no steps), by how much, and which is next. Labels
split at "_" into parts that --parts names (vit-small_eager_b1: --parts
model,mode,batch) are shown as columns, and --group-by model,batch answers
each model and batch apart; a folder's runs with other parts are left out.
--format csv (or json, one document) has a row per run and device, the
runs in the order given (run, from 1) with their labels, then summarize's
columns: every metric, bound included, integers as integers.
--flops reads the shapes recorded with record_shapes=True (slower): FLOPs,
achieved TFLOP/s and MFU join the headline, and a note per run gives the
peak MFU divides by (or why there is none), the kernel time its counted
ops ran and its precision mix; naming a FLOP metric in --metrics does too.
Labels default to the file names. A DIR is searched as summarize does,
files that are no trace skipped with a note: compare DIR compares the
traces in it, in natural order. Files are read --jobs at a time, one
per CPU by default, and fewer when their tables would take more than half
the memory available (see summarize --help).` + perStepHelp + windowHelp,
		Example: `  traceql compare default.json reduce.json autotune.json \
    --label default,reduce-overhead,max-autotune
  traceql compare a.json b.json --plot modes.png`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && anyDir(args) { // compare DIR: its traces
				return nil
			}
			return minArgs(2, "FILEs")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.PerStep.Set = cmd.Flags().Changed("per-step")
			// With a DIR, the labels are checked against the traces found.
			if !anyDir(args) {
				if len(opts.Labels) == 0 {
					opts.Labels = runLabels(args)
				}
				if err := checkLabels(opts.Labels, args); err != nil {
					return err
				}
			}
			if err := checkParts(opts); err != nil {
				return err
			}
			if opts.All && opts.Metrics != nil {
				return usageError{fmt.Errorf("use one of --metrics and --all")}
			}
			if len(opts.Whatif) > 0 && (opts.Format == "csv" || opts.Format == "json") {
				return usageError{fmt.Errorf("--whatif shows in text and markdown; for its CSV or JSON use traceql whatif -f %s", opts.Format)}
			}
			if opts.Plot != "" { // before the runs are read
				if err := checkOutput(opts.Plot, opts.Files); err != nil {
					return err
				}
				if _, err := plotFormat(opts.Plot); err != nil {
					return err
				}
				if _, err := parseSize(opts.PlotSize); err != nil {
					return err
				}
			}
			if err := opts.Flops.Peak.check(); err != nil {
				return err
			}
			opts.Flops.want(&opts.Read, false, opts.Metrics...)
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCompare(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	addLabelFlag(f, &opts.Labels, false)
	formatFlag(cmd, &opts.Format, "text", tableFormats, "output format: text, csv, json or markdown")
	csvSafeFlag(cmd.Flags(), &opts.CSV)
	f.StringVar(&opts.Plot, "plot", "", "also draw the headline metrics (or --metrics) as grouped bars to this .png or .svg file")
	enumSliceFlag(cmd, &opts.Metrics, "metrics", metricNames(), "the metrics shown, by CSV name, in this order (see summarize --help)")
	f.BoolVar(&opts.All, "all", false, "show every metric, not the headline ones")
	f.StringVar(&opts.PlotSize, "plot-size", "", "--plot image size WxH in inches (default 8x5)")
	enumFlag(cmd, &opts.Layout, "layout", "", "", []string{"rows", "columns"}, "rows: a row per run; columns: a column per run (default: rows above 4 runs)")
	f.StringSliceVar(&opts.Parts, "parts", nil, "name the parts of the labels, split at _, shown as columns (vit-small_eager_b1: model,mode,batch); runs whose label has another number of parts are left out")
	addPerStepFlag(f, &opts.PerStep)
	f.StringSliceVar(&opts.GroupBy, "group-by", nil, "parts (of --parts) whose runs are answered apart: model,batch gives each model and batch its line on the fastest mode")
	enumSliceFlag(cmd, &opts.Whatif, "whatif", []string{"graphs", "no-syncs", "pinned"},
		"also project each run's median step with these edits of traceql whatif, shown apart and labelled as a projection (text and markdown)")
	opts.Flops.add(f)
	opts.Read.addFlags(f)
	opts.Read.addJobsFlag(f)
	return cmd
}

// writeComparePlots draws the headline metrics of each device pair, the
// first to opts.Plot and the others beside it (modes.png, modes.gpu1.png),
// each titled with the GPUs it pairs. The images are a set: all are drawn
// before any is written, and when one cannot be written, those this run
// wrote are removed. A line on stderr names each image written, unless
// --quiet.
func writeComparePlots(ctx context.Context, opts *compareOptions, sums []metrics.Summary, positions int) error {
	size, err := parseSize(opts.PlotSize)
	if err != nil {
		return err
	}
	format, err := plotFormat(opts.Plot)
	if err != nil {
		return err
	}
	ext := filepath.Ext(opts.Plot)
	paths := make([]string, positions)
	images := make([]bytes.Buffer, positions)
	for pos := range positions {
		path, title := opts.Plot, "headline metrics, ratio to "+opts.Labels[0]
		bars := plot.HeadlineBars(opts.Labels, sums, pos)
		if opts.Metrics != nil {
			title = "ratio to " + opts.Labels[0]
			bars = plot.MetricBars(opts.Labels, sums, pos, opts.Metrics)
		}
		if pos < len(sums[0].Devices) && sums[0].Devices[pos].PerStep > 0 {
			title += ", per step"
		}
		if positions > 1 {
			if pos > 0 {
				path = strings.TrimSuffix(opts.Plot, ext) + fmt.Sprintf(".gpu%d", pos) + ext
			}
			title += fmt.Sprintf(" (device pair %d of %d: each run's GPU #%d)", pos+1, positions, pos)
		}
		paths[pos] = path
		if err := plot.Compare(&images[pos], format, bars, title, size); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	// The images beside opts.Plot, which RunE checked, are named only
	// now the device pairs are known: none may replace an input either.
	for _, path := range paths[1:] {
		if st, err := os.Stat(path); err == nil {
			if err := checkNotInput(path, st, opts.Files); err != nil {
				return err
			}
		}
	}
	for pos, path := range paths {
		if err := outfile.Write(ctx, path, func(w io.Writer) error {
			_, err := w.Write(images[pos].Bytes())
			return err
		}); err != nil {
			for _, p := range paths[:pos] {
				if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
					os.Remove(p)
				}
			}
			return err
		}
	}
	if positions > 1 && !opts.Read.Quiet {
		for pos, path := range paths {
			complain(opts.IO.ErrOut, fmt.Sprintf("plot of device pair %d: %s", pos+1, path))
		}
	}
	return nil
}

// parseSize reads --plot-size WxH in inches ("10x6"); "" is the default.
func parseSize(s string) ([2]float64, error) {
	if s == "" {
		return [2]float64{}, nil
	}
	a, b, ok := strings.Cut(s, "x")
	w, err1 := strconv.ParseFloat(a, 64)
	h, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || w < 3 || h < 2 || w > 40 || h > 40 {
		return [2]float64{}, usageError{fmt.Errorf("--plot-size %q: want WxH in inches, 3x2 to 40x40, e.g. 10x6", s)}
	}
	return [2]float64{w, h}, nil
}

// metricNames are the names --metrics takes: the device metrics, then
// the host metrics that are not also device metrics. Which of the two a
// comparison has is known only once the runs are read (checkRunMetrics).
func metricNames() []string {
	names := deviceMetricNames()
	for _, n := range hostMetricNames() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// checkRunMetrics refuses the names of --metrics that the runs compared
// do not have: device metrics of runs without GPU activity, host-only
// metrics of runs with it.
func checkRunMetrics(names []string, hostOnly bool) error {
	have, what := deviceMetricNames(), "runs with GPU activity"
	if hostOnly {
		have, what = hostMetricNames(), "runs without GPU activity (their host sides)"
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return usageError{fmt.Errorf("--metrics: %s is not a metric of %s; theirs are %s", n, what, strings.Join(have, ", "))}
		}
	}
	return nil
}

// deviceMetricNames are the names of metrics.Columns.
func deviceMetricNames() []string {
	var out []string
	for _, c := range metrics.Columns() {
		out = append(out, c.Name)
	}
	return out
}

// hostMetricNames are the names of metrics.HostColumns.
func hostMetricNames() []string {
	var out []string
	for _, c := range metrics.HostColumns() {
		out = append(out, c.Name)
	}
	return out
}

// runLabel shortens a trace path to a label: the file name without the
// usual trace suffixes.
func runLabel(path string) string {
	b := filepath.Base(path)
	for _, suf := range []string{".gz", ".json", ".pt.trace", ".sqlite"} {
		b = strings.TrimSuffix(b, suf)
	}
	return b
}

// runLabels labels each path by runLabel, with as many of the folders
// above it as tell the labels apart (eager/trace and compiled/trace), and
// a count after a path given twice.
func runLabels(paths []string) []string {
	labels := make([]string, len(paths))
	dirs := make([]string, len(paths))
	for i, p := range paths {
		labels[i], dirs[i] = runLabel(p), filepath.Dir(filepath.Clean(p))
	}
	for collide(labels, paths) {
		grew := false
		for i, d := range dirs {
			if d != "." && d != filepath.Dir(d) {
				labels[i], dirs[i] = filepath.Base(d)+"/"+labels[i], filepath.Dir(d)
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	seen := map[string]int{}
	for i, l := range labels {
		if seen[l]++; seen[l] > 1 {
			labels[i] = fmt.Sprintf("%s (%d)", l, seen[l])
		}
	}
	return labels
}

// collide reports whether two different paths have the same label.
func collide(labels, paths []string) bool {
	seen := map[string]string{} // label → path
	for i, l := range labels {
		p := filepath.Clean(paths[i])
		if q, ok := seen[l]; ok && q != p {
			return true
		}
		seen[l] = p
	}
	return false
}

func runCompare(ctx context.Context, opts *compareOptions) error {
	in := &runInputs{Files: opts.Files, Labels: opts.Labels}
	if anyDir(opts.Files) {
		var err error
		if in, err = expandRuns(opts.Files, opts.Labels, opts.IO); err != nil {
			return err
		}
	}
	if err := keepParts(in, opts); err != nil {
		return err
	}
	done := opts.Read.startProgress(in.Files)
	var sums []metrics.Summary
	var projs [][]metrics.Projection
	var kept []int
	edits := compareEdits(opts.Whatif)
	summarize := func(t *trace.Trace) compared {
		c := compared{s: metrics.Summarize(t, metrics.Options{Workers: cores(), Scopes: opts.Flops.On, Flops: opts.Flops.On, Peak: opts.Flops.Peak.PeakOverride})}
		if edits.Any() {
			c.p, _ = metrics.ReplayDevices(t, edits)
		}
		return c
	}
	i := 0
	err := readEach(ctx, in.Files, &opts.Read, summarize, func(file string, c compared, err error) error {
		defer func() { i++ }()
		if err := in.keep(i, err, opts.IO, &kept); err != nil || !slices.Contains(kept, i) {
			return err
		}
		opts.Read.warn(file, c.s.Warnings)
		sums, projs = append(sums, c.s), append(projs, c.p)
		return nil
	})
	done()
	if err != nil {
		return err
	}
	if err := in.only(kept); err != nil {
		return err
	}
	if len(sums) < 2 && len(opts.Parts) == 0 {
		return fmt.Errorf("compare needs at least 2 traces; %s found %s", strings.Join(opts.Files, ", "), metrics.Plural(len(sums), "traces"))
	}
	opts.Files, opts.Labels = in.Files, in.Labels
	positions := 0
	for _, s := range sums {
		positions = max(positions, len(s.Devices))
	}
	if err := checkRunMetrics(opts.Metrics, positions == 0); err != nil {
		return err
	}
	if positions == 0 {
		return writeHostCompare(opts, sums)
	}
	perStep, err := opts.PerStep.decide(opts.Format, opts.Labels, sums)
	if err != nil {
		return err
	}
	metrics.SetPerStep(sums, perStep)
	if opts.Plot != "" {
		if err := writeComparePlots(ctx, opts, sums, positions); err != nil {
			return err
		}
	}
	out := tableOutput(opts.IO, opts.Format, opts.CSV, "compare")
	if out.Records() {
		return report.Write(opts.IO.Out, out, report.CompareRecords(opts.Labels, sums))
	}
	if opts.Layout == "rows" || opts.Layout == "" && (len(sums) > 4 || opts.Parts != nil) {
		if err := writeCompareRows(opts, sums, positions); err != nil {
			return err
		}
		return writeCompareWhatif(opts, sums, projs, edits)
	}
	rows := opts.Metrics
	if rows == nil && !opts.All {
		rows = report.CompareHeadline
	}
	var tables []*report.Table
	for pos := range positions {
		tables = append(tables, report.CompareTable(opts.Labels, sums, pos, rows, opts.Metrics != nil))
	}
	if rows != nil && opts.Metrics == nil {
		tables = append(tables, &report.Table{Notes: []string{"every metric: --all; these or others: --metrics NAME,…"}})
	}
	if edits.Any() {
		if t := report.WhatifCompareTable(opts.Labels, sums, projs, edits.String()); t != nil {
			tables = append(tables, t)
		}
	}
	return report.Write(opts.IO.Out, out, tables...)
}

// writeHostCompare compares runs without GPU activity (CPU or MPS runs,
// eager vs compiled) by their host sides and ops.
func writeHostCompare(opts *compareOptions, sums []metrics.Summary) error {
	if opts.Plot != "" {
		return fmt.Errorf("--plot: none of the traces has GPU activity; compare their host sides without it")
	}
	out := tableOutput(opts.IO, opts.Format, opts.CSV, "host-compare")
	if out.Records() {
		return report.Write(opts.IO.Out, out, report.HostCompareRecords(opts.Labels, sums))
	}
	// As for devices: --metrics names the rows and shows them alone.
	tables := []*report.Table{report.HostMetricTable(opts.Labels, sums, opts.Metrics, opts.All)}
	if opts.Metrics == nil {
		if ops := report.HostOpTable(opts.Labels, sums, 0); ops != nil {
			tables = append(tables, ops)
		}
	}
	return report.Write(opts.IO.Out, out, tables...)
}
