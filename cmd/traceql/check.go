package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

type checkOptions struct {
	Read   readOptions
	Args   []string
	Format string
	FailOn string // a metrics severity name
	Rules  bool   // print the rules and exit
	// CompileLog is --compile-log: the recompile and graph-break
	// findings count what the TORCH_TRACE log records.
	CompileLog string
	IO         *ioStreams
}

func newCheckCmd(ios *ioStreams, runF func(context.Context, *checkOptions) error) *cobra.Command {
	opts := &checkOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "The findings alone, exit 1 at --fail-on: for CI",
		Long: `Check prints the findings of each trace and GPU: the patterns the rules
find (pageable copies, host syncs, fp32 GEMMs, slow launches, …), each with
its count, the time it took (measured) and, where the numbers bound it, the
most its fix can save. It exits 1 when a finding of --fail-on's severity or
above is present, so a CI job fails on a regression.

Severity follows from the time a finding took as a share of the GPU's
span: info under 1 %, low 1–5 %, warn 5–20 %, high 20 % or more; the
trust checks (lost-activity, clock-skew) are warn. --rules lists every
rule with its threshold and where its definition comes from.` + windowHelp,
		Example: `  traceql check run.pt.trace.json.gz
  traceql check runs/ --fail-on warn
  traceql check --rules`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if !opts.Rules && len(args) == 0 {
				return usageError{fmt.Errorf("check needs at least 1 FILE or DIR, or --rules; see traceql check --help")}
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCheck(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	formatFlag(cmd, &opts.Format, "text", []string{"text", "markdown"}, "output format: text or markdown (export --table findings writes CSV, JSON or Parquet)")
	enumFlag(cmd, &opts.FailOn, "fail-on", "", "high", metrics.SeverityNames(), "exit 1 when a finding of this severity or above is present: "+strings.Join(metrics.SeverityNames(), ", "))
	addCompileLogFlag(f, &opts.CompileLog)
	f.BoolVar(&opts.Rules, "rules", false, "print every rule: what it finds, its threshold, what savings_ns bounds, where it comes from")
	opts.Read.addFlags(f)
	opts.Read.addJobsFlag(f)
	return cmd
}

func runCheck(ctx context.Context, opts *checkOptions) error {
	if opts.Rules {
		_, err := io.WriteString(opts.IO.Out, report.RulesHelp())
		return err
	}
	files, missing, err := inputFiles(opts.Args, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	logs, err := openCompileLogs(opts.CompileLog)
	if err != nil {
		return err
	}
	so := &summarizeOptions{Read: opts.Read, Args: opts.Args, IO: opts.IO}
	done := opts.Read.startProgress(files)
	// Findings only: no verdict sentence, so no --graphs projection.
	sums, failed := summarizeFiles(ctx, files, fileLabels(opts.Args, nil, files), so, metrics.Options{Workers: cores(), NoProjection: true}, logs)
	failed += missing
	done()
	if err := ctx.Err(); err != nil {
		return err
	}
	tables := report.FindingsTables(sums)
	fail, _ := metrics.ParseSeverity(opts.FailOn)
	n := 0
	seen := map[string]bool{}
	var fixes []string
	for _, s := range sums {
		for _, d := range s.Devices {
			for _, f := range d.Findings {
				if f.Severity >= fail {
					n++
				}
				// One line a rule and fix: fp32-gemm's depends on the GPU.
				if fix := f.Rule + ": " + f.Fix; !seen[fix] {
					seen[fix] = true
					fixes = append(fixes, fix)
				}
			}
		}
	}
	fixTable := &report.Table{Title: "what to change"}
	fixTable.Notes = fixes
	if len(fixes) > 0 {
		tables = append(tables, fixTable)
	}
	if err := report.Write(opts.IO.Out, tableOutput(opts.IO, opts.Format, report.CSVOptions{}, ""), tables...); err != nil {
		return err
	}
	if failed > 0 {
		return errReported{failed}
	}
	if n > 0 {
		return fmt.Errorf("%s at or above %s", metrics.Plural(n, "findings"), opts.FailOn)
	}
	return nil
}
