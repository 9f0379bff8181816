package metrics

import "fmt"

// Utilization is how much of its peak a device's measured work used: the
// FLOPs of its ops (deviceWork) against its span and the dense peak of
// the precision most of its GEMM and convolution time ran in.
type Utilization struct {
	Work OpWork
	// KernelNS is the device's kernel time; Work.CostedGPUNS of it ran
	// for ops with a FLOP count (Coverage).
	KernelNS int64
	SpanNS   int64
	Peak     Peak
	// Precision is that of the peak MFU divides by: the precision with
	// the most GEMM and convolution kernel time; "" when none.
	Precision Precision
	// PeakTFLOPS and PeakGBps are the peaks used, 0 when unknown;
	// PeakFrom says where they come from (the table's GPU, or the
	// --peak-tflops and --peak-gbps overrides).
	PeakTFLOPS, PeakGBps float64
	PeakFrom             string
	// NoMFU says why there is no MFU ("" when there is one).
	NoMFU string
}

// PeakOverride sets the peaks by hand (--peak-tflops, --peak-gbps); 0
// leaves the table's.
type PeakOverride struct {
	TFLOPS, GBps float64
}

// deviceUtilization computes d's utilization from its ops (d.Ops, with
// shapes) and the peaks of the GPU it names, or those given.
func deviceUtilization(d *DeviceSummary, o PeakOverride) Utilization {
	u := Utilization{Work: deviceWork(d.Ops), KernelNS: d.KernelNS, SpanNS: d.SpanNS}
	if mix := u.Work.Mix(); len(mix) > 0 {
		u.Precision = mix[0].Precision
	}
	peak, why := peakOf(d.Name)
	u.Peak = peak
	if why == "" {
		u.PeakGBps = peak.GBps
		u.PeakFrom = peak.GPU
		if u.Precision != "" {
			u.PeakTFLOPS = peak.TFLOPS[u.Precision]
			if u.PeakTFLOPS == 0 {
				why = fmt.Sprintf("the %s datasheet gives no %s peak", peak.GPU, u.Precision)
			}
		}
	}
	if o.TFLOPS > 0 {
		u.PeakTFLOPS, u.PeakFrom, why = o.TFLOPS, "--peak-tflops", ""
	}
	if o.GBps > 0 {
		u.PeakGBps = o.GBps
	}
	switch {
	case !u.Work.Costed():
		u.NoMFU = "no op with a FLOP count: record with record_shapes=True (and with_flops=True)"
	case why != "":
		u.NoMFU = why + "; give --peak-tflops"
	case u.PeakTFLOPS == 0:
		u.NoMFU = "no GEMM or convolution kernel tells the precision to take the peak of; give --peak-tflops"
	case u.SpanNS == 0:
		u.NoMFU = "no span"
	}
	return u
}

// HasMFU reports whether MFU has a value; not when u is nil (not
// computed).
func (u *Utilization) HasMFU() bool { return u != nil && u.NoMFU == "" }

// MFU is the model FLOPs utilization: FLOPs / (span × dense peak).
// FLOPs of ops without a count are missing from it, so it is a lower
// bound when Coverage < 1.
func (u *Utilization) MFU() float64 {
	if !u.HasMFU() {
		return 0
	}
	return float64(u.Work.Flops) / (float64(u.SpanNS) * u.PeakTFLOPS * 1e3)
}

// StepFlops is the FLOPs of one of the device's steps (StepStat.Flops);
// ok is false where the ops were not counted (u nil) or none has a count.
func (u *Utilization) StepFlops(s *StepStat) (flops int64, ok bool) {
	if u == nil || !u.Work.Costed() {
		return 0, false
	}
	return s.Flops, true
}

// StepMFU is the MFU of one of the device's steps: its FLOPs / (its
// length × dense peak); ok is false where the device has no MFU (u nil:
// not computed) or the step no length.
func (u *Utilization) StepMFU(s *StepStat) (mfu float64, ok bool) {
	if !u.HasMFU() || s.DurNS() <= 0 {
		return 0, false
	}
	return float64(s.Flops) / (float64(s.DurNS()) * u.PeakTFLOPS * 1e3), true
}

// AchievedTFLOPS is FLOPs over the span, in TFLOP/s.
func (u *Utilization) AchievedTFLOPS() float64 {
	if u.SpanNS == 0 {
		return 0
	}
	return float64(u.Work.Flops) / float64(u.SpanNS) / 1e3
}

// Coverage is the share of kernel time whose op has a FLOP count.
func (u *Utilization) Coverage() float64 {
	if u.KernelNS == 0 {
		return 0
	}
	return min(1, float64(u.Work.CostedGPUNS)/float64(u.KernelNS))
}

// Roofline places an op (its FLOPs, bytes and precision) against the
// device's peaks: whether its arithmetic intensity is below the ridge
// (memory) or not (compute), and the share of the roofline's attainable
// throughput it achieved: achieved / min(peak, intensity × bandwidth).
// ok is false when a peak or the op's bytes are unknown.
func (u *Utilization) Roofline(w *OpWork) (bound string, share float64, ok bool) {
	prec := w.Precision
	peak := u.PeakTFLOPS
	if u.PeakFrom != "--peak-tflops" {
		peak = u.Peak.TFLOPS[prec]
	}
	if peak == 0 || u.PeakGBps == 0 || w.Bytes == 0 || w.CostedGPUNS == 0 || w.Flops == 0 {
		return "", 0, false // a copy (no FLOPs) has no place on the roofline
	}
	ai := w.Intensity()
	memTFLOPS := ai * u.PeakGBps / 1e3 // FLOP/B × GB/s = GFLOP/s
	attain := min(peak, memTFLOPS)
	bound = "compute"
	if memTFLOPS < peak {
		bound = "memory"
	}
	return bound, w.AchievedTFLOPS() / attain, true
}

// flopsArgWarnings say, per device, how many op calls carry a "flops"
// argument (with_flops=True) that disagrees with the FLOP model's count
// from their shapes: flops and MFU take the argument, and the model or
// the profiler is wrong for those ops (export --table ops shows which).
func flopsArgWarnings(devs []DeviceSummary) []string {
	var out []string
	for _, d := range devs {
		if d.Util == nil || d.Util.Work.ArgMismatches == 0 {
			continue
		}
		w := &d.Util.Work
		out = append(out, fmt.Sprintf("GPU %d: %d of %s with a recorded flops argument differ from the FLOP model's "+
			"count from their shapes by over %g %%: flops and mfu take the recorded ones", d.Device, w.ArgMismatches,
			Plural(w.ProfilerCalls, "op calls"), argTolerance*100))
	}
	return out
}
