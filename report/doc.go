// Package report renders computed results (metrics.Summary and friends)
// as tables: text for a terminal, Markdown, CSV and JSON through one
// switch from a format to its writer (Write), the export tables as rows
// of CSV, JSON lines or Parquet, pprof profiles of host stacks, and the
// verdict's sentences. It computes no metrics itself; plots are
// report/plot's, the HTML page report/html's.
package report
