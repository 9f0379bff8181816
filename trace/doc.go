// Package trace holds traceql's one format-neutral model of a GPU trace,
// Trace, and the readers that fill it: PyTorch profiler / Kineto
// Chrome-trace JSON (plain or gzipped) and Nsight Systems SQLite exports.
//
// Open sniffs a file's first bytes (never its name) and picks the reader.
// Every reader converts units once — times are int64 nanoseconds, parsed
// from decimal text without float64 — and returns a trace that passes
// Validate. Problems a reader can recover from become Trace.Warnings;
// Options.Strict turns them into errors.
//
// The Kineto reader's speed machinery is fenced in internal packages:
// internal/jsonlex (the JSON lexer, scanner and memos) and internal/blocks
// (block-parallel decoding, table sizing, the worker budget). This package
// keeps the model, Open with its sniffing and read policy (Needs), the
// mapping of Kineto events to records, and Validate.
package trace
