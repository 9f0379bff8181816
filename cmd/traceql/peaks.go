package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// shapeNeeds are the host data of the commands that show FLOPs: every
// cpu_op, and the recorded shapes of those the FLOP model counts.
func shapeNeeds(polls bool) trace.Needs {
	return trace.Needs{Ops: true, Polls: polls, Shapes: true, ShapesOf: metrics.ModelledOps()}
}

// peakFlags are --peak-tflops and --peak-gbps.
type peakFlags struct {
	metrics.PeakOverride
}

func (p *peakFlags) add(f *pflag.FlagSet) {
	f.Float64Var(&p.TFLOPS, "peak-tflops", 0, "the GPU's dense peak TFLOP/s for MFU and the roofline, instead of traceql's table (traceql help peaks)")
	f.Float64Var(&p.GBps, "peak-gbps", 0, "the GPU's memory bandwidth in GB/s for the roofline, instead of traceql's table")
}

func (p *peakFlags) check() error {
	if p.TFLOPS < 0 || p.GBps < 0 {
		return usageError{fmt.Errorf("--peak-tflops and --peak-gbps must be positive")}
	}
	return nil
}
