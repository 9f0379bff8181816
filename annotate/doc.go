// Package annotate writes a trace back out for a timeline viewer
// (Perfetto, chrome://tracing) with what traceql computed as tracks of
// its own: each device's idle gaps by class, its steps, its utilization
// and the verdict. Splice copies a Kineto trace, adding them; WriteChrome
// writes a trace of another format (an Nsight Systems export) as Kineto
// JSON with them.
package annotate
