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
}

// KernelDists aggregates a device's kernels by name with their median and
// standard deviation, sorted by total time, longest first, ties by name.
// (The summary's KernelStats leave them out: they need every duration of
// every name kept and sorted.)
func KernelDists(t *trace.Trace, dev int) []KernelDist {
	a := newKernelAgg()
	var durs [][]int64 // by the names' indices
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		j := a.add(k.Name, k.Dur())
		if j == len(durs) {
			durs = append(durs, nil)
		}
		durs[j] = append(durs[j], k.Dur())
	}
	stats := a.done()
	out := make([]KernelDist, len(stats))
	for j, s := range stats {
		d := durs[j]
		slices.Sort(d)
		out[j] = KernelDist{KernelStat: s, MedianNS: Median(d), StddevNS: sampleStddev(d, s.MeanNS)}
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
