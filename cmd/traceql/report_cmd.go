package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report/html"
	"github.com/traceql/traceql/report/plot"
	"github.com/traceql/traceql/trace"
)

type reportOptions struct {
	Names  string // kernel name style: full, short or family
	Read   readOptions
	Args   []string
	Labels []string
	Output string
	Top    int
	Bins   int
	Ops    bool // GPU time by host op and code region: reads the cpu_ops
	// Command is the command line as the page shows it (paths by
	// displayPath), set when the flags are parsed.
	Command string
	// Capture is --capture: the trace of the graphs' capture, with --ops.
	Capture []string
	// Whatif are the edits (whatif's flags without --) each run is also
	// projected with.
	Whatif []string
	Flops  flopsFlags
	IO     *ioStreams
}

func newReportCmd(ios *ioStreams, runF func(context.Context, *reportOptions) error) *cobra.Command {
	opts := &reportOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "report FILE|DIR... -o REPORT.html",
		Short: "One self-contained HTML page: verdicts, comparison, plots",
		Long: `Report writes one HTML file to send or keep: for each run and GPU the
headline and its verdict, idle time by class, the top kernels (sortable,
whole names on hover), the steps with warm-up marked, copies and idle gaps
by length; per run the torch.compile block and the drill-down tables of
summarize --by (each stream's busy and idle time, host API calls and
record_function/NVTX ranges by total time; with --ops, GPU time by host
op and code region, which reads the trace's cpu_ops and takes longer;
with --flops, also their FLOPs, each GPU's MFU and precision mix in its
headline and the comparison, each step's FLOPs and MFU);
for several runs the comparison table with ratios to the first and its
bars; and the plots (utilization over time, kernel durations, idle-gap
lengths, step times) as inline SVG.

The page opens from disk and fetches nothing: CSS, SVG and the few lines of
script that sort tables are inline. It reads without script, prints, and follows
the system's light or dark scheme. Its size does not grow with the traces':
tables keep the --top kernels or rows and at most 20 steps, the timeline --bins
bins, the histograms their bins. A DIR argument is searched as summarize does.

With --whatif graphs (or no-syncs, pinned, several with commas) each run's
median step is also projected as traceql whatif projects it, in a section of
its own beside the measured runs, titled and noted as a projection, with the
model's constants.` + windowHelp + captureHelp,
		Example: `  traceql report run.pt.trace.json.gz -o report.html
  traceql report eager.json default.json reduce.json \
    --label eager,default,reduce-overhead --steady -o modes.html`,
		Args: minArgs(1, "FILE or DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if opts.Output == "" {
				return usageError{fmt.Errorf("report needs -o REPORT.html")}
			}
			if ext := strings.ToLower(filepath.Ext(opts.Output)); ext != ".html" && ext != ".htm" {
				return usageError{fmt.Errorf("-o %s: the report is HTML; name it .html", opts.Output)}
			}
			if err := positive("top", opts.Top); err != nil {
				return err
			}
			if err := positive("bins", opts.Bins); err != nil {
				return err
			}
			if opts.Bins > maxTimelineBins {
				return usageError{fmt.Errorf("--bins %d: at most %d", opts.Bins, maxTimelineBins)}
			}
			if err := opts.Flops.Peak.check(); err != nil {
				return err
			}
			if opts.Flops.want(&opts.Read, false) {
				opts.Ops = true // FLOPs are counted by op: the op tables come with them
			} else if opts.Ops {
				opts.Read.needs = trace.Needs{Ops: true} // the cpu_ops, which a lean read leaves out
			}
			if err := checkCapture(opts.Capture, 1, opts.Ops, "--ops or --flops"); err != nil {
				return err
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			opts.Command = commandLine(cmd, args)
			return runReport(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "the HTML file written")
	f.StringSliceVar(&opts.Labels, "label", nil, "comma-separated run labels, one per trace read (a DIR's in natural order); default: the file names")
	f.IntVar(&opts.Top, "top", 20, "kernels listed per device, rows per drill-down table")
	f.BoolVar(&opts.Ops, "ops", false, "also GPU time by host op and code region (reads the cpu_ops: slower)")
	f.IntVar(&opts.Bins, "bins", 200, "time bins of the utilization timeline")
	opts.Flops.add(f)
	addCaptureFlag(f, &opts.Capture, 1)
	enumSliceFlag(cmd, &opts.Whatif, "whatif", []string{"graphs", "no-syncs", "pinned"},
		"also project each run's median step with these edits of traceql whatif, shown apart and labelled as a projection")
	namesFlag(cmd, &opts.Names)
	opts.Read.addFlags(f)
	opts.Read.addJobsFlag(f)
	return cmd
}

// reportRun is what the report keeps of one trace: its summary and the
// series its plots draw, computed where the trace was read, so that the
// trace itself is not kept.
type reportRun struct {
	sum      metrics.Summary
	proj     []metrics.Projection // with --whatif
	kernels  []plot.Series
	gaps     []plot.Series
	timeline []plot.Line
	steps    []plot.StepRun
}

func runReport(ctx context.Context, opts *reportOptions) error {
	// One page of every run asked for, or none: a missing one fails it.
	in, err := expandRuns(opts.Args, opts.Labels, opts.IO)
	if err != nil {
		return err
	}
	files := in.Files
	if err := checkOutput(opts.Output, files); err != nil {
		return err
	}
	caps, err := readCaptures(ctx, opts.Capture, &opts.Read, false)
	if err != nil {
		return err
	}
	var capture *metrics.Capture
	if len(caps) > 0 {
		capture = caps[0]
	}
	r := html.Report{Names: opts.Names, DrillRows: opts.Top}
	edits := compareEdits(opts.Whatif)
	if edits.Any() {
		r.WhatifEdits = edits.String()
	}
	done := opts.Read.startProgress(files)
	k := 0 // the file's index among those found
	var kept []int
	var breakdown []breakdownRun
	err = readEach(ctx, files, &opts.Read, func(t *trace.Trace) reportRun {
		return reportSeries(t, opts, capture, edits)
	}, func(file string, run reportRun, err error) error {
		defer func() { k++ }()
		if err := in.keep(k, err, opts.IO, &kept); err != nil || !slices.Contains(kept, k) {
			return err
		}
		i := len(kept) - 1 // the run's index in the report
		opts.Read.warn(file, run.sum.Warnings)
		label := in.label(k, kept)
		run.sum.Label = label // the label column of the every-metric table
		run.sum.Source = displayPath(run.sum.Source)
		r.Summaries = append(r.Summaries, run.sum)
		r.Projections = append(r.Projections, run.proj)
		name := func(s string) string {
			if len(run.kernels) > 1 || len(run.timeline) > 1 {
				return label + " " + s
			}
			return label
		}
		for _, s := range run.kernels {
			r.Kernels = append(r.Kernels, plot.Series{Label: name(s.Label), Values: s.Values})
		}
		for _, s := range run.gaps {
			r.Gaps = append(r.Gaps, plot.Series{Label: name(s.Label), Values: s.Values})
		}
		for _, l := range run.timeline {
			l.Label, l.Run = name(l.Label), i
			r.Timeline = append(r.Timeline, l)
		}
		for _, s := range run.steps {
			s.Label = name(s.Label)
			r.Steps = append(r.Steps, s)
		}
		for _, d := range run.sum.Devices {
			breakdown = append(breakdown, summaryBreakdownRun(name(fmt.Sprintf("GPU %d", d.Device)), &d))
		}
		return nil
	})
	done()
	if err != nil {
		return err
	}
	if err := in.only(kept); err != nil {
		return err
	}
	if len(in.Files) == 0 {
		return fmt.Errorf("%s: no trace to report", strings.Join(opts.Args, ", "))
	}
	r.Labels = in.Labels
	r.Made = fmt.Sprintf("traceql %s, %s: %s", versionString(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), opts.Command)
	if len(breakdown) > 0 {
		r.Breakdown, r.BreakdownAxis, r.BreakdownTitle = breakdownBars(breakdown)
	}
	return outfile.Write(ctx, opts.Output, func(w io.Writer) error { return html.Write(w, r) })
}

// reportSeries summarizes t, computes its plots' series, per device
// labelled "GPU N", and projects it with the edits when there are some.
func reportSeries(t *trace.Trace, opts *reportOptions, capture *metrics.Capture, edits metrics.Edits) reportRun {
	run := reportRun{sum: metrics.Summarize(t, metrics.Options{TopN: opts.Top, StreamStats: true, APIStats: true, RangeStats: true, Scopes: opts.Ops,
		Flops: opts.Flops.On, Peak: opts.Flops.Peak.PeakOverride, Capture: capture, Workers: cores()})}
	if edits.Any() {
		run.proj, _ = metrics.ReplayDevices(t, edits)
	}
	for dev, v := range metrics.DeviceViews(t) {
		l := fmt.Sprintf("GPU %d", dev)
		run.kernels = append(run.kernels, plot.Series{Label: l, Values: metrics.KernelDurations(v, dev)})
		var lens []int64
		for _, g := range metrics.IdleGaps(v, dev) {
			lens = append(lens, g.Len())
		}
		run.gaps = append(run.gaps, plot.Series{Label: l, Values: lens})
		if pts := metrics.Timeline(v, dev, opts.Bins); len(pts) > 0 {
			run.timeline = append(run.timeline, plot.Line{Label: l, Points: pts})
		}
		st := metrics.StepStats(v, dev)
		if len(st) > 0 {
			run.steps = append(run.steps, plot.StepRun{Label: l, Steps: st, Warmup: metrics.WarmupSteps(st)})
		}
	}
	if len(run.sum.Devices) == 0 && len(run.sum.Host.Steps) > 0 {
		run.steps = append(run.steps, plot.HostSteps("host", &run.sum))
	}
	// One time origin for the run's devices: its first GPU activity.
	if len(run.timeline) > 0 {
		origin := run.timeline[0].Points[0].StartNS
		for _, l := range run.timeline {
			origin = min(origin, l.Points[0].StartNS)
		}
		for i := range run.timeline {
			run.timeline[i].Origin = origin
		}
	}
	return run
}
