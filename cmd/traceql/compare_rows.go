package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// checkParts checks --parts and --group-by before any run is read.
func checkParts(opts *compareOptions) error {
	if opts.Layout == "columns" && opts.Parts != nil {
		return usageError{fmt.Errorf("--parts names the leading columns of --layout rows")}
	}
	if opts.GroupBy != nil && opts.Parts == nil {
		return usageError{fmt.Errorf("--group-by names parts of the labels: name them with --parts")}
	}
	for i, p := range opts.Parts {
		if p == "" || slices.Contains(opts.Parts[:i], p) {
			return usageError{fmt.Errorf("--parts %s: each part once, named", strings.Join(opts.Parts, ","))}
		}
	}
	for _, g := range opts.GroupBy {
		if !slices.Contains(opts.Parts, g) {
			return usageError{fmt.Errorf("--group-by %s: not one of --parts %s", g, strings.Join(opts.Parts, ","))}
		}
	}
	return nil
}

// keepParts leaves out, with a note, the runs whose label has another
// number of "_" parts than --parts names (a folder's vit-small_eager_b1
// beside vit-small_eager_b1_stack), before they are read. Labels given
// with --label must all have them.
func keepParts(in *runInputs, opts *compareOptions) error {
	if opts.Parts == nil {
		return nil
	}
	var files, labels []string
	for i, l := range in.Labels {
		if n := len(strings.Split(l, "_")); n != len(opts.Parts) {
			if in.given || !anyDir(opts.Files) {
				return usageError{fmt.Errorf("label %s has %s; --parts names %d", l, metrics.Plural(n, "parts"), len(opts.Parts))}
			}
			complain(opts.IO.ErrOut, fmt.Sprintf("note: %s: left out, its name has %s where --parts names %d", in.Files[i], metrics.Plural(n, "parts"), len(opts.Parts)))
			continue
		}
		files, labels = append(files, in.Files[i]), append(labels, l)
	}
	in.Files, in.Labels = files, labels
	if len(files) == 0 {
		return fmt.Errorf("no trace's name has the %d parts --parts names", len(opts.Parts))
	}
	return nil
}

// writeCompareRows writes compare with a row per run, a table per device
// position.
func writeCompareRows(opts *compareOptions, sums []metrics.Summary, positions int) error {
	l := report.RowsLayout{Labels: opts.Labels, Parts: opts.Parts, GroupBy: opts.GroupBy, Metrics: opts.Metrics}
	if opts.All {
		for _, c := range metrics.Columns() {
			l.Metrics = append(l.Metrics, c.Name)
		}
	}
	var tables []*report.Table
	for pos := range positions {
		tables = append(tables, report.CompareRowsTables(l, sums, pos)...)
	}
	if opts.Metrics == nil && !opts.All {
		tables = append(tables, &report.Table{Notes: []string{"every metric: --all; these or others: --metrics NAME,…; runs as columns: --layout columns"}})
	}
	return report.Write(opts.IO.Out, tableOutput(opts.IO, opts.Format, opts.CSV, ""), tables...)
}
