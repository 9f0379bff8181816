package main

import (
	"fmt"
	"slices"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// compared is one run's summary and, with --whatif, its projections.
type compared struct {
	s metrics.Summary
	p []metrics.Projection
}

// compareEdits are the edits compare --whatif names.
func compareEdits(names []string) metrics.Edits {
	return metrics.Edits{Graphs: slices.Contains(names, "graphs"), NoSyncs: slices.Contains(names, "no-syncs"), Pinned: slices.Contains(names, "pinned")}
}

// writeCompareWhatif writes the projections' table after compare's rows
// layout (the columns layout adds it to its tables).
func writeCompareWhatif(opts *compareOptions, sums []metrics.Summary, projs [][]metrics.Projection, e metrics.Edits) error {
	if !e.Any() {
		return nil
	}
	t := report.WhatifCompareTable(opts.Labels, sums, projs, e.String())
	if t == nil {
		return nil
	}
	fmt.Fprintln(opts.IO.Out) // after the rows' table
	if opts.Format == "markdown" {
		return report.WriteMarkdown(opts.IO.Out, t)
	}
	return report.WriteTextWidth(opts.IO.Out, opts.IO.TerminalWidth(), t)
}
