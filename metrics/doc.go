// Package metrics computes everything traceql reports from a trace.Trace:
// per-device summaries (kernels, busy time as a union of intervals, idle
// gaps, utilization, copy bandwidth), launch statistics and idle-gap
// attribution, step windows, per-kernel diffs and host stacks for pprof.
//
// Functions are pure: they read the trace, never modify it, do no I/O and
// return results in a deterministic order. Every per-device metric is
// defined once, in Columns, which `traceql summarize --help` prints.
package metrics
