package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/report/plot"
	"github.com/traceql/traceql/trace"
)

type plotOptions struct {
	Names  string // kernel name style: full, short or family
	Read   readOptions
	Files  []string
	Labels []string
	Kind   string
	Output string
	Bins   int
	Top    int
	Weight string // time or count
	IO     *ioStreams
}

// maxTimelineBins is the most bins --kind timeline draws.
const maxTimelineBins = 2000

func newPlotCmd(ios *ioStreams, runF func(context.Context, *plotOptions) error) *cobra.Command {
	opts := &plotOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "plot FILE|DIR... -o OUT.png|OUT.svg",
		Short: "Kernel and gap histograms, utilization, top kernels, steps, ops",
		Long: `Plot draws one picture of one or more runs (PNG or SVG by the output's
extension):

  --kind kernels   kernel-duration histogram on a log axis, runs overlaid; over
                   ` + strconv.Itoa(plot.MaxOverlaid) + ` runs (or GPUs), one panel per run on shared axes
  --kind gaps      idle-gap length histogram, drawn the same way
  --kind timeline  GPU utilization over time in --bins bins (at most ` + strconv.Itoa(maxTimelineBins) + `, two a
                   pixel of the plot's width), one line per run and device
  --kind top       the --top kernels by total time as horizontal bars, of one
                   run (its first GPU, named in the title, when it has several)
  --kind steps     step time per ProfilerStep#N, one line per run and device,
                   the warm-up steps (over twice the median, which --steady
                   leaves out) drawn as rings: warm-up against the steady state
  --kind breakdown each step's time as a stacked bar of busy classes (compute,
                   comm, copies by direction, memsets) and idle; of several
                   runs, one bar per run: its median step
  --kind ops       the --top host ops (cpu_ops) by self time (less the ops
                   nested inside, so that aten::linear does not count its
                   aten::addmm again) as horizontal bars, one per run: eager
                   against compiled; an op a run did not call is "none"

Runs without GPU activity (CPU, Apple MPS) have host steps and ops only:
plot them with --kind steps or ops.

The histograms weigh each bin by time (--weight time: the kernel or idle time
of its kernels or gaps, so that where the time goes shows) or count them
(--weight count). A timeline of runs whose lengths differ over 2× is drawn
on each run's share of its span, so that all show whole.` + windowHelp,
		Example: `  traceql plot default.json reduce.json --kind kernels -o kernels.png
  traceql plot run.json --kind timeline --bins 200 -o util.svg`,
		Args: minArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Kind == "ops" {
				opts.Read.needs = trace.Needs{Ops: true} // the cpu_ops, which a lean read leaves out
			}
			if opts.Kind == "top" && len(args) > 1 {
				return usageError{fmt.Errorf("--kind top draws one run's kernels; for %d runs, plot each, or compare them with diff", len(args))}
			}
			if err := cmp.Or(positive("top", opts.Top), positive("bins", opts.Bins)); err != nil {
				return err
			}
			// More bins than pixels draw nothing more, and rasterizing a
			// line of many thousand points is slow.
			if opts.Bins > maxTimelineBins {
				return usageError{fmt.Errorf("--bins %d: at most %d, two a pixel of the plot's width; for detail, plot a --window of the run", opts.Bins, maxTimelineBins)}
			}
			if opts.Output == "" {
				return usageError{fmt.Errorf("plot needs -o OUT.png or OUT.svg")}
			}
			if !anyDir(args) { // a DIR's labels are checked against its traces
				if err := checkLabels(opts.Labels, args); err != nil {
					return err
				}
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPlot(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	enumFlag(cmd, &opts.Kind, "kind", "k", "kernels", []string{"kernels", "gaps", "timeline", "top", "steps", "breakdown", "ops"}, "kernels, gaps, timeline, top, steps, breakdown or ops")
	enumFlag(cmd, &opts.Weight, "weight", "", "time", []string{"time", "count"}, "histogram bins by time or count")
	f.StringVarP(&opts.Output, "output", "o", "", "output file, .png or .svg")
	addLabelFlag(f, &opts.Labels, false)
	f.IntVar(&opts.Bins, "bins", 100, "time bins of --kind timeline")
	f.IntVar(&opts.Top, "top", 15, "kernels drawn by --kind top, ops by --kind ops")
	namesFlag(cmd, &opts.Names)
	opts.Read.addFlags(f)
	return cmd
}

func runPlot(ctx context.Context, opts *plotOptions) error {
	if err := checkOutput(opts.Output, opts.Files); err != nil {
		return err
	}
	in := &runInputs{Files: opts.Files, Labels: opts.Labels}
	if anyDir(opts.Files) {
		var err error
		if in, err = expandRuns(opts.Files, opts.Labels, opts.IO); err != nil {
			return err
		}
		if opts.Kind == "top" && len(in.Files) > 1 {
			return usageError{fmt.Errorf("--kind top draws one run's kernels; %s holds %d traces: plot each, or compare them with diff", strings.Join(opts.Files, ", "), len(in.Files))}
		}
	}
	defer opts.Read.startProgress(in.Files)()
	var series []plot.Series
	var lines []plot.Line
	var top []metrics.KernelStat
	var topLabel string
	var steps []plot.StepRun
	var breakdown []breakdownRun
	var hostSums []metrics.Summary // --kind ops
	if len(in.Labels) == 0 {
		in.Labels = runLabels(in.Files)
	}
	var kept []int
	for k, f := range in.Files {
		t, err := openTrace(ctx, f, &opts.Read)
		if err := in.keep(k, err, opts.IO, &kept); err != nil || t == nil {
			if err != nil {
				return err
			}
			continue
		}
		i := len(kept) - 1 // the run's index among those drawn
		opts.Read.noteWarmup(f, t)
		label := in.label(k, kept)
		devs := metrics.ActiveDevices(t)
		if opts.Kind == "ops" {
			hostSums = append(hostSums, metrics.Summarize(t, metrics.Options{Host: true}))
			continue
		}
		if len(devs) == 0 {
			if opts.Kind != "steps" {
				return fmt.Errorf("%s: no GPU activity to plot; of a run without it, plot --kind steps or ops", f)
			}
			s := metrics.Summarize(t, metrics.Options{})
			steps = append(steps, plot.HostSteps(label+", host", &s))
			continue
		}
		runLines := len(lines)
		for dev, v := range metrics.DeviceViews(t) {
			l := label
			if len(devs) > 1 {
				l = fmt.Sprintf("%s GPU %d", label, dev)
			}
			switch opts.Kind {
			case "kernels":
				series = append(series, plot.Series{Label: l, Values: metrics.KernelDurations(v, dev)})
			case "gaps":
				var lens []int64
				for _, g := range metrics.IdleGaps(v, dev) {
					lens = append(lens, g.Len())
				}
				series = append(series, plot.Series{Label: l, Values: lens})
			case "timeline":
				lines = append(lines, plot.Line{Label: l, Points: metrics.Timeline(v, dev, opts.Bins), Run: i})
			case "top":
				if top == nil {
					top = metrics.KernelStats(v, dev, nil)
					top, topLabel = top[:min(len(top), opts.Top)], l
					names := make([]string, len(top))
					for i := range top {
						names[i] = top[i].Name
					}
					for i, n := range report.StyleNames(names, opts.Names) {
						top[i].Name = n
					}
				}
			case "breakdown":
				breakdown = append(breakdown, newBreakdownRun(l, v, dev))
			case "steps":
				st := metrics.StepStats(v, dev)
				steps = append(steps, plot.StepRun{Label: l, Steps: st, Warmup: metrics.WarmupSteps(st)})
			}
		}
		// One time origin for the run's devices: its first GPU activity.
		if run := lines[runLines:]; len(run) > 0 {
			origin := run[0].Points[0].StartNS
			for _, l := range run {
				origin = min(origin, l.Points[0].StartNS)
			}
			for i := range run {
				run[i].Origin = origin
			}
		}
	}
	if err := in.only(kept); err != nil {
		return err
	}
	labels := in.Labels
	if len(labels) == 0 {
		return fmt.Errorf("%s: no trace to plot", strings.Join(opts.Files, ", "))
	}
	return writePlotFile(ctx, opts.Output, func(w io.Writer, format string) error {
		switch opts.Kind {
		case "kernels":
			title := map[string]string{"time": "kernel time by kernel duration", "count": "kernels by duration"}[opts.Weight]
			return plot.KernelHist(w, format, series, title, opts.Weight == "time")
		case "gaps":
			title := map[string]string{"time": "idle time by gap length", "count": "idle gaps by length"}[opts.Weight]
			return plot.GapHist(w, format, series, title, opts.Weight == "time")
		case "timeline":
			return plot.Timeline(w, format, lines, "GPU utilization over time")
		case "steps":
			return plot.Steps(w, format, steps, "step time per step")
		case "breakdown":
			bars, axis, title := breakdownBars(breakdown)
			return plot.Breakdown(w, format, bars, axis, title)
		case "ops":
			err := plot.Ops(w, format, labels, hostSums, opts.Top, "host ops by self time")
			if err != nil {
				return fmt.Errorf("%w in %s", err, strings.Join(in.Files, ", "))
			}
			return nil
		}
		return plot.TopKernels(w, format, top, "top kernels by total time: "+topLabel)
	})
}
