package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/report/parquet"
	"github.com/traceql/traceql/trace"
)

type exportOptions struct {
	Read   readOptions
	Args   []string
	Table  string
	Format string
	CSV    report.CSVOptions // --csv-safe
	Output string
	Schema bool // print the table's schema, read nothing
	// PerStream: the gaps table has each stream's gaps instead of each
	// device's.
	PerStream bool
	Labels    []string
	Capture   []string // --capture: the trace of the graphs' capture
	// CompileLog is --compile-log, for --table findings: recompile and
	// graph-break count what the TORCH_TRACE log records.
	CompileLog string
	Shard      shard
	Peak       peakFlags
	IO         *ioStreams
}

func newExportCmd(ios *ioStreams, runF func(context.Context, *exportOptions) error) *cobra.Command {
	opts := &exportOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "export FILE|DIR...",
		Short: "Tidy CSV, JSON or Parquet tables, for pandas and DuckDB",
		Long: `Export writes one table for all the given traces: a header row, one row per
event or group, the file and device on every row, times in integer ns.

Tables:
  summary       one row per (file, device): the columns of summarize --format
                csv
  kernels       one row per kernel: stream, name, start/end/dur, correlation,
                grid, block, …, and the op and region that launched it (see ops
                and regions; empty for none)
  kernel-stats  one row per (file, device, kernel name): count, total, mean,
                min, max, share, family, median (the mean of the two middle
                values for an even count) and stddev (sample, n − 1; 0 for one
                instance), as nsys stats' cuda_gpu_kern_sum
  steps         one row per (file, device, ProfilerStep#N): the step's window,
                its kernels, busy, idle and GPU utilization, and where the
                window comes from (gpu, projected or cpu; see summarize --help)
  gaps          one row per idle gap between merged busy intervals: start, end,
                dur, its time by cause (sync_ns + launch_ns + other_ns = dur_ns;
                see summarize --help) and class, the cause holding most of it;
                --per-stream: the gaps of each stream alone, classified by the
                same rules, with their stream
  memcpy        one row per copy: kind, src/dst memory, bytes, start/end/dur,
                GB/s
  host          one row per trace without GPU activity (CPU, MPS runs): the host
                columns of summarize --help (span, steps, time in and outside
                ops, torch.compile)
  host-ops      one row per (file, op name) of those traces: count, total_ns,
                self_ns
  streams       one row per (file, device, stream): kernels, copies, span, busy
                (the union of the stream's activity), idle, utilization
  api           one row per (file, host API call name): count, total, mean,
                median, min, max, stddev, share (nsys stats' cuda_api_sum)
  ranges        one row per (file, record_function or NVTX range name): the same
                (nvtx_sum)
  ops           one row per (file, device, host op): the GPU work launched from
                inside it (the innermost cpu_op open on the launching thread;
                graph replays are the graph launch's, or with --capture the
                capturing op's): calls, kernels, gpu_ns, cpu_ns, share;
                "(none)" for the rest
  regions       the same by the innermost record_function annotation or NVTX
                range
  copy-stats    one row per (file, device, copy kind and memory kinds; memsets
                as kind memset): count, bytes, min/median/max bytes of one,
                time, GB/s (nsys stats' cuda_gpu_mem_size_sum and
                cuda_gpu_mem_time_sum)

--format json writes one JSON document, {"version": 1, "table": NAME, "rows":
[...]}, as summarize, diff and compare do; --format jsonl one row object a
line. A missing value (a bandwidth of a copy of no time, an id the trace does
not give) is empty in CSV and null in JSON and Parquet. --schema prints the
table's columns, types, units and definitions as JSON (docs/schema.md has
every table's).

Load it in pandas with pd.read_csv("out.csv"), pd.read_json("out.jsonl",
lines=True) for --format jsonl, or pd.read_parquet("out.parquet") for --format
parquet (zstd; DuckDB, Spark and Polars read it too: SELECT * FROM
'out.parquet'). Every worker's --shard part has the same columns: out/*.parquet
reads as one table.` + windowHelp + shardHelp + captureHelp,
		Example: `  traceql export run.json --table kernels -o kernels.csv
  traceql export runs/ --table gaps --format jsonl > gaps.jsonl
  traceql export --schema --table kernels
  traceql export runs/ --shard 3/64 --table summary -f parquet \
    -o out/part-3.parquet`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Schema {
				if len(args) > 0 {
					return usageError{fmt.Errorf("--schema prints a table's columns and reads no trace; drop %s", args[0])}
				}
				return nil
			}
			return minArgs(1, "FILE or DIR")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if opts.PerStream && opts.Table != "gaps" {
				return usageError{fmt.Errorf("--per-stream is for --table gaps; the streams table has each stream's busy and idle time")}
			}
			if opts.Schema {
				s, _ := report.SchemaOf(opts.Table)
				return report.WriteSchemaJSON(opts.IO.Out, s)
			}
			if opts.Output == stdout {
				opts.Output = ""
			}
			if err := formatFromName(opts); err != nil {
				return err
			}
			if err := checkLabels(opts.Labels, args); err != nil {
				return err
			}
			if opts.Format == "parquet" && opts.Output == "" {
				if err := binaryToTerminal(opts.IO, "--format parquet"); err != nil {
					return err
				}
			}
			if opts.CompileLog != "" && opts.Table != "findings" {
				return usageError{fmt.Errorf("--compile-log gives the recompile and graph-break findings: it is for --table findings, not %s", opts.Table)}
			}
			if err := opts.Peak.check(); err != nil {
				return err
			}
			if err := checkCapture(opts.Capture, 1, opts.Table == "kernels" || opts.Table == "ops" || opts.Table == "regions",
				"--table kernels, ops or regions"); err != nil {
				return err
			}
			switch opts.Table {
			case "ops":
				opts.Read.needs = shapeNeeds(true) // every cpu_op, with the shapes of FLOPs; polls too, as before
			case "regions":
				opts.Read.needs = trace.Needs{Ops: true, Polls: true} // every cpu_op; polls too, as before
			case "kernels":
				opts.Read.needs = shapeNeeds(false) // the cpu_ops of the op and region columns, the shapes of FLOPs
			case "steps":
				opts.Read.needs = shapeNeeds(false) // the FLOPs and MFU of each step
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runExport(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	enumFlag(cmd, &opts.Table, "table", "t", "summary", report.ExportTables(), "table: "+strings.Join(report.ExportTables(), ", "))
	csvSafeFlag(cmd.Flags(), &opts.CSV)
	formatFlag(cmd, &opts.Format, "", []string{"csv", "json", "jsonl", "parquet"}, "csv, json (one document), jsonl (JSON lines) or parquet (default: by -o's extension, .csv, .json, .jsonl or .parquet, else csv)")
	f.BoolVar(&opts.PerStream, "per-stream", false, "with --table gaps: the idle gaps of each stream alone (HTA's per-stream idle time), a stream column on each")
	f.BoolVar(&opts.Schema, "schema", false, "print the --table's columns (name, type, unit, nullable, definition) as JSON, and read no trace")
	f.StringVarP(&opts.Output, "output", "o", "", "file to write (a file is replaced atomically, a device or pipe written in place); stdout when absent or -")
	addLabelFlag(f, &opts.Labels, true)
	addCaptureFlag(f, &opts.Capture, 1)
	addCompileLogFlag(f, &opts.CompileLog)
	opts.Read.addFlags(f)
	opts.Peak.add(f)
	opts.Read.addJobsFlag(f)
	addShardFlag(f, &opts.Shard)
	return cmd
}

// newRowWriter starts a stream of a table's rows in format. Parquet's
// writer is report/parquet's, which report leaves out so that its
// importers do not link parquet-go.
func newRowWriter(w io.Writer, format, table string, cols []report.Column) (*report.RowWriter, error) {
	if format == "parquet" {
		return parquet.NewRowWriter(w, cols), nil
	}
	return report.NewRowWriter(w, format, table, cols)
}

// exportExts are the -o extensions that say the format of export.
var exportExts = map[string]string{".csv": "csv", ".json": "json", ".jsonl": "jsonl", ".parquet": "parquet"}

// spreadsheetExts are names export cannot write: a spreadsheet's own
// formats. Other names (.txt) get CSV, as they always did.
var spreadsheetExts = map[string]bool{".xlsx": true, ".xls": true, ".xlsm": true, ".ods": true, ".numbers": true}

// formatFromName takes the format from the -o file's extension, as plot
// does: "-o out.parquet" wrote CSV that pandas then failed to read. A
// --format given too must agree with it.
func formatFromName(opts *exportOptions) error {
	ext := strings.ToLower(filepath.Ext(opts.Output))
	f, ok := exportExts[ext]
	switch {
	case !ok && spreadsheetExts[ext] && opts.Format == "":
		// "-o x.xlsx" wrote CSV that a spreadsheet then refused to open.
		return usageError{fmt.Errorf("-o %s: export writes .csv, .json, .jsonl or .parquet, not %s; name the file .csv (spreadsheets open it), or give --format", opts.Output, ext)}
	case !ok:
		opts.Format = cmp.Or(opts.Format, "csv")
	case opts.Format == "":
		opts.Format = f
	case f != opts.Format:
		return usageError{fmt.Errorf("-o %s is %s, but --format is %s; drop --format or change the extension", opts.Output, f, opts.Format)}
	}
	return nil
}

func runExport(ctx context.Context, opts *exportOptions) error {
	files, missing, err := inputFiles(opts.Args, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	// Labels from every file, before a shard's are picked: each
	// worker's rows label a file as the others' do.
	labels := fileLabels(opts.Args, opts.Labels, files)
	if opts.Output != "" {
		// Every file, not the shard's alone: -o must not replace a
		// trace another worker is to read.
		if err := checkOutput(opts.Output, files); err != nil {
			return err
		}
	}
	files = opts.Shard.pick(opts.Args, files)
	caps, err := readCaptures(ctx, opts.Capture, &opts.Read, false)
	if err != nil {
		return err
	}
	var capture *metrics.Capture
	if len(caps) > 0 {
		capture = caps[0]
	}
	logs, err := openCompileLogs(opts.CompileLog)
	if err != nil {
		return err
	}
	defer opts.Read.startProgress(files)()
	failed := missing
	write := func(w io.Writer) error {
		// The table starts with the first trace read: when every input
		// fails, nothing is written and an -o file stays as it was.
		var rw *report.RowWriter
		start := func() (err error) {
			if rw == nil {
				cols, _ := report.ExportColumns(opts.Table)
				rw, err = newRowWriter(w, opts.Format, opts.Table, cols)
				if rw != nil {
					rw.SetCSV(opts.CSV)
				}
			}
			return err
		}
		keep := func(t *trace.Trace) *trace.Trace { return t }
		named := namedFiles(opts.Args)
		err := readEach(ctx, files, &opts.Read, keep, func(f string, t *trace.Trace, err error) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				// As summarize does: one bad rank does not hide the others.
				if !skipNotTrace(opts.IO.ErrOut, f, err, named) {
					complain(opts.IO.ErrOut, errorMessage(err))
					failed++
				}
				return nil
			}
			opts.Read.warn(f, t.Warnings)
			opts.Read.noteWarmup(f, t)
			host := opts.Table == "host" || opts.Table == "host-ops"
			switch active := len(metrics.ActiveDevices(t)) > 0; {
			case !active && !host:
				complain(opts.IO.ErrOut, noRows(f))
			case active && host:
				complain(opts.IO.ErrOut, f+": GPU activity; the "+opts.Table+" table has rows for traces without (CPU, MPS runs); no row written")
			}
			in, named := exportInput(opts.Table, opts.PerStream, opts.Peak.PeakOverride, t, capture)
			if logs != nil && in.Summary != nil {
				if err := logs.join(in.Summary, t, 0); err != nil {
					complain(opts.IO.ErrOut, f+": "+errorMessage(err))
					failed++
					return nil
				}
			}
			if named != nil {
				opts.Read.warn(f, named.Warnings())
				complain(opts.IO.ErrOut, f+": "+report.CaptureNote(named))
			}
			in.Label = labels[f]
			if err := start(); err != nil {
				return err
			}
			return report.Export(rw, opts.Table, &in)
		})
		if err != nil {
			return err
		}
		if rw == nil && failed > 0 {
			return errNothingRead
		}
		// Every file skipped as not a trace: an empty table.
		if err := start(); err != nil {
			return err
		}
		return rw.Flush()
	}
	if opts.Output == "" {
		err = write(opts.IO.Out)
	} else {
		err = outfile.Write(ctx, opts.Output, write)
	}
	if (err == nil || errors.Is(err, errNothingRead)) && failed > 0 {
		return errReported{failed}
	}
	return err
}

// errNothingRead ends an export's write when no input could be read, so
// that no output replaces what an -o file held.
var errNothingRead = errors.New("no trace read")

// exportInput computes what the table's rows are made of, and nothing
// else: a table of kernels by name needs no idle-gap classes. With a
// capture, the kernels and ops tables name graph-replayed kernels by the
// ops that captured them, and the match's stats are returned. peak
// overrides the peaks of the ops' and kernels' roofline columns.
func exportInput(table string, perStream bool, peak metrics.PeakOverride, t *trace.Trace, c *metrics.Capture) (report.ExportInput, *metrics.CaptureStats) {
	in := report.ExportInput{Trace: t}
	var named *metrics.CaptureMatch
	if c != nil && (table == "kernels" || table == "ops" || table == "regions") {
		named = c.Match(t)
	}
	summary := func() {
		// No verdict sentence in a table; the steps' FLOPs from the ops.
		s := metrics.Summarize(t, metrics.Options{Workers: cores(), NoProjection: true, Scopes: table == "steps", Flops: table == "steps", Peak: peak})
		in.Summary = &s
	}
	switch table {
	case "summary", "steps", "findings": // the summary has each device's steps and findings, found once for all devices
		summary()
	case "host", "host-ops":
		// Host-only traces (CPU, MPS): a GPU trace's summary has no host
		// side, and its lean read no ops.
		if !t.HasGPUActivity() {
			summary()
		}
	case "kernels":
		in.KernelOps, in.KernelRegions, in.KernelWork = metrics.KernelScopesWork(t, named, peak)
	case "gaps":
		if perStream {
			in.Gaps = metrics.ClassifyStreamGaps(t)
		} else {
			in.Gaps = metrics.ClassifyGaps(t)
		}
	case "kernel-stats":
		in.Devices = metrics.PerDevice(t, metrics.TablesOptions{KernelDists: true})
	case "streams":
		in.Devices = metrics.PerDevice(t, metrics.TablesOptions{Streams: true})
	case "copy-stats":
		in.Devices = metrics.PerDevice(t, metrics.TablesOptions{Copies: true})
	case "ops", "regions":
		in.Devices = metrics.PerDevice(t, metrics.TablesOptions{Scopes: true, Capture: named, Peak: peak})
	case "api":
		in.Names = metrics.APIStats(t)
	case "ranges":
		in.Names = metrics.RangeStats(t)
	}
	if named == nil {
		return in, nil
	}
	return in, &named.Stats
}
