package metrics

import (
	"cmp"
	"maps"
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

// syncCalls name the host API calls that block the calling thread until
// device work is done: the explicit synchronizations, and the copies and
// memsets that are synchronous with respect to the host (CUDA runtime,
// driver and HIP spellings). PyTorch's .item() and .cpu() reach one of
// these: cudaMemcpyAsync + cudaStreamSynchronize on CUDA,
// hipMemcpyWithStream on ROCm. The *Async calls and cudaStreamWaitEvent
// return at once, and cudaStreamQuery/cudaEventQuery only poll.
var syncCalls = map[string]bool{
	// CUDA runtime.
	"cudaDeviceSynchronize": true, "cudaThreadSynchronize": true, "cudaStreamSynchronize": true, "cudaEventSynchronize": true,
	"cudaMemcpy": true, "cudaMemcpy2D": true, "cudaMemcpy3D": true, "cudaMemcpyPeer": true, "cudaMemcpy3DPeer": true,
	"cudaMemcpyToSymbol": true, "cudaMemcpyFromSymbol": true, "cudaMemcpyToArray": true, "cudaMemcpyFromArray": true,
	"cudaMemcpy2DToArray": true, "cudaMemcpy2DFromArray": true, "cudaMemcpyArrayToArray": true, "cudaMemcpy2DArrayToArray": true,
	"cudaMemset": true, "cudaMemset2D": true, "cudaMemset3D": true,
	// CUDA driver (Nsight keeps the _v2 of cuMemcpyDtoH_v2: see apiBase).
	"cuCtxSynchronize": true, "cuStreamSynchronize": true, "cuEventSynchronize": true,
	"cuMemcpy": true, "cuMemcpyDtoH": true, "cuMemcpyHtoD": true, "cuMemcpyDtoD": true, "cuMemcpyDtoA": true, "cuMemcpyAtoD": true,
	"cuMemcpyHtoA": true, "cuMemcpyAtoH": true, "cuMemcpyAtoA": true, "cuMemcpy2D": true, "cuMemcpy2DUnaligned": true, "cuMemcpy3D": true,
	"cuMemcpyPeer": true, "cuMemcpy3DPeer": true,
	"cuMemsetD8": true, "cuMemsetD16": true, "cuMemsetD32": true, "cuMemsetD2D8": true, "cuMemsetD2D16": true, "cuMemsetD2D32": true,
	// HIP.
	"hipDeviceSynchronize": true, "hipCtxSynchronize": true, "hipStreamSynchronize": true, "hipEventSynchronize": true,
	"hipMemcpy": true, "hipMemcpyWithStream": true, "hipMemcpyDtoH": true, "hipMemcpyHtoD": true, "hipMemcpyDtoD": true,
	"hipMemcpy2D": true, "hipMemcpy3D": true, "hipMemcpyParam2D": true, "hipMemcpyPeer": true,
	"hipMemcpyToSymbol": true, "hipMemcpyFromSymbol": true, "hipMemcpyToArray": true, "hipMemcpyFromArray": true,
	"hipMemcpy2DToArray": true, "hipMemcpy2DFromArray": true, "hipMemcpyAtoH": true, "hipMemcpyHtoA": true,
	"hipMemset": true, "hipMemset2D": true, "hipMemset3D": true, "hipMemsetD8": true, "hipMemsetD16": true, "hipMemsetD32": true,
}

// SyncCalls returns the names IsSync accepts, sorted: for --help and
// tests.
func SyncCalls() []string {
	return slices.Sorted(maps.Keys(syncCalls))
}

// IsSync reports whether an API call blocks the host until device work is
// done (see syncCalls). A version suffix (_v2, _v3020, _ptsz, _ptds) is
// ignored.
func IsSync(name string) bool {
	// Summaries ask this of every API call, most of them launches: a
	// name's length and last byte turn away nearly all others before any
	// hashing.
	if !syncShape(name) {
		if strings.IndexByte(name, '_') < 0 {
			return false
		}
		if name = apiBase(name); !syncShape(name) {
			return false
		}
	}
	return syncCalls[name] || syncCalls[apiBase(name)]
}

// syncShapes marks the (length, last byte) of each of syncCalls.
var syncShapes = func() (t [64][256]bool) {
	for n := range syncCalls {
		t[len(n)][n[len(n)-1]] = true
	}
	return t
}()

// syncShape reports whether name could be one of syncCalls by its length
// and last byte (a name of 64 bytes or more could: it is looked up).
func syncShape(name string) bool {
	n := len(name)
	return n >= len(syncShapes) || n > 0 && syncShapes[n][name[n-1]]
}

// apiBase strips the suffixes that name a variant of the same call:
// the driver's _v2/_v3, the runtime's _v3020 (when a reader left it) and
// the per-thread default stream's _ptsz/_ptds.
func apiBase(name string) string {
	for {
		i := strings.LastIndexByte(name, '_')
		if i < 0 {
			return name
		}
		suf := name[i+1:]
		switch {
		case suf == "ptsz" || suf == "ptds":
		case len(suf) > 1 && suf[0] == 'v' && strings.Trim(suf[1:], "0123456789") == "":
		default:
			return name
		}
		name = name[:i]
	}
}

// launchIndex maps correlation ids to API calls.
type launchIndex struct {
	t     *trace.Trace
	calls *corrTable[int32] // → index in t.APICalls
	// dups counts the API calls whose correlation key an earlier call
	// has: merged or multi-process Kineto traces repeat ids. The last
	// call of a key is the one its device work is matched to.
	dups int
}

func newLaunchIndex(t *trace.Trace) launchIndex {
	ix := launchIndex{t: t, calls: newCorrTable[int32](func(yield func(corrKey) bool) {
		for i := range t.APICalls {
			if c := &t.APICalls[i]; c.Correlation != 0 && !yield(keyOf(t, c.PID, c.Correlation)) {
				return
			}
		}
	})}
	for i := range t.APICalls {
		if c := &t.APICalls[i]; c.Correlation != 0 {
			v, existed := ix.calls.put(keyOf(t, c.PID, c.Correlation))
			if existed {
				ix.dups++
			}
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

// LaunchStats describes how the host fed one device. A launch is a kernel
// launch call (IsKernelLaunch, "eager") or a graph launch call
// (IsGraphLaunch) whose kernels ran on the device, matched on correlation
// id.
type LaunchStats struct {
	Launches      int   // eager kernel launch calls
	GraphLaunches int   // graph launch calls
	LaunchNS      int64 // CPU time in those calls, eager and graph
	// MeanLaunchNS is the CPU cost of a launch: LaunchNS / (Launches +
	// GraphLaunches).
	MeanLaunchNS float64
	// MedianLaunchNS is the median CPU time of a launch call: what one
	// launch costs, which a few calls loading modules do not move.
	MedianLaunchNS float64
	// SlowLaunches counts the launch calls of SlowLaunchNS or more, and
	// SlowLaunchNS is their CPU time; SlowestLaunch names the longest,
	// of SlowestLaunchNS.
	SlowLaunches     int
	SlowLaunchNS     int64
	SlowestLaunch    string
	SlowestLaunchNS  int64
	LaunchedKernels  int     // kernels matched to one of those calls
	GraphKernels     int     // of which replayed by graph launches
	GraphKernelNS    int64   // the sum of the durations of those
	KernelsPerLaunch float64 // (LaunchedKernels − GraphKernels) / Launches: eager launches only
	// KernelsPerGraphLaunch is GraphKernels / GraphLaunches: the kernels a
	// graph replays.
	KernelsPerGraphLaunch float64
	// StartDelayMedianNS and StartDelayP90NS: GPU start of the first
	// kernel of a launch − the launch call's start. This includes the time
	// the kernel waited behind work already queued: a CPU running further
	// ahead of the GPU makes it longer.
	StartDelayMedianNS float64
	StartDelayP90NS    int64
	// QueueDelayMedianNS and QueueDelayP90NS: GPU start of the first
	// kernel of a launch − the end of the launch call (HTA's
	// launch_delay); negative when the kernel starts before the call
	// returns.
	QueueDelayMedianNS float64
	QueueDelayP90NS    int64
	// Inverted counts launches whose first kernel starts before the call
	// does, which no real launch can: a correlation id shared by two
	// calls, or clocks out of step. They are left out of the delays.
	Inverted int
}

// launches computes a device's launch statistics, joining kernels to API
// calls on correlation id (within one process), and in what the rules read of
// launches: kernels with no launch call, kernels launched inside
// optimizer steps (h.optimizer).
func launches(t *trace.Trace, dev int, ix launchIndex, in *findingInputs, h *findingRanges) LaunchStats {
	var s LaunchStats
	// Kernels are sorted by start, so the first kernel of a call met is its
	// earliest: a bit a call says whether it was met.
	met := make([]uint64, (len(t.APICalls)+63)/64)
	n := min(len(t.APICalls), len(t.Kernels))
	start, queue, calls := make([]int64, 0, n), make([]int64, 0, n), make([]int64, 0, n)
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		ci := ix.call(&k.Activity)
		if ci < 0 {
			if len(t.APICalls) > 0 {
				in.noLaunch.add(k.Dur(), 0)
			}
			continue
		}
		c := &t.APICalls[ci]
		graph := IsGraphLaunch(c.Name)
		if !graph && !IsKernelLaunch(c.Name) {
			continue
		}
		if len(h.optimizer) > 0 && inUnion(h.optimizer, c.Start) {
			in.optimizer.add(k.Dur(), 0)
			in.multiTensor = in.multiTensor || isMultiTensorKernel(k.Name)
		}
		s.LaunchedKernels++
		if graph {
			s.GraphKernels++
			s.GraphKernelNS += k.Dur()
		}
		if w, bit := ci/64, uint64(1)<<(ci%64); met[w]&bit == 0 {
			met[w] |= bit
			if graph {
				s.GraphLaunches++
			} else {
				s.Launches++
			}
			cns := c.End - c.Start
			s.LaunchNS += cns
			calls = append(calls, cns)
			if cns >= SlowLaunchNS {
				s.SlowLaunches++
				s.SlowLaunchNS += cns
				if cns > s.SlowestLaunchNS {
					s.SlowestLaunch, s.SlowestLaunchNS = c.Name, cns
				}
			}
			if k.Start < c.Start {
				s.Inverted++
				continue
			}
			start = append(start, k.Start-c.Start)
			queue = append(queue, k.Start-c.End)
		}
	}
	if n := s.Launches + s.GraphLaunches; n > 0 {
		s.MeanLaunchNS = float64(s.LaunchNS) / float64(n)
		s.MedianLaunchNS, _ = quantiles(calls)
	}
	if s.Launches > 0 {
		s.KernelsPerLaunch = float64(s.LaunchedKernels-s.GraphKernels) / float64(s.Launches)
	}
	if s.GraphLaunches > 0 {
		s.KernelsPerGraphLaunch = float64(s.GraphKernels) / float64(s.GraphLaunches)
	}
	if len(start) > 0 {
		var p90 []int64
		s.StartDelayMedianNS, p90 = quantiles(start, 90)
		s.StartDelayP90NS = p90[0]
		s.QueueDelayMedianNS, p90 = quantiles(queue, 90)
		s.QueueDelayP90NS = p90[0]
	}
	return s
}

// Gap classes.
const (
	GapSync   = "sync"   // a host synchronization was in progress
	GapLaunch = "launch" // the call that launched the next GPU work began after the GPU went idle, or was still running then
	GapOther  = "other"  // the next GPU work had been launched already, or its launch is not in the trace
)

// A ClassifiedGap is an idle gap of a device with its time by cause:
// SyncNS + LaunchNS + OtherNS = Len().
type ClassifiedGap struct {
	Device int
	// Stream is the stream whose gap this is when PerStream
	// (ClassifyStreamGaps); a device's gaps (ClassifyGaps) have none.
	Stream    int64
	PerStream bool
	Interval
	SyncNS, LaunchNS, OtherNS int64
	// GraphLaunch says that LaunchNS waits on a graph launch: the call
	// that launched the work ending the gap replays a CUDA graph.
	GraphLaunch bool
	// SlowLaunch says that LaunchNS waits on a launch call of
	// SlowLaunchNS or more: module loading, not launch overhead.
	SlowLaunch bool
	// StreamWaitNS is the time of the gap during which one of the
	// device's streams waits on an event (a Stream Wait sync record): the
	// queued work waits on that event, whatever the host does.
	StreamWaitNS int64
	// OtherUnlinkedNS is OtherNS when the GPU work that ends the gap has
	// no launch call in the trace, else 0.
	OtherUnlinkedNS int64
	// OtherOutsideStepsNS is the part of OtherNS outside every step
	// window given to classifyGaps: idle between profiled steps.
	OtherOutsideStepsNS int64
}

// Class is the class holding the most of the gap's time; ties go to sync,
// then launch.
func (g ClassifiedGap) Class() string {
	switch {
	case g.SyncNS >= g.LaunchNS && g.SyncNS >= g.OtherNS && g.SyncNS > 0:
		return GapSync
	case g.LaunchNS >= g.OtherNS && g.LaunchNS > 0:
		return GapLaunch
	}
	return GapOther
}

// ClassifyGaps attributes the time of each idle gap of each device with
// GPU activity, by device, then in time order. Time during which a host
// synchronization (IsSync calls, and the device's sync records other than
// stream waits) is in progress is sync. The rest of a gap is launch when
// the API call that launched the GPU work ending the gap began after the
// gap did, or was still running when it began (the CPU was late), else
// other. A sync call that ends just after
// the GPU drains claims only the time it overlaps, not the host time that
// follows it.
func ClassifyGaps(t *trace.Trace) []ClassifiedGap {
	var out []ClassifiedGap
	classifyAll(t, newLaunchIndex(t), hostSyncs(t), func(g ClassifiedGap) { out = append(out, g) })
	return out
}

// classifyAll classifies the gaps of each device of t with the launch
// index and host syncs of t, or of the trace t is a view of (a view keeps
// every API call).
func classifyAll(t *trace.Trace, ix launchIndex, syncs syncSet, class func(ClassifiedGap)) {
	for dev, v := range DeviceViews(t) {
		classifyGaps(v, dev, ix, syncs, Gaps(deviceBusy(v, dev)), nil, nil, class)
	}
}

// ClassifyStreamGaps is ClassifyGaps for each stream of each device
// alone, HTA's per-stream idle time: the gaps between the merged activity
// of one stream, classified by the same rules (a host sync idles every
// stream; a late launch the stream it launches on), by device, stream,
// then time. A gap of one stream may be busy time of the device.
func ClassifyStreamGaps(t *trace.Trace) []ClassifiedGap {
	var streams []int64
	t.EachGPUActivity(func(a *trace.Activity) { streams = append(streams, a.Stream) })
	slices.Sort(streams)
	var out []ClassifiedGap
	ix, syncs := newLaunchIndex(t), hostSyncs(t)
	for _, s := range slices.Compact(streams) {
		v := t.Filter(trace.Filter{Stream: func(x int64) bool { return x == s }})
		v.Syncs = t.Syncs // the host waits, whichever stream it waits on
		classifyAll(v, ix, syncs, func(g ClassifiedGap) {
			g.Stream, g.PerStream = s, true
			out = append(out, g)
		})
	}
	slices.SortStableFunc(out, func(a, b ClassifiedGap) int {
		return cmp.Or(cmp.Compare(a.Device, b.Device), cmp.Compare(a.Stream, b.Stream), cmp.Compare(a.Start, b.Start))
	})
	return out
}

// A syncSet is the trace's blocking host calls (IsSync), sorted by
// start, with the process of each.
type syncSet struct {
	ivs  []Interval
	pids []int64
	// calls marks the blocking calls by index in t.APICalls, a bit each:
	// the summary asks of every copy and memset whether its call blocks,
	// and a bit read spares reading the call's name and matching it.
	calls []uint64
}

// blocks reports whether API call i is one of the set.
func (s *syncSet) blocks(i int) bool {
	return i>>6 < len(s.calls) && s.calls[i>>6]&(1<<(i&63)) != 0
}

// hostSyncs returns t's blocking host calls.
func hostSyncs(t *trace.Trace) syncSet {
	syncs, _ := hostCalls(t)
	return syncs
}

// A longCall is a host API call of SlowLaunchNS or more that does not
// synchronize: what the host sat inside while the GPU idled, named in the
// verdict (a launch loading a module, cudaFree, hipMalloc…).
type longCall struct {
	Interval
	Name string
}

// hostCalls returns the intervals of t's blocking host calls (IsSync) and
// its long calls (longCall), each sorted by start, in one pass.
func hostCalls(t *trace.Trace) (syncs syncSet, long []longCall) {
	// Runs of one name are common (a launch after a launch), and a reader
	// gives equal names one string: == then sees the same pointer.
	last, sync := "", false
	for i := range t.APICalls {
		c := &t.APICalls[i]
		if c.Name != last {
			last, sync = c.Name, IsSync(c.Name)
		}
		if sync {
			syncs.ivs = append(syncs.ivs, Interval{c.Start, c.End})
			syncs.pids = append(syncs.pids, c.PID)
			if syncs.calls == nil {
				syncs.calls = make([]uint64, (len(t.APICalls)+63)/64)
			}
			syncs.calls[i>>6] |= 1 << (i & 63)
		} else if c.End-c.Start >= SlowLaunchNS {
			long = append(long, longCall{Interval{c.Start, c.End}, c.Name})
		}
	}
	return syncs, long
}

// classifyGaps calls class with each of gaps, the idle gaps of device dev
// in order, classified: the summary needs only their sums. host are the
// trace's hostSyncs; steps, when not empty, the union of the step windows.
// syncs, when not nil, is told the union of the syncs that idle the
// device before the first gap is classified (splitStepIdle needs where
// in a gap its sync time lies).
// Where correlation ids are per process (Nsight, one process a GPU or
// more), a host sync idles only the devices its own process runs work
// on: another rank's sync does not make this GPU wait.
func classifyGaps(t *trace.Trace, dev int, ix launchIndex, host syncSet, gaps, steps []Interval, deviceSyncs func([]Interval), class func(ClassifiedGap)) {
	if len(gaps) == 0 {
		return
	}
	// next[i] is the activity that ends gap i: one starting at its end, and
	// of those the first with a launching call. Activities come in runs
	// sorted by start, so a cursor finds the gap, sought again when a new
	// run begins.
	next := make([]*trace.Activity, len(gaps))
	var pids map[int64]bool // the processes of the device's work, when per process
	if t.Meta.CorrelationPerProcess {
		pids = map[int64]bool{}
	}
	j := 0 // gaps[:j] end before the last start seen
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Device != dev {
			return
		}
		if pids != nil {
			pids[a.PID] = true
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
	var syncs []Interval
	if len(pids) == 0 || pids[0] { // a process unknown: every sync counts
		syncs = slices.Clone(host.ivs)
	} else {
		for i, iv := range host.ivs {
			if pids[host.pids[i]] {
				syncs = append(syncs, iv)
			}
		}
	}
	var waits []Interval
	for i := range t.Syncs {
		// A stream wait (cudaStreamWaitEvent) makes a stream wait on the
		// device; the host call returns at once.
		if s := &t.Syncs[i]; s.Device == dev {
			if strings.HasPrefix(s.Kind, "Stream Wait") {
				waits = append(waits, Interval{s.Start, s.End})
			} else {
				syncs = append(syncs, Interval{s.Start, s.End})
			}
		}
	}
	syncs, waits = union(syncs), union(waits)
	if deviceSyncs != nil {
		deviceSyncs(syncs)
	}
	// Other time is what neither a sync nor a step window covers.
	var covered []Interval
	if len(steps) > 0 {
		covered = union(append(slices.Clip(syncs), steps...))
	}
	k, kc := 0, 0 // syncs[:k] and covered[:kc] end by the time gap i starts
	for i, g := range gaps {
		for k < len(syncs) && syncs[k].End <= g.Start {
			k++
		}
		c := ClassifiedGap{Device: dev, Interval: g}
		if len(waits) > 0 {
			c.StreamWaitNS = overlapLen(waits, g)
		}
		// A sync may reach into the gaps after this one: k stays.
		for _, s := range syncs[k:] {
			if s.Start >= g.End {
				break
			}
			c.SyncNS += min(s.End, g.End) - max(s.Start, g.Start)
		}
		rest := g.Len() - c.SyncNS
		if rest == 0 { // all sync: the launch does not matter
			class(c)
			continue
		}
		ci := -1
		if next[i] != nil {
			ci = ix.call(next[i])
		}
		// The GPU waits on the launch when its call began after the GPU
		// went idle, or was still running then: a kernel is submitted
		// within its call, so one in progress has not reached the GPU.
		if ci >= 0 && t.APICalls[ci].End > g.Start {
			call := &t.APICalls[ci]
			c.LaunchNS = rest
			c.GraphLaunch = IsGraphLaunch(call.Name)
			c.SlowLaunch = call.End-call.Start >= SlowLaunchNS
		} else {
			c.OtherNS = rest
			if ci < 0 {
				c.OtherUnlinkedNS = rest
			}
			if covered != nil {
				// A cursor, as for syncs: lengthIn's search a gap cost
				// more than the rest of the classification.
				for kc < len(covered) && covered[kc].End <= g.Start {
					kc++
				}
				in := int64(0)
				for _, cv := range covered[kc:] {
					if cv.Start >= g.End {
						break
					}
					in += min(cv.End, g.End) - max(cv.Start, g.Start)
				}
				c.OtherOutsideStepsNS = g.Len() - in
			}
		}
		class(c)
	}
}
