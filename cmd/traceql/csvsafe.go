package main

import (
	"github.com/spf13/pflag"

	"github.com/traceql/traceql/report"
)

// csvSafeFlag adds --csv-safe (report.CSVOptions.Safe) to a command that
// writes CSV.
func csvSafeFlag(f *pflag.FlagSet, o *report.CSVOptions) {
	f.BoolVar(&o.Safe, "csv-safe", false, "CSV: prefix ' to text cells starting = + - @ (formulas)")
}
