package metrics

import (
	"fmt"
	"strings"
)

// workColumns are the per-device metrics of the FLOP model, after the
// others: filled when the ops were counted (summarize --by op, which
// reads the recorded shapes), empty otherwise.
func workColumns() []Column {
	never := Never[DeviceSummary]()
	noWork := func(d *DeviceSummary) bool { return d.Util == nil || !d.Util.Work.Costed() }
	return []Column{
		{Name: "flops", Label: "FLOPs", Unit: FLOP, Kind: KindInt, Steps: Adds,
			Doc:   "floating-point operations of the device's ops with a FLOP count (the profiler's with_flops, else the model's from record_shapes; see export --table ops); only where the shapes were read: summarize --by op, compare, diff and report --flops",
			Value: func(d *DeviceSummary) any { return utilOf(d).Work.Flops }, Empty: When(noWork),
			Show: Records | Compared | EveryMetric | GivesWay, Headline: 12},
		{Name: "flops_coverage", Label: "kernel time with FLOPs", Unit: Ratio, Kind: KindFloat,
			Doc:   "share of kernel_ns launched by ops with a FLOP count: below 1, flops and mfu leave the rest out",
			Value: func(d *DeviceSummary) any { return utilOf(d).Coverage() }, Empty: When(noWork),
			Show: Records | Compared | EveryMetric},
		{Name: "achieved_tflops", Label: "achieved TFLOP/s", Unit: TFLOPS, Kind: KindFloat,
			Doc:   "flops / span_ns, TFLOP/s",
			Value: func(d *DeviceSummary) any { return utilOf(d).AchievedTFLOPS() }, Empty: When(func(d *DeviceSummary) bool { return noWork(d) || d.SpanNS == 0 }),
			Show: Records | Compared | EveryMetric | GivesWay, Headline: 13},
		{Name: "peak_tflops", Label: "peak TFLOP/s", Unit: TFLOPS, Kind: KindFloat,
			Doc:   "the GPU's dense (not sparse) datasheet peak in the precision with the most GEMM and convolution time, or --peak-tflops; none for a GPU not in the table (traceql help peaks)",
			Value: func(d *DeviceSummary) any { return utilOf(d).PeakTFLOPS }, Empty: When(func(d *DeviceSummary) bool { return d.Util == nil || d.Util.PeakTFLOPS == 0 }),
			Show: Records | Compared | EveryMetric},
		{Name: "mfu", Label: "MFU", Unit: Ratio, Kind: KindFloat,
			Doc:   "flops / (span_ns × peak_tflops): model FLOPs utilization over the window measured, a lower bound when flops_coverage < 1",
			Value: func(d *DeviceSummary) any { return utilOf(d).MFU() }, Empty: When(func(d *DeviceSummary) bool { return !d.Util.HasMFU() }),
			Show: Records | Compared | EveryMetric, Headline: 14},
		{Name: "precision_mix", Label: "precision mix", Unit: Text, Kind: KindText,
			Doc:   "share of GEMM and convolution kernel time by precision (fp64, fp32, tf32, bf16, fp16, fp8, int8; unknown), from kernel names and the ops' Input type: \"bf16=0.930 fp32=0.070\"; empty where the shapes were not read (see flops) or without such kernels",
			Value: func(d *DeviceSummary) any { return mixField(utilOf(d)) }, Empty: never,
			Show: Records},
	}
}

// CountsOps reports whether the device column named has values only
// where the ops were counted (Options.Scopes, on a read that kept the
// recorded shapes): a command that shows it reads them.
func CountsOps(name string) bool {
	_, ok := ColumnNamed(workColumns(), name)
	return ok
}

// mixField writes the precision mix for CSV and JSON: "bf16=0.931 fp32=0.069".
func mixField(u *Utilization) string {
	var parts []string
	for _, s := range u.Work.Mix() {
		name := string(s.Precision)
		if name == "" {
			name = "unknown"
		}
		parts = append(parts, fmt.Sprintf("%s=%.3f", name, s.Share))
	}
	return strings.Join(parts, " ")
}

// utilOf is d's utilization, or an empty one where the ops were not
// counted (precision_mix is then empty, not missing).
func utilOf(d *DeviceSummary) *Utilization {
	if d.Util == nil {
		return &Utilization{NoMFU: "not computed"}
	}
	return d.Util
}
