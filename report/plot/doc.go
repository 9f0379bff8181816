// Package plot draws traceql's plots with gonum as PNG or SVG: kernel
// and idle-gap histograms, utilization over time, step times, time by
// class, top kernels, runs compared and host ops. Each takes series that
// metrics computed and a format, and writes to an io.Writer; it computes
// no metrics itself.
package plot
