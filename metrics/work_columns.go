package metrics

import (
	"fmt"
	"strings"
)

// workColumns are the per-device metrics of the FLOP model, after the
// others: filled when the ops were counted (summarize --by op, which
// reads the recorded shapes), empty otherwise.
func workColumns() []Column {
	noWork := func(d *DeviceSummary) bool { return d.Util == nil || !d.Util.Work.Costed() }
	return []Column{
		{"flops", "FLOPs", FLOP, "floating-point operations of the device's ops with a FLOP count (the profiler's with_flops, else the model's from record_shapes; see export --table ops); only with --by op", func(d *DeviceSummary) any { return utilOf(d).Work.Flops }, noWork},
		{"flops_coverage", "kernel time with FLOPs", Ratio, "share of kernel_ns launched by ops with a FLOP count: below 1, flops and mfu leave the rest out", func(d *DeviceSummary) any { return utilOf(d).Coverage() }, noWork},
		{"achieved_tflops", "achieved TFLOP/s", TFLOPS, "flops / span_ns, TFLOP/s", func(d *DeviceSummary) any { return utilOf(d).AchievedTFLOPS() },
			func(d *DeviceSummary) bool { return noWork(d) || d.SpanNS == 0 }},
		{"peak_tflops", "peak TFLOP/s", TFLOPS, "the GPU's dense (not sparse) datasheet peak in the precision with the most GEMM and convolution time, or --peak-tflops; none for a GPU not in the table", func(d *DeviceSummary) any { return utilOf(d).PeakTFLOPS },
			func(d *DeviceSummary) bool { return d.Util == nil || d.Util.PeakTFLOPS == 0 }},
		{"mfu", "MFU", Ratio, "flops / (span_ns × peak_tflops): model FLOPs utilization over the window measured, a lower bound when flops_coverage < 1", func(d *DeviceSummary) any { return utilOf(d).MFU() },
			func(d *DeviceSummary) bool { return d.Util == nil || !d.Util.HasMFU() }},
		{"precision_mix", "precision mix", Text, "share of GEMM and convolution kernel time by precision (fp64, fp32, tf32, bf16, fp16, fp8, int8; unknown), from kernel names and the ops' Input type: \"bf16=0.930 fp32=0.070\"; empty without --by op or without such kernels", func(d *DeviceSummary) any { return mixField(utilOf(d)) }, nil},
	}
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

// utilOf is d's utilization, or an empty one: columns' values are read
// for their type even where Missing says they have none.
func utilOf(d *DeviceSummary) *Utilization {
	if d.Util == nil {
		return &Utilization{NoMFU: "not computed"}
	}
	return d.Util
}
