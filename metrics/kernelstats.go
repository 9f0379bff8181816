package metrics

import (
	"math"
	"slices"

	"github.com/traceql/traceql/trace"
)

// A KernelDist is a KernelStat with the distribution of the durations, as
// nsys stats' cuda_gpu_kern_sum gives it: median and standard deviation.
type KernelDist struct {
	KernelStat
	// MedianNS is the median duration; the mean of the two middle values
	// for an even count.
	MedianNS float64
	// StddevNS is the sample standard deviation of the durations (n − 1
	// in the denominator); 0 for one instance.
	StddevNS float64
	// OccupancyPct is the mean of Kineto's est. achieved occupancy over
	// the instances that have one, weighted by their durations (as
	// TensorBoard's kernel view weighed it); HasOccupancy is false when
	// none has (Nsight exports, older traces).
	OccupancyPct float64
	HasOccupancy bool
}

// KernelDists aggregates a device's kernels by name with their median and
// standard deviation, sorted by total time, longest first, ties by name.
// (The summary's KernelStats leave them out: they need every duration of
// every name kept and sorted.)
func KernelDists(t *trace.Trace, dev int) []KernelDist {
	a := newKernelAgg()
	var durs [][]int64                               // by the names' indices
	type occupancy struct{ pctNS, ns, pct, n int64 } // Σ pct×dur, Σ dur, Σ pct, instances
	var occ []occupancy
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		j := a.add(k.Name, k.Dur())
		if j == len(durs) {
			durs, occ = append(durs, nil), append(occ, occupancy{})
		}
		durs[j] = append(durs[j], k.Dur())
		if k.HasOccupancy {
			o, pct := &occ[j], int64(k.OccupancyPct)
			o.pctNS, o.ns, o.pct, o.n = o.pctNS+pct*k.Dur(), o.ns+k.Dur(), o.pct+pct, o.n+1
		}
	}
	stats := a.done()
	out := make([]KernelDist, len(stats))
	for j, s := range stats {
		d := durs[j]
		slices.Sort(d)
		out[j] = KernelDist{KernelStat: s, MedianNS: Median(d), StddevNS: sampleStddev(d, s.MeanNS)}
		switch o := occ[j]; {
		case o.ns > 0:
			out[j].OccupancyPct, out[j].HasOccupancy = float64(o.pctNS)/float64(o.ns), true
		case o.n > 0: // instances of no duration: their plain mean
			out[j].OccupancyPct, out[j].HasOccupancy = float64(o.pct)/float64(o.n), true
		}
	}
	slices.SortFunc(out, func(a, b KernelDist) int { return longestFirst(a.KernelStat, b.KernelStat) })
	return out
}

// sampleStddev is the sample standard deviation of xs about their mean.
// The deviations are taken from the exact mean (from the int64 total), one
// pass, in float64: a sum of squares of int64 durations could overflow.
func sampleStddev(xs []int64, mean float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var ss float64
	for _, x := range xs {
		d := float64(x) - mean
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// PerSM is what a kernel's launch asks of each streaming multiprocessor,
// computed as Kineto computes its "blocks per SM" and "warps per SM": the
// grid's blocks over the device's SMs, and those times the threads of a
// block over 32 (a fraction of a warp counts as such). ok is false when
// the SM count or the launch configuration is unknown.
func PerSM(k *trace.Kernel, sms int) (blocks, warps float64, ok bool) {
	grid := int64(k.Grid[0]) * int64(k.Grid[1]) * int64(k.Grid[2])
	threads := int64(k.Block[0]) * int64(k.Block[1]) * int64(k.Block[2])
	if sms <= 0 || grid <= 0 || threads <= 0 {
		return 0, 0, false
	}
	blocks = float64(grid) / float64(sms)
	return blocks, blocks * float64(threads) / 32, true
}
