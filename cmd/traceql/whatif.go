package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

type whatifOptions struct {
	Args    []string
	Graphs  bool
	NoSyncs bool
	Pinned  bool
	Kernels []string // REGEX=FACTOR, as given
	Format  string
	Read    readOptions
	IO      *ioStreams
}

func newWhatifCmd(ios *ioStreams, runF func(context.Context, *whatifOptions) error) *cobra.Command {
	opts := &whatifOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "whatif FILE|DIR... --graphs|--no-syncs|--pinned|--kernel RE=F",
		Short: "Project the step time under CUDA graphs, without syncs, …",
		Long: `Whatif projects each GPU's median step under changes to the run: it
replays every ProfilerStep#N from durations and dependencies, never from
where the trace says the result landed, makes the changes and replays
again. The replay: each host thread makes its API calls in order, the
host work recorded between them before each; a launch makes its kernels,
copies and memsets ready after a launch latency; a stream runs its work
in order; a synchronization holds its thread until the device drains (a
stream sync until its stream does, an event sync until the work before its
record is done, and a stream waits on another's event, where the trace has
the profiler's sync records), a synchronous copy or one to or from
pageable memory until its copy is done.
Several edits may be given at once:

  --graphs     what runs inside each compiled region (torch.compile), or
               in a run with none each step's launches, becomes one CUDA
               graph launch per capture, cut at blocking calls and copies
               to or from the host: its host work and launch calls go, a
               graph launch costing the constants below comes in, and its
               kernels run back to back
  --no-syncs   no call blocks its thread (a copy still runs after the
               work before it on its stream)
  --pinned     copies to or from pageable memory no longer block
  --kernel     RE=F multiplies the kernels matching RE by F (gemm=0.5)

The text shows the measured and projected median step and span, and the
critical path of the median step by class before and after: GPU compute,
copies, launch overhead, host work, sync wait. Replayed without edits,
the median step comes back as measured (its note says how close): on the
real traces traceql is tested on, within 0.001 % where every piece of
device work has its launch call in the trace. A projection is a model's,
not a measurement: docs/whatif.md publishes its errors on real runs.
` + windowHelp + "\n" + report.WhatifHelp(),
		Example: `  traceql whatif run.pt.trace.json.gz --graphs
  traceql whatif run.pt.trace.json.gz --no-syncs --pinned -f csv
  traceql whatif run.pt.trace.json.gz --kernel 'gemm|gemv=0.5'`,
		Args: minArgs(1, "FILE or DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if _, err := opts.edits(); err != nil {
				return err
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWhatif(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Graphs, "graphs", false, "capture compiled regions (or each step's launches) as CUDA graph launches")
	f.BoolVar(&opts.NoSyncs, "no-syncs", false, "let no call block the host")
	f.BoolVar(&opts.Pinned, "pinned", false, "make copies to or from pageable memory asynchronous")
	f.StringArrayVar(&opts.Kernels, "kernel", nil, "REGEX=FACTOR: scale the durations of matching kernels (repeatable)")
	formatFlag(cmd, &opts.Format, "text", []string{"text", "csv", "json"}, "output format: text, csv or json")
	// The window flags, but not --kernel and --stream: a replay of part of
	// a device's work is not the run (and --kernel here scales kernels).
	read := pflag.NewFlagSet("read", pflag.ContinueOnError)
	opts.Read.addFlags(read)
	read.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "kernel" && fl.Name != "stream" {
			f.AddFlag(fl)
		}
	})
	opts.Read.addJobsFlag(f)
	return cmd
}

// edits returns the edits the flags ask for; a usage error when none, or
// a --kernel that does not parse.
func (opts *whatifOptions) edits() (metrics.Edits, error) {
	e := metrics.Edits{Graphs: opts.Graphs, NoSyncs: opts.NoSyncs, Pinned: opts.Pinned}
	for _, k := range opts.Kernels {
		ks, err := metrics.ParseKernelScale(k)
		if err != nil {
			return e, usageError{err}
		}
		e.Kernels = append(e.Kernels, ks)
	}
	if !e.Any() {
		return e, usageError{fmt.Errorf("whatif needs an edit: --graphs, --no-syncs, --pinned or --kernel REGEX=FACTOR")}
	}
	return e, nil
}

// whatifResult is one file's projections, or why it has none.
type whatifResult struct {
	source string
	rows   []metrics.Projection
	noStep []int // devices with no step to replay
	warn   []string
}

func runWhatif(ctx context.Context, opts *whatifOptions) error {
	edits, err := opts.edits()
	if err != nil {
		return err
	}
	files, missing, err := inputFiles(opts.Args, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	project := func(t *trace.Trace) whatifResult {
		r := whatifResult{source: t.Source, warn: t.Warnings}
		r.rows, r.noStep = metrics.ReplayDevices(t, edits)
		return r
	}
	failed := missing
	named := namedFiles(opts.Args)
	var rows []report.WhatifRow
	done := opts.Read.startProgress(files)
	_ = readEach(ctx, files, &opts.Read, project, func(file string, r whatifResult, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if !skipNotTrace(opts.IO.ErrOut, file, err, named) {
				complain(opts.IO.ErrOut, errorMessage(err))
				failed++
			}
			return nil
		}
		opts.Read.warn(r.source, r.warn)
		for _, dev := range r.noStep {
			complain(opts.IO.ErrOut, fmt.Sprintf("%s: GPU %d has no ProfilerStep#N with host calls and device work to replay; no row", file, dev))
		}
		if len(r.rows) == 0 && len(r.noStep) == 0 {
			complain(opts.IO.ErrOut, noRows(file))
		}
		if len(r.rows) == 0 { // asked for a projection, and none came
			failed++
		}
		for _, p := range r.rows {
			rows = append(rows, report.WhatifRow{File: file, Label: file, Projection: p})
		}
		return nil
	})
	done()
	if err := ctx.Err(); err != nil {
		return err
	}
	if out := tableOutput(opts.IO, opts.Format, report.CSVOptions{}, "whatif"); out.Records() {
		err = report.Write(opts.IO.Out, out, report.WhatifRecords(rows))
	} else {
		err = report.Write(opts.IO.Out, out, report.WhatifTables(rows)...)
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return errReported{failed}
	}
	return nil
}
