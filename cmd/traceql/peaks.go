package main

import (
	"fmt"
	"slices"

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

// flopsFlags are --flops and the peaks, for the commands that count FLOPs
// only when asked (compare, diff, report): reading the shapes and
// attributing kernels to ops is much of a plain run's time again.
type flopsFlags struct {
	On   bool
	Peak peakFlags
}

func (p *flopsFlags) add(f *pflag.FlagSet) {
	f.BoolVar(&p.On, "flops", false, "read the recorded shapes (record_shapes=True) for FLOPs, achieved TFLOP/s, MFU and the precision mix (slower)")
	p.Peak.add(f)
}

// want reports whether the FLOPs are counted: --flops, a peak given, or
// a metric named (--metrics, --fail-if) that only counted ops have;
// then it sets the read's needs to keep the shapes (with the polls when
// polls is true).
func (p *flopsFlags) want(r *readOptions, polls bool, metricNames ...string) bool {
	p.On = p.On || p.Peak.TFLOPS > 0 || p.Peak.GBps > 0 || slices.ContainsFunc(metricNames, metrics.CountsOps)
	if p.On {
		r.needs = shapeNeeds(polls)
	}
	return p.On
}
