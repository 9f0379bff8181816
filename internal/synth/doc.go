// Package synth writes synthetic PyTorch-profiler (Kineto Chrome-trace JSON)
// traces whose summary statistics are known by construction, so that
// traceql's reader and metrics can be tested against an independent source
// of ground truth, and so that benchmarks can make inputs of any size
// without committing them.
//
// Write streams the trace to an io.Writer with bounded memory and returns a
// Truth: per-device kernel counts and durations, busy and idle time, idle
// gaps, copy and memset totals, and counts of the CPU-side events. The truth
// is not computed by re-implementing an interval union. Each device's GPU
// activity is laid out as a sequence of clusters [c, c+L] separated by gaps
// the generator chooses (a gap of exactly 0 joins two clusters). Every
// cluster is covered exactly by its events: either a spine event that spans
// it, with shorter events on other streams inside it, or a chain of events
// where each starts inside the union of the previous ones and ends after it.
// So busy time is the sum of cluster lengths, the idle gaps are the chosen
// non-zero separations, and kernel busy time is the sum of the lengths of
// the clusters that contain a kernel (a cluster holds kernels everywhere or
// nowhere).
//
// Two eras are written: Modern (lower-case categories, "ts" as
// microseconds with exactly three decimals relative to baseTimeNanoseconds,
// ac2g flows, cuda_driver launches of Triton kernels, python_function
// events) and Era2021 (PyTorch 1.8–1.9: capitalised categories, tid
// "stream N", integer epoch microseconds, "external id" in lower case).
//
// The same Config always gives byte-identical output.
package synth
