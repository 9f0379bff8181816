package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// kernelLaunchPrefixes name the API calls that launch one kernel.
var kernelLaunchPrefixes = []string{
	"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cuLaunchKernel", "cuLaunchCooperativeKernel",
	"hipLaunchKernel", "hipModuleLaunchKernel", "hipExtLaunchKernel", "hipExtModuleLaunchKernel", "hipLaunchCooperativeKernel",
}

// graphLaunchNames name the API calls that replay a CUDA/HIP graph.
var graphLaunchNames = []string{"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"}

// IsKernelLaunch reports whether an API call launches a single kernel.
func IsKernelLaunch(name string) bool {
	for _, p := range kernelLaunchPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// IsGraphLaunch reports whether an API call replays a graph.
func IsGraphLaunch(name string) bool {
	for _, p := range graphLaunchNames {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// IsSync reports whether an API call blocks the host until the device is done.
// cudaMemcpy (without Async) blocks too. (A switch: summaries ask this of
// every API call, and it compares lengths before bytes.)
func IsSync(name string) bool {
	switch name {
	case "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpy2D",
		"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuMemcpyDtoH", "cuMemcpyHtoD",
		"hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipMemcpy":
		return true
	}
	return false
}

// launchIndex maps correlation ids to API calls.
type launchIndex struct {
	t     *trace.Trace
	calls *corrTable[int32] // → index in t.APICalls
}

func newLaunchIndex(t *trace.Trace) launchIndex {
	ix := launchIndex{t, newCorrTable[int32](func(yield func(corrKey) bool) {
		for i := range t.APICalls {
			if c := &t.APICalls[i]; c.Correlation != 0 && !yield(keyOf(t, c.PID, c.Correlation)) {
				return
			}
		}
	})}
	for i := range t.APICalls {
		if c := &t.APICalls[i]; c.Correlation != 0 {
			v, _ := ix.calls.put(keyOf(t, c.PID, c.Correlation))
			*v = int32(i)
		}
	}
	return ix
}

// call returns the API call that launched device work a, or -1.
func (ix launchIndex) call(a *trace.Activity) int {
	if a.Correlation == 0 {
		return -1
	}
	if i := ix.calls.get(keyOf(ix.t, a.PID, a.Correlation)); i != nil {
		return int(*i)
	}
	return -1
}

// LaunchStats describes how the host fed one device.
type LaunchStats struct {
	Launches         int     // kernel launch calls whose kernels ran on the device
	GraphLaunches    int     // graph launch calls whose work ran on the device
	LaunchNS         int64   // CPU time in those calls (kernel and graph launches)
	MeanLaunchNS     float64 // LaunchNS / (Launches + GraphLaunches)
	LaunchedKernels  int     // kernels matched to one of those calls
	KernelsPerLaunch float64 // LaunchedKernels / (Launches + GraphLaunches)
	GraphKernels     int     // kernels replayed by graph launches
	// LatencyMedianNS and LatencyP90NS: GPU start of the first kernel of a
	// launch − the launch call's start.
	LatencyMedianNS float64
	LatencyP90NS    int64
}

// Launches computes the launch statistics of a device, joining kernels to
// API calls on correlation id (within one process).
func Launches(t *trace.Trace, dev int) LaunchStats {
	return launches(t, dev, newLaunchIndex(t))
}

func launches(t *trace.Trace, dev int, ix launchIndex) LaunchStats {
	var s LaunchStats
	// Kernels are sorted by start, so the first kernel of a call met is its
	// earliest: a bit a call says whether it was met.
	met := make([]uint64, (len(t.APICalls)+63)/64)
	lat := make([]int64, 0, min(len(t.APICalls), len(t.Kernels)))
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		ci := ix.call(&k.Activity)
		if ci < 0 {
			continue
		}
		c := &t.APICalls[ci]
		graph := IsGraphLaunch(c.Name)
		if !graph && !IsKernelLaunch(c.Name) {
			continue
		}
		s.LaunchedKernels++
		if graph {
			s.GraphKernels++
		}
		if w, bit := ci/64, uint64(1)<<(ci%64); met[w]&bit == 0 {
			met[w] |= bit
			if graph {
				s.GraphLaunches++
			} else {
				s.Launches++
			}
			s.LaunchNS += c.End - c.Start
			lat = append(lat, k.Start-c.Start)
		}
	}
	if n := s.Launches + s.GraphLaunches; n > 0 {
		s.MeanLaunchNS = float64(s.LaunchNS) / float64(n)
		s.KernelsPerLaunch = float64(s.LaunchedKernels) / float64(n)
		var p90 []int64
		s.LatencyMedianNS, p90 = quantiles(lat, 90)
		s.LatencyP90NS = p90[0]
	}
	return s
}

// Gap classes.
const (
	GapLaunch = "launch" // the call that launched the next GPU work began after the GPU went idle
	GapSync   = "sync"   // a host synchronization was in progress during the gap
	GapOther  = "other"
)

// A ClassifiedGap is an idle gap of a device with its likely cause.
type ClassifiedGap struct {
	Device int
	Interval
	Class string
}

// ClassifyGaps attributes each idle gap of each device with GPU activity,
// by device, then in time order: sync when a blocking host call
// (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize,
// blocking cudaMemcpy, …) or a device-side sync record of the device
// overlaps the gap; else launch when the API call that launched the GPU
// work ending the gap started after the gap began (the CPU was late); else
// other.
func ClassifyGaps(t *trace.Trace) []ClassifiedGap {
	ix, syncs := newLaunchIndex(t), hostSyncs(t)
	var out []ClassifiedGap
	for dev, v := range DeviceViews(t) {
		gaps := Gaps(DeviceBusy(v, dev))
		classifyGaps(v, dev, ix, syncs, gaps, func(j int, class string) {
			out = append(out, ClassifiedGap{dev, gaps[j], class})
		})
	}
	return out
}

// hostSyncs returns the intervals of t's blocking host calls (IsSync),
// sorted by start.
func hostSyncs(t *trace.Trace) []Interval {
	var syncs []Interval
	for i := range t.APICalls {
		if c := &t.APICalls[i]; IsSync(c.Name) {
			syncs = append(syncs, Interval{c.Start, c.End})
		}
	}
	return syncs
}

// classifyGaps calls class with the index and class of each of gaps, the
// device's idle gaps in order: the summary needs only their sums. host
// are the trace's hostSyncs.
func classifyGaps(t *trace.Trace, dev int, ix launchIndex, host []Interval, gaps []Interval, class func(i int, class string)) {
	if len(gaps) == 0 {
		return
	}
	// next[i] is the activity that ends gap i: one starting at its end, and
	// of those the first with a launching call. Activities come in runs
	// sorted by start, so a cursor finds the gap, sought again when a new
	// run begins.
	next := make([]*trace.Activity, len(gaps))
	j := 0 // gaps[:j] end before the last start seen
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Device != dev {
			return
		}
		if j > 0 && gaps[j-1].End >= a.Start {
			j, _ = slices.BinarySearchFunc(gaps, a.Start, func(g Interval, x int64) int { return cmp.Compare(g.End, x) })
		}
		for j < len(gaps) && gaps[j].End < a.Start {
			j++
		}
		if j == len(gaps) || gaps[j].End != a.Start {
			return
		}
		if cur := next[j]; cur == nil || ix.call(cur) < 0 && ix.call(a) >= 0 {
			next[j] = a
		}
	})
	syncs := slices.Clone(host)
	for i := range t.Syncs {
		// A stream wait (cudaStreamWaitEvent) makes a stream wait on the
		// device; the host call returns at once.
		if s := &t.Syncs[i]; s.Device == dev && !strings.HasPrefix(s.Kind, "Stream Wait") {
			syncs = append(syncs, Interval{s.Start, s.End})
		}
	}
	syncs = Union(syncs)
	// late reports whether the call that launched a began after gap g did.
	late := func(a *trace.Activity, g Interval) bool {
		if a == nil {
			return false
		}
		ci := ix.call(a)
		return ci >= 0 && t.APICalls[ci].Start > g.Start
	}
	k := 0 // syncs[:k] end by the time gap i starts
	for i, g := range gaps {
		for k < len(syncs) && syncs[k].End <= g.Start {
			k++
		}
		switch {
		case k < len(syncs) && syncs[k].Start < g.End:
			class(i, GapSync)
		case late(next[i], g):
			class(i, GapLaunch)
		default:
			class(i, GapOther)
		}
	}
}
