package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

type summarizeOptions struct {
	Names    string // kernel name style: full, short or family
	Read     readOptions
	Args     []string
	Format   string
	CSV      report.CSVOptions // --csv-safe
	Top      int
	TopSet   bool // --top given: it cuts --by kernel, op and region too
	Overview bool
	All      bool     // every metric, copies, steps and gaps after the headline
	By       []string // drill-down tables: kernel, stream, api, range
	Labels   []string // --label, one per argument
	Capture  []string // --capture: the trace of the graphs' capture
	Shard    shard
	Peak     peakFlags
	// CompileLog is --compile-log: a TORCH_TRACE log, or a directory of
	// them, to join to each trace.
	CompileLog string
	IO         *ioStreams
}

func newSummarizeCmd(ios *ioStreams, runF func(context.Context, *summarizeOptions) error) *cobra.Command {
	opts := &summarizeOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "summarize FILE|DIR...",
		Short: "Per GPU: kernels, idle time and why, utilization, copies",
		Long: `Summarize prints, for each GPU in each trace, how many kernels ran and how
long they took, how long the GPU sat idle between activity and in how many
gaps, its utilization, and host<->device copy volume and bandwidth.

A DIR argument is searched recursively for *.json, *.json.gz, *.gz, *.sqlite,
in natural order (rank2 before rank10). With several traces, the text ends
with an overview, one row per trace and GPU with its rank (distributedInfo):
the slow or starved rank of a job stands out, with min, median and max rows,
the lowest utilization named, and the least communication (NCCL) time when
it is under half the median: ranks wait for a straggler inside collectives.
--overview prints that table alone, for jobs of many ranks.
Files are read --jobs at a time, one per CPU by default, and fewer when
their tables would take more than half the memory available (or
GOMEMLIMIT): each holds them until summarized, estimated at half a Kineto
trace's uncompressed size and three times an Nsight export's. A file whose
tables alone would pass that is read alone.
With --format csv there is one row per (file, device), times in integer ns,
ready for pandas.read_csv: file, rank and world_size (distributedInfo;
empty when unknown), device, then the metrics; --format json has the same
names.
FILEs that are traceql's own Parquet of export --table summary are read
back: the text is their overview, --format csv their rows.` + compileLogHelp + windowHelp + shardHelp + "\n" + captureHelp + "\n" + report.MetricsHelp() + report.CompileLogHelp(),
		Example: `  traceql summarize run.pt.trace.json.gz
  traceql summarize runs/ --format csv > summary.csv
  traceql summarize report.sqlite --format markdown
  traceql export runs/ --shard 3/64 --table summary -f parquet \
    -o out/part-3.parquet
  traceql summarize --overview out/*.parquet`,
		Args: minArgs(1, "FILE or DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if err := checkLabels(opts.Labels, args); err != nil {
				return err
			}
			if opts.Overview && opts.Format != "text" && opts.Format != "markdown" {
				return usageError{fmt.Errorf("--overview is a text or markdown table; --format %s has a row per trace and GPU already", opts.Format)}
			}
			if opts.CompileLog != "" && opts.Format != "text" && opts.Format != "markdown" {
				return usageError{fmt.Errorf("--compile-log adds text tables: give --format text or markdown")}
			}
			if err := positive("top", opts.Top); err != nil {
				return err
			}
			opts.TopSet = cmd.Flags().Changed("top")
			if err := opts.Peak.check(); err != nil {
				return err
			}
			if err := checkCapture(opts.Capture, 1, slices.Contains(opts.By, "op") || slices.Contains(opts.By, "region"), "--by op or --by region"); err != nil {
				return err
			}
			switch {
			case slices.Contains(opts.By, "op"):
				opts.Read.needs = shapeNeeds(true) // every cpu_op, with the shapes of FLOPs; polls too, as before
			case slices.Contains(opts.By, "region"):
				opts.Read.needs = trace.Needs{Ops: true, Polls: true} // every cpu_op; polls too, as before
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSummarize(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	formatFlag(cmd, &opts.Format, "text", tableFormats, "output format: text, csv, json or markdown")
	csvSafeFlag(cmd.Flags(), &opts.CSV)
	f.IntVar(&opts.Top, "top", 10, "kernels (and host ops) listed per device; given, rows of --by kernel, op and region too")
	f.BoolVar(&opts.Overview, "overview", false, "print only the overview of several traces, not each trace's tables")
	enumSliceFlag(cmd, &opts.By, "by", []string{"kernel", "stream", "api", "range", "op", "region"}, "drill down, comma-separated: kernel (every kernel name with nsys stats' columns: instances, total, mean, median, min, max, stddev), stream (each stream's kernels, busy, idle, utilization), api (host API calls by name), range (record_function and NVTX ranges by name), op and region (GPU time by the innermost cpu_op, and record_function or NVTX range, enclosing each launch)")
	f.BoolVar(&opts.All, "all", false, "text: after the headline and top kernels, every metric, copies by kind, steps and idle gaps")
	f.StringVar(&opts.CompileLog, "compile-log", "", "`LOG`: a TORCH_TRACE compile log, or a folder of them, joined to the compiled frames")
	namesFlag(cmd, &opts.Names)
	addLabelFlag(f, &opts.Labels, true)
	addCaptureFlag(f, &opts.Capture, 1)
	opts.Read.addFlags(f)
	opts.Read.addJobsFlag(f)
	addShardFlag(f, &opts.Shard)
	opts.Peak.add(f)
	return cmd
}

func runSummarize(ctx context.Context, opts *summarizeOptions) error {
	files, missing, err := inputFiles(opts.Args, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	// Labels from every file, before a shard's are picked: each
	// worker's rows label a file as the others' do.
	labels := fileLabels(opts.Args, opts.Labels, files)
	files = opts.Shard.pick(opts.Args, files)
	if rec, ok, bad, err := readSummaryParts(files, opts.IO.ErrOut, opts.Read.budget()); ok || err != nil {
		if err != nil {
			return err
		}
		missing += bad
		if opts.Read.active() {
			return usageError{fmt.Errorf("the Parquet parts were measured when exported: give --steps, --window, --range or --steady to export")}
		}
		if err := writeMerged(opts, rec); err != nil && (missing == 0 || len(rec.Rows) > 0) {
			return err
		}
		if missing > 0 { // a part missing or unread: the overview lacks its rows
			return errReported{missing}
		}
		return nil
	}
	caps, err := readCaptures(ctx, opts.Capture, &opts.Read, false)
	if err != nil {
		return err
	}
	mo := metrics.Options{TopN: opts.Top, KernelDists: slices.Contains(opts.By, "kernel"),
		StreamStats: slices.Contains(opts.By, "stream"), APIStats: slices.Contains(opts.By, "api"), RangeStats: slices.Contains(opts.By, "range"),
		Scopes: slices.Contains(opts.By, "op") || slices.Contains(opts.By, "region"), Flops: slices.Contains(opts.By, "op"), Peak: opts.Peak.PeakOverride, Workers: cores(),
		NoProjection: opts.Format == "csv" || opts.Format == "json"} // rows without the verdict's sentence
	if len(caps) > 0 {
		mo.Capture = caps[0]
	}
	logs, err := openCompileLogs(opts.CompileLog)
	if err != nil {
		return err
	}
	done := opts.Read.startProgress(files)
	sums, failed := summarizeFiles(ctx, files, labels, opts, mo, logs)
	failed += missing
	done()
	if err := ctx.Err(); err != nil { // interrupted: no partial report
		return err
	}
	if err := writeSummaries(opts, sums); err != nil {
		return err
	}
	if failed > 0 {
		return errReported{failed}
	}
	return nil
}

// summarizeFiles reads and summarizes the files, several at a time, and
// returns the summaries in argument order. A file that fails is reported
// on stderr, in order, and skipped, so one bad rank does not hide the others.
func summarizeFiles(ctx context.Context, files []string, labels map[string]string, opts *summarizeOptions, mo metrics.Options, logs *compileLogs) ([]metrics.Summary, int) {
	var sums []metrics.Summary
	failed := 0
	// A summary, and the error of the compile log it was to be joined to.
	type summarized struct {
		sum    metrics.Summary
		logErr error
	}
	summarize := func(t *trace.Trace) summarized {
		s := metrics.Summarize(t, mo)
		if logs == nil {
			return summarized{sum: s}
		}
		return summarized{sum: s, logErr: logs.join(&s, t, mo.TopN)}
	}
	named := namedFiles(opts.Args)
	_ = readEach(ctx, files, &opts.Read, summarize, func(file string, res summarized, err error) error {
		if ctx.Err() != nil {
			return ctx.Err() // interrupted: not a failure of each file
		}
		sum := res.sum
		if err == nil && res.logErr != nil {
			complain(opts.IO.ErrOut, file+": "+errorMessage(res.logErr))
			failed++
			return nil
		}
		if err != nil {
			if !skipNotTrace(opts.IO.ErrOut, file, err, named) {
				complain(opts.IO.ErrOut, errorMessage(err))
				failed++
			}
			return nil
		}
		opts.Read.warn(sum.Source, sum.Warnings)
		sum.Label = labels[file]
		sums = append(sums, sum)
		return nil
	})
	return sums, failed
}

// noRows says that a trace without GPU activity adds no row to a table.
func noRows(path string) string {
	return path + ": no GPU activity (no kernel, memcpy or memset events); no row written"
}

func writeSummaries(opts *summarizeOptions, sums []metrics.Summary) error {
	if opts.Format == "text" || opts.Format == "markdown" {
		var tables []*report.Table
		o := report.OverviewTable(sums, opts.Overview)
		if !opts.Overview || o == nil {
			for _, s := range sums {
				l := textLayout(opts.IO, opts.All, opts.Names)
				if opts.TopSet { // --by kernel and op list every row unless --top says
					l.Top = opts.Top
				}
				tables = append(tables, report.SummaryTables(s, l)...)
			}
		}
		if o != nil {
			tables = append(tables, o) // last, where a terminal leaves it in view
		}
		return report.Write(opts.IO.Out, tableOutput(opts.IO, opts.Format, opts.CSV, ""), tables...)
	}
	if report.HostOnly(sums) { // host rows, one a file
		if opts.Format == "csv" {
			return report.WriteCSVWith(opts.IO.Out, report.HostRecords(sums), opts.CSV)
		}
		return report.WriteHostJSON(opts.IO.Out, sums)
	}
	for _, s := range sums {
		if len(s.Devices) == 0 { // not into the data
			complain(opts.IO.ErrOut, noRows(s.Source))
		}
	}
	if opts.Format == "csv" {
		return report.WriteCSVWith(opts.IO.Out, report.SummaryRecords(sums), opts.CSV)
	}
	return report.WriteSummaryJSON(opts.IO.Out, sums)
}
