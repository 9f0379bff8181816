package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

type reportOptions struct {
	Read   readOptions
	Files  []string
	Labels []string
	Output string
	Err    io.Writer
}

func newReportCmd(runF func(context.Context, *reportOptions) error) *cobra.Command {
	opts := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report FILE... -o report.html",
		Short: "One self-contained HTML page of one run or several: headlines, verdicts, comparison, plots",
		Long: `Report writes one HTML file to send: for several runs the comparison table
with ratios to the first and its plot; for each run and device the headline,
the verdict and the top kernels (click a column's header to sort); the step
times with warm-up marked and the idle time by gap length, as SVG. The page
fetches nothing (no script, font or style from the network), reads without
JavaScript, prints, and follows the reader's light or dark setting. Labels
default to the file names.` + windowHelp,
		Example: `  traceql report eager.json.gz compiled.json.gz --label eager,compiled --steady -o modes.html`,
		Args:    minArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files, opts.Err = args, cmd.ErrOrStderr()
			if len(opts.Labels) == 0 {
				opts.Labels = runLabels(args)
			}
			if len(opts.Labels) != len(args) {
				return usageError{fmt.Errorf("--label has %d labels for %d files", len(opts.Labels), len(args))}
			}
			if opts.Output == "" || !strings.HasSuffix(strings.ToLower(opts.Output), ".html") {
				return usageError{fmt.Errorf("report needs -o FILE.html")}
			}
			if err := opts.Read.prepare(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runReport(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.Labels, "label", nil, "comma-separated run labels, one per file")
	f.StringVarP(&opts.Output, "output", "o", "", "the HTML file to write")
	opts.Read.addFlags(f)
	opts.Read.addJobsFlag(f)
	return cmd
}

func runReport(ctx context.Context, opts *reportOptions) error {
	if err := checkOutput(opts.Output, opts.Files); err != nil {
		return err
	}
	done := opts.Read.startProgress(opts.Files)
	var runs []report.HTMLRun
	summarize := func(t *trace.Trace) report.HTMLRun {
		r := report.HTMLRun{Summary: metrics.Summarize(t, metrics.Options{})}
		for dev, v := range metrics.DeviceViews(t) { // the first GPU's gaps
			for _, g := range metrics.IdleGaps(v, dev) {
				r.Gaps = append(r.Gaps, g.Len())
			}
			break
		}
		return r
	}
	err := readEach(ctx, opts.Files, &opts.Read, summarize, func(file string, r report.HTMLRun, err error) error {
		if err != nil {
			return err
		}
		opts.Read.warn(file, r.Summary.Warnings)
		r.Label = opts.Labels[len(runs)]
		runs = append(runs, r)
		return nil
	})
	done()
	if err != nil {
		return err
	}
	return writeOutput(opts.Output, func(w io.Writer) error {
		return report.WriteHTML(w, report.HTMLTitle(opts.Labels), runs)
	})
}
