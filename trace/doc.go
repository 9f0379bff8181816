// Package trace holds traceql's one format-neutral model of a GPU trace,
// Trace, and the readers that fill it: PyTorch profiler / Kineto
// Chrome-trace JSON (plain or gzipped) and Nsight Systems SQLite exports.
//
// Open sniffs a file's first bytes (never its name) and picks the reader.
// Every reader converts units once — times are int64 nanoseconds, parsed
// from decimal text without float64 — and returns a trace that passes
// Validate. Problems a reader can recover from become Trace.Warnings;
// Options.Strict turns them into errors.
package trace
