package metrics

import (
	"math"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// MeasureGraphCosts measures the constants of --graphs on one run that
// replays CUDA graphs inside compiled regions (a reduce-overhead run):
// over its cudaGraphLaunch calls inside a compiled region
// (trace.CompiledRegionPrefix), the median of the outermost region's
// length minus the call's (ReplayHostNS), of the call's length over its
// kernels (LaunchNodeNS), and of the device gaps between consecutive
// kernels of one launch (NodeNS). n counts the launches measured; none
// leaves the costs zero. The shipped constants are the median over runs
// (MedianGraphCosts) of these.
func MeasureGraphCosts(t *trace.Trace) (c GraphCosts, n int) {
	kernels := map[int64][]trace.Kernel{} // by correlation
	for _, k := range t.Kernels {
		kernels[k.Correlation] = append(kernels[k.Correlation], k)
	}
	var regions []trace.Op // in start order: the outermost of nested ones first
	for _, op := range t.Ops {
		if op.Kind == trace.CPUOp && strings.HasPrefix(op.Name, trace.CompiledRegionPrefix) {
			regions = append(regions, op)
		}
	}
	var host, node, gap []int64
	for _, a := range t.APICalls {
		ks := kernels[a.Correlation]
		if a.Name != "cudaGraphLaunch" || len(ks) == 0 {
			continue
		}
		i := slices.IndexFunc(regions, func(op trace.Op) bool {
			return op.PID == a.PID && op.TID == a.TID && op.Start <= a.Start && a.End <= op.End
		})
		if i < 0 {
			continue // a capture's or warm-up's launch, outside the regions
		}
		host = append(host, regions[i].End-regions[i].Start-(a.End-a.Start))
		node = append(node, int64(math.Round(float64(a.End-a.Start)/float64(len(ks)))))
		for j := 1; j < len(ks); j++ {
			gap = append(gap, ks[j].Start-ks[j-1].End)
		}
	}
	if len(host) == 0 {
		return GraphCosts{}, 0
	}
	return GraphCosts{ReplayHostNS: roundedMedian(host), LaunchNodeNS: roundedMedian(node), NodeNS: roundedMedian(gap)}, len(host)
}

// MedianGraphCosts is the median over runs of each of their costs,
// rounded to integer ns.
func MedianGraphCosts(runs []GraphCosts, source string) GraphCosts {
	pick := func(f func(GraphCosts) int64) int64 {
		xs := make([]int64, len(runs))
		for i, r := range runs {
			xs[i] = f(r)
		}
		return roundedMedian(xs)
	}
	return GraphCosts{ReplayHostNS: pick(func(c GraphCosts) int64 { return c.ReplayHostNS }),
		LaunchNodeNS: pick(func(c GraphCosts) int64 { return c.LaunchNodeNS }),
		NodeNS:       pick(func(c GraphCosts) int64 { return c.NodeNS }), Source: source}
}

// roundedMedian is the median of xs (sorted here) rounded to an integer.
func roundedMedian(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return int64(math.Round(Median(xs)))
}
