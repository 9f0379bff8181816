package metrics

import (
	"math"

	"github.com/traceql/traceql/trace"
)

// DeviceTables are one device's drill-down tables: kernels by name,
// streams, copies by kind, GPU time by host op and by code region.
type DeviceTables struct {
	Device       int
	KernelDists  []KernelDist
	Streams      []StreamStat
	Copies       []CopyDist
	Ops, Regions []ScopeStat
	// Util is the device's FLOPs against its peaks, with Ops.
	Util *Utilization
}

// TablesOptions says which of DeviceTables' tables PerDevice computes;
// each is a pass over the device's events, done only when asked.
type TablesOptions struct {
	KernelDists, Streams, Copies bool
	// Scopes needs the trace's cpu_ops, which a lean read leaves out.
	Scopes bool
	// Peak overrides the table's peaks for DeviceTables.Util.
	Peak PeakOverride
	// Capture, with Scopes, names the kernels of graph launches by the
	// launch calls that captured them; nil leaves them under the launch.
	Capture *CaptureMatch
}

// PerDevice computes the tables o asks for, for each device with GPU
// activity, by device id.
func PerDevice(t *trace.Trace, o TablesOptions) []DeviceTables {
	var out []DeviceTables
	for dev, v := range DeviceViews(t) {
		d := DeviceTables{Device: dev}
		if o.KernelDists {
			d.KernelDists = KernelDists(v, dev)
		}
		if o.Streams {
			d.Streams = StreamStats(v, dev)
		}
		if o.Copies {
			d.Copies = CopyDists(v, dev)
		}
		if o.Scopes {
			d.Ops, d.Regions = CapturedScopes(v, dev, o.Capture)
			u := deviceUtilization(deviceTotals(v, dev, d.Ops), o.Peak)
			d.Util = &u
		}
		out = append(out, d)
	}
	return out
}

// CopyGBps is the bandwidth of one copy: bytes / ns, GB/s with GB = 1e9 B;
// 0 for no time.
func CopyGBps(bytes, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(bytes) / float64(ns)
}

// A Spread is the mean, median and sample standard deviation (n − 1; 0
// for fewer than two) of some values.
type Spread struct{ Mean, Median, Stdev float64 }

// spreadOf computes the spread of values; the zero Spread for none.
func spreadOf(values []float64) Spread {
	if len(values) == 0 {
		return Spread{}
	}
	s := 0.0
	for _, x := range values {
		s += x
	}
	sp := Spread{Mean: s / float64(len(values)), Median: MedianF(values)}
	if len(values) > 1 {
		ss := 0.0
		for _, x := range values {
			ss += (x - sp.Mean) * (x - sp.Mean)
		}
		sp.Stdev = math.Sqrt(ss / float64(len(values)-1))
	}
	return sp
}

// StepSpreads is the spread over steps of each step's time, kernels,
// busy, idle and GPU utilization, in that order.
func StepSpreads(steps []StepStat) [5]Spread {
	cols := make([][]float64, 5)
	for _, s := range steps {
		for j, v := range []float64{float64(s.DurNS()), float64(s.Kernels), float64(s.BusyNS), float64(s.IdleNS), s.Util} {
			cols[j] = append(cols[j], v)
		}
	}
	var out [5]Spread
	for j, c := range cols {
		out[j] = spreadOf(c)
	}
	return out
}

// StepWorkSpreads is the spread over steps of each step's FLOPs and
// MFU (Utilization.StepFlops, StepMFU), over the steps that have them.
func StepWorkSpreads(steps []StepStat, u *Utilization) [2]Spread {
	var flops, mfu []float64
	for i := range steps {
		if f, ok := u.StepFlops(&steps[i]); ok {
			flops = append(flops, float64(f))
		}
		if m, ok := u.StepMFU(&steps[i]); ok {
			mfu = append(mfu, m)
		}
	}
	return [2]Spread{spreadOf(flops), spreadOf(mfu)}
}

// deviceTotals is what deviceUtilization reads of a device besides its
// ops: its name, kernel time and span.
func deviceTotals(t *trace.Trace, dev int, ops []ScopeStat) *DeviceSummary {
	d := &DeviceSummary{Device: dev, Ops: ops}
	if dv, ok := t.Device(dev); ok {
		d.Name = dv.Name
	}
	first := true
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Device != dev {
			return
		}
		if first || a.Start < d.StartNS {
			d.StartNS = a.Start
		}
		if first || a.End > d.EndNS {
			d.EndNS = a.End
		}
		first = false
	})
	for i := range t.Kernels {
		if t.Kernels[i].Device == dev {
			d.KernelNS += t.Kernels[i].Dur()
		}
	}
	d.SpanNS = d.EndNS - d.StartNS
	return d
}
