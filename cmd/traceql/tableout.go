package main

import "github.com/traceql/traceql/report"

// tableOutput is how a command writes its tables with report.Write: its
// --format, the width of the terminal it writes to (0: a file or pipe),
// its CSV options and, for JSON, the document's table name.
func tableOutput(ios *ioStreams, format string, csv report.CSVOptions, name string) report.Output {
	return report.Output{Format: format, Width: ios.TerminalWidth(), CSV: csv, Name: name}
}
