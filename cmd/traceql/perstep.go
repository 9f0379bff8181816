package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/traceql/traceql/metrics"
)

// perStepHelp is what --per-step does, for compare's and diff's help.
const perStepHelp = `

Per step: when every run measured ProfilerStep#N (and --per-step=false
is not given), the counts and times that add up over steps (kernels,
kernel time, span, idle, launches, copies, …) are divided by the steps
each run measured, and the title says "per step (N steps)": runs profiled
for 4 steps and for 10 compare as runs. A time per step is the integer ns
nearest the total over the steps (halves rounded up), a count per step
the nearest float; rates and ratios (GPU utilization, GB/s, MFU), means,
medians and extremes are as measured; the verdicts, findings and kernel
rows stay totals. --per-step=false shows totals; --format csv and json
always keep totals, with the steps column beside them.`

// perStepFlag is --per-step; set says that the user gave it.
type perStepFlag struct{ On, Set bool }

func addPerStepFlag(f *pflag.FlagSet, p *perStepFlag) {
	f.BoolVar(&p.On, "per-step", true, "divide counts and times by the steps measured (the default when every run has steps); --per-step=false: totals")
}

// decide returns whether the runs sums, labelled labels, are shown per
// step in format: by default when every run measured steps, never in CSV
// or JSON, whose columns are totals.
func (p perStepFlag) decide(format string, labels []string, sums []metrics.Summary) (bool, error) {
	if format == "csv" || format == "json" {
		if p.Set && p.On {
			return false, usageError{fmt.Errorf("--per-step: --format %s keeps totals (integer columns); divide by its steps column", format)}
		}
		return false, nil
	}
	if !p.Set {
		return metrics.AllHaveSteps(sums), nil
	}
	if p.On && !metrics.AllHaveSteps(sums) {
		for i, s := range sums {
			for _, d := range s.Devices {
				if len(d.Steps) == 0 {
					return false, fmt.Errorf("--per-step: %s has no ProfilerStep#N on GPU %d to divide by; --per-step=false shows totals", labels[i], d.Device)
				}
			}
		}
	}
	return p.On, nil
}
