package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/report"
)

// flagValues are the values each enum flag takes, by command: shells
// complete them (traceql plot --kind <TAB>). The commands validate the same
// values when they run.
func flagValues() map[string]map[string][]string {
	names := []string{report.NamesFull, report.NamesShort, report.NamesFamily}
	cols := deviceMetricNames()
	for _, n := range hostMetricNames() {
		if !slices.Contains(cols, n) {
			cols = append(cols, n)
		}
	}
	return map[string]map[string][]string{
		"summarize": {"format": {"text", "csv", "json", "markdown"}, "names": names},
		"diff":      {"format": {"text", "csv", "json", "markdown"}, "group": {"name", "family"}, "names": names},
		"compare":   {"format": {"text", "csv", "json", "markdown"}, "metrics": cols},
		"plot":      {"kind": {"kernels", "gaps", "timeline", "top", "steps", "ops"}, "weight": {"time", "count"}, "names": names},
		"export":    {"table": report.ExportTables(), "format": {"csv", "json", "jsonl", "parquet"}},
	}
}

// registerCompletions tells cobra the values of every enum flag, and that
// file arguments complete as files.
func registerCompletions(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		for flag, values := range flagValues()[cmd.Name()] {
			if cmd.Flags().Lookup(flag) == nil {
				continue
			}
			_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
		}
	}
}
