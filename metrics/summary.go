package metrics

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"

	"github.com/traceql/traceql/trace"
)

// A Summary is what `traceql summarize` reports for one trace.
type Summary struct {
	Source string
	// Label names the run in tables (the label column), as the command
	// that read it was told (--label) or derived from the path; metrics
	// leaves it "".
	Label string
	// Window names the part of the trace measured (trace.Window's
	// Label); "" for the whole trace.
	Window  string
	Format  trace.Format
	Version string
	// VersionIsSchema says that Version numbers the trace's schema
	// (trace.Meta.VersionIsSchema).
	VersionIsSchema bool
	Rank            int // -1 when unknown
	// WorldSize is the job's number of ranks (distributedInfo); 0 when
	// unknown.
	WorldSize int
	Devices   []DeviceSummary // devices with GPU activity, by ID
	Host      HostSummary
	// Compile is what the trace says of torch.compile on the host; each
	// device's Compile holds it too, with its kernels' side.
	Compile CompileStats
	// CompileLog is a structured compile log joined to the trace's
	// compiled regions (JoinCompileLog), when the command was given one.
	CompileLog *CompileJoin
	// APIStats and RangeStats are the host API calls and the ranges
	// (annotations, NVTX) by name, when Options asked for them.
	APIStats, RangeStats []NameDist
	// Capture says how the graph launches matched Options.Capture; nil
	// without one.
	Capture  *CaptureStats
	Warnings []string
}

// A DeviceSummary holds the metrics of one device; see Definitions.
type DeviceSummary struct {
	Device  int
	Name    string
	Streams int
	Window  string // the Summary's Window, for the window column
	// Partial: only some of the device's kernels or streams are measured
	// (trace.Trace.Partial), so its idle time is not time it sat idle.
	Partial bool

	Kernels        int
	KernelNS       int64
	KernelMeanNS   float64
	KernelMedianNS float64
	KernelMinNS    int64
	KernelP90NS    int64
	KernelP99NS    int64
	KernelMaxNS    int64
	KernelBusyNS   int64

	StartNS, EndNS int64 // first activity start, last activity end
	SpanNS         int64
	BusyNS         int64
	IdleNS         int64
	IdleGaps       int
	LargestGapNS   int64
	GapHist        []Bin
	GPUUtil        float64

	H2D, D2H CopyStat
	Copies   []CopyStat // by kind and memory kinds, for every copy kind present

	Memsets     int
	MemsetBytes int64
	MemsetNS    int64

	TopKernels []KernelStat
	// KernelDists are all kernel names' statistics, with median and
	// standard deviation, when Options.KernelDists asked for them.
	KernelDists []KernelDist
	// StreamStats are the device's streams' numbers, when
	// Options.StreamStats asked for them.
	StreamStats []StreamStat
	// Ops and Regions are the device's GPU time by the host op and the
	// code region that launched it, when Options.Scopes asked for them.
	Ops, Regions []ScopeStat
	// Util is the device's FLOPs against its peak, with Ops; nil without.
	Util *Utilization

	// Classes split BusyNS by what the device is busy with (see
	// BusyClasses); Classes[ClassCompute] is Comm.ComputeNS.
	Classes BusyClasses

	Launch  LaunchStats
	Compile DeviceCompile
	Comm    CommStat
	Steps   []StepStat // ProfilerStep#N windows measured on this device
	// PerStep, when > 0, is the number of steps that Column.Get divides
	// the metrics that add up over steps by (PerStepMetric); 0: totals.
	// Summarize leaves it 0; SetPerStep sets it for a comparison.
	PerStep int
	// StepMedianNS is the median length of Steps; 0 without steps.
	StepMedianNS float64
	// GraphsStepNS is the median step Replay projects under CUDA graphs
	// (Edits.Graphs) for a launch-bound device with steps; 0 otherwise.
	GraphsStepNS float64
	// Idle time by cause (see ClassifyGaps): IdleLaunchNS + IdleSyncNS +
	// IdleOtherNS = IdleNS.
	IdleLaunchNS, IdleSyncNS, IdleOtherNS int64
	// ShortLaunchGaps counts the gaps shorter than 1 ms with launch time,
	// and ShortLaunchNS is their launch time: launch overhead rather than
	// a host busy elsewhere, what CUDA graphs can remove.
	ShortLaunchGaps int
	ShortLaunchNS   int64
	// ShortGraphLaunchNS is the part of ShortLaunchNS that waits on graph
	// launches: host time between replays, which graphs do not remove.
	ShortGraphLaunchNS int64
	// What IdleOtherNS is: the part before GPU work whose launch call is
	// not in the trace, and the part outside every step window (between
	// profiled steps; 0 without steps).
	IdleOtherUnlinkedNS, IdleOtherOutsideStepsNS int64
	// IdleSlowLaunchNS is the part of IdleLaunchNS that waits on a launch
	// call of SlowLaunchNS or more: module loading, not launch overhead.
	IdleSlowLaunchNS int64
	// IdleStreamWaitNS is the idle time during which one of the device's
	// streams waits on an event (ClassifiedGap.StreamWaitNS), and
	// LongestStreamWaitNS the longest such wait met.
	IdleStreamWaitNS int64
	// HostCall names the host API call, other than a sync, inside which
	// the host sat for the most idle time of the gaps of SlowLaunchNS or
	// more not wholly in syncs, counting its calls of SlowLaunchNS or more (a launch loading a module,
	// cudaFree, hipMalloc…); HostCallIdleNS is that time, and
	// HostCallMaxNS its longest call. "" when none.
	HostCall                      string
	HostCallIdleNS, HostCallMaxNS int64

	// Findings are what the rules (Rules) found on the device, the most
	// severe first.
	Findings []Finding

	// Gaps (Options.Gaps) are the idle gaps classified, in time order,
	// as ClassifyGaps gives them but for OtherOutsideStepsNS, which only
	// the summary, knowing the steps, measures. Timeline
	// (Options.TimelineBins) is the device's utilization timeline.
	Gaps     []ClassifiedGap
	Timeline []Point
}

// A CopyStat aggregates memcpys of one kind (and, in Copies, one pair of
// memory kinds).
type CopyStat struct {
	Kind     string // HtoD, DtoH, …
	Src, Dst string // memory kinds ("Pageable", "Device"); "" in the H2D/D2H totals
	Copies   int
	Bytes    int64
	NS       int64   // sum of copy durations
	GBps     float64 // Bytes / NS, GB = 1e9 B; 0 without copies
}

// A KernelStat aggregates the kernels of one name on one device.
type KernelStat struct {
	Name    string
	Count   int
	TotalNS int64
	MeanNS  float64
	MinNS   int64
	MaxNS   int64
	Share   float64 // TotalNS / the device's kernel_ns
}

// A Bin is one bucket of a histogram: Count values in [Lo, Hi) ns (Hi = 0:
// no upper bound).
type Bin struct {
	Lo, Hi int64
	Count  int
	SumNS  int64
}

// HostSummary describes the CPU side: what is left to say for a trace
// without GPU activity. Summarize leaves it empty for a trace with some,
// unless Options.Host asks for it.
type HostSummary struct {
	Ops      int // cpu_op events
	APICalls int // runtime and driver calls
	Launches int // of which kernel and graph launches
	TopOps   []OpStat
	// AllOps are the cpu_ops of every name, by total time, longest first,
	// ties by name: what compare pairs runs' ops by.
	AllOps []OpStat
	HostTimeline
}

// An OpStat aggregates host ops of one name.
type OpStat struct {
	Name    string
	Count   int
	TotalNS int64
	SelfNS  int64 // total minus time in ops nested directly inside, same thread
}

// Options tune Summarize.
type Options struct {
	TopN int // top kernels and ops listed; 0 means 10
	// NoProjection leaves out the --graphs projection of a launch-bound
	// device (DeviceSummary.GraphsStepNS, a replay of its steps), which
	// only the verdict sentence shows: for outputs without it.
	NoProjection bool
	// KernelDists asks for every kernel name's statistics with median and
	// standard deviation (DeviceSummary.KernelDists): a pass over the
	// device's kernels that keeps their durations, so only when asked.
	KernelDists bool
	// StreamStats, APIStats and RangeStats ask for each device's
	// per-stream numbers and for the trace's host API calls and ranges by
	// name (DeviceSummary.StreamStats, Summary.APIStats, .RangeStats).
	StreamStats, APIStats, RangeStats bool
	// Scopes asks for each device's GPU time by host op and by code
	// region (DeviceSummary.Ops, .Regions) and for the ops launching the
	// kernels outside compiled code (DeviceCompile.TopEagerOps): the trace
	// must hold its cpu_ops, which a lean read leaves out.
	Scopes bool
	// Flops asks, with Scopes, for each device's FLOPs against its peaks
	// (DeviceSummary.Util) and each step's FLOPs (StepStat.Flops): the
	// read must have kept the ops' shapes (trace.Needs.Shapes), without
	// which every op would look uncounted. Peak overrides the peaks of
	// the table (peakOf) that Util divides by.
	Flops bool
	Peak  PeakOverride
	// Capture, with Scopes, names the kernels of graph launches by the
	// launch calls that captured them (Capture.Match); nil leaves them
	// under their graph launch.
	Capture *Capture
	// Gaps asks for each device's idle gaps, classified
	// (DeviceSummary.Gaps), and TimelineBins > 0 for its utilization
	// timeline in that many bins (DeviceSummary.Timeline): what the
	// summary computes on the way, kept instead of computed again.
	Gaps         bool
	TimelineBins int
	// Host asks for the host side (Summary.Host) of a trace with GPU
	// activity too, which only a trace without any gets otherwise: its
	// ops' total and self times, to compare runs' host ops.
	Host bool
	// Workers is the most devices summarized at once, each by a goroutine
	// of its own; 0 or 1: one after another. The program decides how
	// many cores a summary may take (cmd/traceql: GOMAXPROCS), not
	// metrics.
	Workers int
}

// Summarize computes the per-device metrics of t.
func Summarize(t *trace.Trace, o Options) Summary {
	if o.TopN == 0 {
		o.TopN = 10
	}
	s := Summary{
		Source:          t.Source,
		Format:          t.Meta.Format,
		Version:         t.Meta.Version,
		VersionIsSchema: t.Meta.VersionIsSchema,
		Rank:            t.Meta.Rank,
		WorldSize:       t.Meta.WorldSize,
		Warnings:        t.Warnings,
	}
	s.Window = windowLabel(t)
	var wg sync.WaitGroup
	var w sharedInputs
	var prep sync.WaitGroup
	prep.Go(func() { w.ix = newLaunchIndex(t) })
	prep.Go(func() {
		var warn string
		w.steps, warn = steps(t)
		if warn != "" {
			s.Warnings = append(slices.Clip(s.Warnings), warn)
		}
		w.stepOps = gpuStepOps(t)
		w.host = collectHostRanges(t)
		w.syncs, w.long = hostCalls(t)
		w.compile = compileOps(t)
		w.find = w.compile.find
	})
	// The host side is what a trace without GPU activity has to show, and
	// only such a trace's report shows it; walking a GPU trace's ops for
	// their self times would be much of a summary's work, for nothing
	// (BenchmarkSummarize/real tells). When needed, it is computed while
	// the devices' inputs are built.
	devs := activeDevices(t)
	if len(devs) == 0 || o.Host {
		wg.Go(func() { s.Host = summarizeHost(t, o.TopN) })
	}
	prep.Wait()
	s.Compile = w.compile.stats
	var named *CaptureMatch
	if o.Scopes && o.Capture != nil {
		named = o.Capture.Match(t)
		s.Capture = &named.Stats
		s.Warnings = append(slices.Clip(s.Warnings), named.Stats.Warnings()...)
	}
	s.Devices = make([]DeviceSummary, len(devs))
	// Each worker has a viewer of its own: the views' copies hold as many
	// devices' records as there are workers, not all.
	views := newViewer(t, devs)
	next := make(chan int)
	for range min(max(o.Workers, 1), len(devs)) {
		wg.Go(func() {
			b := views.fork()
			for i := range next {
				v := b.view(devs[i].ID)
				s.Devices[i] = summarizeDevice(v, devs[i], o, &w)
				if !o.NoProjection {
					projectGraphs(t, &s.Devices[i], &w.ix)
				}
				if o.KernelDists {
					s.Devices[i].KernelDists = KernelDists(v, devs[i].ID)
				}
				if o.StreamStats {
					s.Devices[i].StreamStats = StreamStats(v, devs[i].ID)
				}
				if o.Scopes {
					d := &s.Devices[i]
					var work []instanceWork
					d.Ops, d.Regions, work = scopes(v, devs[i].ID, named)
					if o.Flops {
						u := deviceUtilization(d, o.Peak)
						d.Util = &u
						stepFlops(d.Steps, work)
					}
					d.Compile.TopEagerOps = eagerOps(v, devs[i].ID, w.ix, &w.compile, d.KernelNS, o.TopN)
				}
			}
		})
	}
	for i := range devs {
		next <- i
	}
	close(next)
	wg.Wait()
	if n := s.Host.Launches; len(devs) == 0 && n > 0 {
		s.Warnings = append(slices.Clip(s.Warnings), fmt.Sprintf("%s recorded, but no kernel, memcpy or memset "+
			"event: was the CUPTI activity lost (its buffers full, or the profiler stopped before they were flushed)?", Plural(n, "kernel launches")))
	}
	if n := w.ix.dups; n > 0 {
		s.Warnings = append(slices.Clip(s.Warnings), fmt.Sprintf("API calls sharing their correlation id with an earlier call: %d; "+
			"device work is matched to the last call of each id", n))
	}
	if w := flopsArgWarnings(s.Devices); len(w) > 0 {
		s.Warnings = append(slices.Clip(s.Warnings), w...)
	}
	for _, d := range s.Devices {
		if n := d.Launch.Inverted; n > 0 {
			s.Warnings = append(slices.Clip(s.Warnings), fmt.Sprintf("GPU %d: launches whose first kernel starts before the launch "+
				"call (a shared correlation id, or clocks out of step), left out of the queue delay: %d", d.Device, n))
		}
	}
	if o.APIStats {
		s.APIStats = APIStats(t)
	}
	if o.RangeStats {
		s.RangeStats = RangeStats(t)
	}
	return s
}

// windowLabel names what part of t is measured: its window, and which
// device records a filter kept; "" for all of it.
func windowLabel(t *trace.Trace) string {
	var w string
	if t.Window != nil {
		w = t.Window.Label
	}
	if t.Only != "" {
		w = cmp.Or(w, "whole") + "; only " + t.Only
	}
	return w
}

// sharedInputs are what every device's summary reads of the whole trace,
// found once for all of them.
type sharedInputs struct {
	ix      launchIndex
	steps   []Step               // Steps
	stepOps map[int64][]trace.Op // gpuStepOps
	syncs   syncSet              // hostCalls
	long    []longCall           // hostCalls
	compile compileInputs        // compileOps
	host    hostRanges           // collectHostRanges
	find    findingRanges        // compileOps
}

// A viewer makes views of one device of a trace at a time: t with only
// that device's kernels, copies, memsets and syncs (in their order), and
// all of its host records. Each device's summary then reads its own
// records, not every device's, eight times over for eight GPUs. The
// records are copies, into buffers the viewer reuses for the next
// device's view. A trace of one GPU is its own view.
type viewer struct {
	t   *trace.Trace
	pos map[int]int // device ID → its place in the index lists
	// The indices of each device's records, by place.
	kernels, memcpys, memsets, syncs [][]int32
	// The buffers of the last view.
	k []trace.Kernel
	c []trace.Memcpy
	m []trace.Memset
	s []trace.Sync
}

// newViewer finds the records of each of devs, t's devices with activity,
// in one pass over each table.
func newViewer(t *trace.Trace, devs []trace.Device) *viewer {
	b := &viewer{t: t, pos: make(map[int]int, len(devs))}
	if len(devs) == 1 {
		return b
	}
	for i, d := range devs {
		b.pos[d.ID] = i
	}
	b.kernels = indexByDevice(t.Kernels, b.pos, func(k *trace.Kernel) int { return k.Device })
	b.memcpys = indexByDevice(t.Memcpys, b.pos, func(m *trace.Memcpy) int { return m.Device })
	b.memsets = indexByDevice(t.Memsets, b.pos, func(m *trace.Memset) int { return m.Device })
	b.syncs = indexByDevice(t.Syncs, b.pos, func(s *trace.Sync) int { return s.Device })
	return b
}

// view returns the view of device dev; it holds until the next call. A
// viewer made for one device returns the trace itself. Views made at once
// need viewers of their own (see fork).
func (b *viewer) view(dev int) *trace.Trace {
	if len(b.pos) == 0 {
		return b.t
	}
	p := b.pos[dev]
	b.k, b.c = gather(b.k, b.t.Kernels, b.kernels[p]), gather(b.c, b.t.Memcpys, b.memcpys[p])
	b.m, b.s = gather(b.m, b.t.Memsets, b.memsets[p]), gather(b.s, b.t.Syncs, b.syncs[p])
	v := *b.t
	v.Kernels, v.Memcpys, v.Memsets, v.Syncs = b.k, b.c, b.m, b.s
	return &v
}

// DeviceViews yields each device of t that has GPU activity, in ID order,
// with a view of t holding only that device's kernels, copies, memsets and
// syncs, and all of t's host records: functions that take a device then
// read its records alone, not every device's. A view is valid until the
// next is yielded.
func DeviceViews(t *trace.Trace) iter.Seq2[int, *trace.Trace] {
	return func(yield func(int, *trace.Trace) bool) {
		devs := activeDevices(t)
		b := newViewer(t, devs)
		for _, d := range devs {
			if !yield(d.ID, b.view(d.ID)) {
				return
			}
		}
	}
}

// fork returns a viewer sharing b's indices, with buffers of its own.
func (b *viewer) fork() *viewer {
	return &viewer{t: b.t, pos: b.pos, kernels: b.kernels, memcpys: b.memcpys, memsets: b.memsets, syncs: b.syncs}
}

// indexByDevice returns, for each place in pos (device ID → place), the
// indices of the records of xs on that device, in order. The places of the
// records are found once, in one slice, then counted and spread. int32
// indices suffice: 2³¹ records would take over 128 GB.
func indexByDevice[T any](xs []T, pos map[int]int, device func(*T) int) [][]int32 {
	place := make([]int32, len(xs))
	n := make([]int, len(pos))
	for i := range xs {
		p, ok := pos[device(&xs[i])]
		if !ok {
			p = -1
		} else {
			n[p]++
		}
		place[i] = int32(p)
	}
	out := make([][]int32, len(pos))
	for p := range out {
		out[p] = make([]int32, 0, n[p])
	}
	for i, p := range place {
		if p >= 0 {
			out[p] = append(out[p], int32(i))
		}
	}
	return out
}

// gather copies the records of xs at idx into buf, grown if need be.
func gather[T any](buf, xs []T, idx []int32) []T {
	out := slices.Grow(buf[:0], len(idx))
	for _, i := range idx {
		out = append(out, xs[i])
	}
	return out
}

// activeDevices lists the devices with at least one kernel, memcpy or memset.
func activeDevices(t *trace.Trace) []trace.Device {
	seen := map[int]bool{}
	t.EachGPUActivity(func(a *trace.Activity) {
		if !seen[a.Device] {
			seen[a.Device] = true
		}
	})
	var out []trace.Device
	for _, d := range t.Devices {
		if seen[d.ID] {
			out = append(out, d)
		}
	}
	return out
}

// deviceBusy returns the union of the GPU activity intervals (kernels,
// memcpys, memsets, all streams) of one device, sorted and disjoint.
func deviceBusy(t *trace.Trace, dev int) []Interval {
	// Capacities are for a trace of one device, the common case: they
	// spare growing the slices, which costs more than the loops; and only
	// the pages of the unions are written. Each table is sorted by start;
	// the few copies and memsets are merged first, then into the space
	// left after the kernels, which are not copied again.
	m := make([]Interval, 0, len(t.Memsets))
	for i := range t.Memsets {
		if a := &t.Memsets[i].Activity; a.Device == dev {
			m = appendUnion(m, Interval{a.Start, a.End})
		}
	}
	c := make([]Interval, 0, len(t.Memcpys)+len(m))
	for i := range t.Memcpys {
		if a := &t.Memcpys[i].Activity; a.Device == dev {
			c = appendUnion(c, Interval{a.Start, a.End})
		}
	}
	c = mergeInto(c, m)
	k := make([]Interval, 0, len(t.Kernels)+len(c))
	for i := range t.Kernels {
		if a := &t.Kernels[i].Activity; a.Device == dev {
			k = appendUnion(k, Interval{a.Start, a.End})
		}
	}
	return unionSorted(mergeInto(k, c))
}

func summarizeDevice(t *trace.Trace, dev trace.Device, o Options, w *sharedInputs) DeviceSummary {
	d := DeviceSummary{Device: dev.ID, Name: dev.Name, Window: windowLabel(t), Partial: t.Partial}
	// Three independent parts, in parallel: launches, the timeline (busy,
	// gaps, steps), and the per-kernel and copy statistics.
	var wg sync.WaitGroup
	var in findingInputs
	wg.Go(func() { d.Launch = launches(t, dev.ID, w.ix, &in, &w.find) })
	wg.Go(func() { summarizeTimeline(t, &d, w, o, &in) })
	streams := map[int64]bool{}
	// Records of one stream come in runs: the map is asked only when the
	// stream changes.
	lastStream := int64(math.MinInt64)

	durs := make([]int64, 0, len(t.Kernels))
	names := newKernelAgg()
	var isComm, isFP32 []bool // by the names' indices
	// The unions of the kernel intervals by kind, made in order of start
	// as the kernels are sorted. They share one table that holds every
	// kernel: compute's fills it from the front, comm's from the back,
	// reversed when done. (In a trace of collectives only, comm grown by
	// doubling was copied, and its spare capacity cleared, over and over.)
	unions := make([]Interval, len(t.Kernels))
	compute, commAt := unions[:0], len(unions)
	// The unions by busy class; the copies' sized by a count first, as
	// growing them costs more than counting the few copies.
	var classes [NumClasses][]Interval
	var copies [NumClasses]int
	for i := range t.Memcpys {
		if m := &t.Memcpys[i]; m.Device == dev.ID {
			copies[copyClass(m.Kind)]++
		}
	}
	for c, n := range copies {
		classes[c] = make([]Interval, 0, n)
	}
	classes[ClassMemset] = make([]Interval, 0, len(t.Memsets))
	commKernels := 0
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev.ID {
			continue
		}
		if k.Stream != lastStream {
			streams[k.Stream], lastStream = true, k.Stream
		}
		dur := k.Dur()
		durs = append(durs, dur)
		j := names.add(k.Name, dur)
		if j == len(isComm) {
			isComm = append(isComm, isCommKernel(k.Name))
			isFP32 = append(isFP32, isFP32GEMM(k.Name))
		}
		if isFP32[j] {
			in.fp32.add(dur, 0)
		}
		if dur < tinyKernelNS {
			in.tiny++
		}
		if isComm[j] {
			if at := commAt; at < len(unions) && k.Start <= unions[at].End {
				unions[at].End = max(unions[at].End, k.End)
			} else {
				commAt--
				unions[commAt] = Interval{k.Start, k.End}
			}
			commKernels++
		} else {
			compute = appendUnion(compute, Interval{k.Start, k.End})
		}
	}
	comm := unions[commAt:]
	slices.Reverse(comm)
	compute = slices.Clip(compute)
	d.Kernels, d.KernelNS = len(durs), names.total
	if d.Kernels > 0 {
		d.KernelMeanNS = float64(d.KernelNS) / float64(d.Kernels)
		var pct []int64
		d.KernelMedianNS, pct = quantiles(durs, 0, 90, 99, 100)
		d.KernelMinNS, d.KernelP90NS, d.KernelP99NS, d.KernelMaxNS = pct[0], pct[1], pct[2], pct[3]
	}
	d.Comm = commStat(commKernels, comm, compute)
	// The union of all kernels, by inclusion–exclusion of its two parts.
	d.KernelBusyNS = d.Comm.NS + d.Comm.ComputeNS - d.Comm.OverlapNS
	all := names.done()
	d.TopKernels = top(all, o.TopN, longestFirst)
	if in.fp32.n > 0 {
		for _, k := range all {
			if isFP32GEMM(k.Name) {
				in.fp32Kernel(k)
			}
		}
	}

	var byKind copyKinds
	for i := range t.Memcpys {
		m := &t.Memcpys[i]
		if m.Device != dev.ID {
			continue
		}
		if m.Stream != lastStream {
			streams[m.Stream], lastStream = true, m.Stream
		}
		cs := byKind.of(m)
		if c := syncCall(t, w.ix, &w.syncs, &m.Activity); c != nil {
			in.syncCopy.add(c.End-c.Start, m.Bytes)
			in.syncCopyCalls = countName(in.syncCopyCalls, c.Name)
		}
		ci := copyClass(m.Kind)
		classes[ci] = appendUnion(classes[ci], Interval{m.Start, m.End})
		in.copies = append(in.copies, copyRec{Interval{m.Start, m.End}, m.Bytes, ci, m.Src == trace.Pageable || m.Dst == trace.Pageable})
		cs.Copies++
		cs.Bytes += m.Bytes
		cs.NS += m.Dur()
		if c := directionTotal(&d, m.Kind); c != nil {
			c.Copies++
			c.Bytes += m.Bytes
			c.NS += m.Dur()
		}
	}
	for _, cs := range byKind.stats {
		if cs.Src == "Pageable" || cs.Dst == "Pageable" {
			in.pageable.n += cs.Copies
			in.pageable.ns += cs.NS
			in.pageable.bytes += cs.Bytes
			if in.pageableNames == nil {
				in.pageableNames = map[string]int{}
			}
			in.pageableNames[cs.Kind+" ("+cs.Src+" -> "+cs.Dst+")"] += cs.Copies
		}
	}
	d.H2D.Kind, d.D2H.Kind = "HtoD", "DtoH"
	d.H2D.GBps, d.D2H.GBps = gbps(d.H2D.Bytes, d.H2D.NS), gbps(d.D2H.Bytes, d.D2H.NS)
	for _, cs := range byKind.stats {
		cs.GBps = gbps(cs.Bytes, cs.NS)
		d.Copies = append(d.Copies, *cs)
	}
	slices.SortFunc(d.Copies, func(a, b CopyStat) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst))
	})

	for i := range t.Memsets {
		m := &t.Memsets[i]
		if m.Device != dev.ID {
			continue
		}
		if m.Stream != lastStream {
			streams[m.Stream], lastStream = true, m.Stream
		}
		classes[ClassMemset] = appendUnion(classes[ClassMemset], Interval{m.Start, m.End})
		d.Memsets++
		if c := syncCall(t, w.ix, &w.syncs, &m.Activity); c != nil {
			in.syncMemset.add(c.End-c.Start, m.Bytes)
			in.syncMemsetCalls = countName(in.syncMemsetCalls, c.Name)
		}
		d.MemsetBytes += m.Bytes
		d.MemsetNS += m.Dur()
	}
	d.Streams = len(streams)
	classes[ClassCompute], classes[ClassComm] = compute, comm
	wg.Wait()
	ex := splitBusy(&d, classes)
	in.exposed = exposeCopies(in.copies, &ex)
	d.Compile = deviceCompile(t, dev.ID, w.ix, &w.compile, d.KernelNS, d.Launch.GraphKernelNS, o.TopN)
	d.Findings = deviceFindings(&d, dev, &in, &w.find, &w.compile.stats)
	return d
}

// summarizeTimeline fills in d's span, busy and idle time, gaps and steps.
func summarizeTimeline(t *trace.Trace, d *DeviceSummary, w *sharedInputs, o Options, in *findingInputs) {
	busy := deviceBusy(t, d.Device)
	parts := windowParts(t) // a --range's occurrences: only their time
	if parts != nil {
		busy = intersect(busy, parts)
	}
	d.Steps = stepStats(t, d.Device, deviceSteps(t, w.steps, w.stepOps[int64(d.Device)]), busy)
	var split hostSplitter
	for i := range d.Steps {
		s := &d.Steps[i]
		s.Host = split.split(busy, &w.host, Interval{s.Start, s.End})
	}
	lens := make([]int64, len(d.Steps))
	for i, st := range d.Steps {
		lens[i] = st.DurNS()
	}
	slices.Sort(lens)
	d.StepMedianNS = Median(lens)
	if len(busy) > 0 {
		d.StartNS, d.EndNS = busy[0].Start, busy[len(busy)-1].End
		d.SpanNS = d.EndNS - d.StartNS
		gaps := Gaps(busy)
		if parts != nil {
			d.SpanNS = length(clip(parts, Interval{d.StartNS, d.EndNS}))
			gaps = intersect(gaps, parts)
		}
		d.BusyNS = length(busy)
		d.IdleNS = d.SpanNS - d.BusyNS
		d.IdleGaps = len(gaps)
		d.GapHist = gapHistogram(gaps)
		for _, g := range gaps {
			d.LargestGapNS = max(d.LargestGapNS, g.Len())
		}
		var steps []Interval
		for _, st := range d.Steps {
			steps = append(steps, Interval{st.Start, st.End})
		}
		calls := newCallIdle(w.long)
		defer calls.done(d)
		dl := w.host[HostDataLoader]
		in.dataloaderAll = len(dl)
		lastDL := -1 // the DataLoader range last met, counted once
		idle := newStepIdle(d.Steps)
		classifyGaps(t, d.Device, w.ix, w.syncs, idle.gaps(gaps, busy), union(steps), idle.syncs, func(g ClassifiedGap) {
			if idle.add(g) {
				return // step time outside the span: no idle of the device
			}
			d.IdleSyncNS += g.SyncNS
			d.IdleLaunchNS += g.LaunchNS
			if g.SyncNS > 0 {
				// The GPU drained while the host synced; the rest of the
				// gap waits on the launch after the sync returned, which
				// without the sync would have been queued already.
				in.syncGaps++
				in.syncGapNS += g.SyncNS + g.LaunchNS
			}
			if g.SlowLaunch {
				d.IdleSlowLaunchNS += g.LaunchNS
			}
			d.IdleStreamWaitNS += g.StreamWaitNS
			if len(w.long) > 0 && g.Len() >= SlowLaunchNS && g.SyncNS < g.Len() {
				calls.add(w.long, g.Interval)
			}
			if len(dl) > 0 {
				if n := overlapLen(dl, g.Interval); n > 0 {
					in.dataloaderNS += n
					i, _ := slices.BinarySearchFunc(dl, g.Start, func(u Interval, x int64) int { return cmp.Compare(u.End, x) })
					for ; i < len(dl) && dl[i].Start < g.End; i++ {
						if i > lastDL && dl[i].End > g.Start {
							in.dataloaderRanges++
							lastDL = i
						}
					}
				}
			}
			d.IdleOtherNS += g.OtherNS
			if g.LaunchNS > 0 && g.Len() < 1e6 {
				d.ShortLaunchGaps++
				d.ShortLaunchNS += g.LaunchNS
				if g.GraphLaunch {
					d.ShortGraphLaunchNS += g.LaunchNS
				}
			}
			d.IdleOtherUnlinkedNS += g.OtherUnlinkedNS
			d.IdleOtherOutsideStepsNS += g.OtherOutsideStepsNS
			if o.Gaps {
				d.Gaps = append(d.Gaps, g)
			}
		})
		d.Timeline = timeline(busy, o.TimelineBins)
		if d.SpanNS > 0 {
			d.GPUUtil = float64(d.BusyNS) / float64(d.SpanNS)
		} else {
			d.GPUUtil = 1 // all activity at one instant: never idle
		}
	}
}

// copyKinds aggregates a device's copies by kind and memory kinds, as
// their names tell them apart (every unnamed kind reads "Other" or
// "Unknown"): each copy finds its CopyStat by indexing, not by hashing
// three strings.
type copyKinds struct {
	at    [numCopyKinds][numMemKinds][numMemKinds]int16 // 1 + index in stats; 0: none yet
	stats []*CopyStat
}

// The kinds String names apart: trace's copy kinds and "Other" beyond
// them; trace's memory kinds, those beyond HostMem reading "Unknown" as
// MemUnknown does.
const (
	numCopyKinds = int(trace.UVMDtoD) + 2
	numMemKinds  = int(trace.HostMem) + 1
)

// of returns the CopyStat of m's kind and memory kinds, made when new.
func (c *copyKinds) of(m *trace.Memcpy) *CopyStat {
	k, src, dst := min(int(m.Kind), numCopyKinds-1), memIndex(m.Src), memIndex(m.Dst)
	slot := &c.at[k][src][dst]
	if *slot == 0 {
		c.stats = append(c.stats, &CopyStat{Kind: m.Kind.String(), Src: m.Src.String(), Dst: m.Dst.String()})
		*slot = int16(len(c.stats))
	}
	return c.stats[*slot-1]
}

// memIndex is the index of memory kind k among those String names apart.
func memIndex(k trace.MemKind) int {
	if int(k) >= numMemKinds {
		return int(trace.MemUnknown)
	}
	return int(k)
}

func directionTotal(d *DeviceSummary, k trace.CopyKind) *CopyStat {
	switch k {
	case trace.HtoD:
		return &d.H2D
	case trace.DtoH:
		return &d.D2H
	}
	return nil
}

func gbps(bytes, ns int64) float64 {
	if ns == 0 {
		return 0
	}
	return float64(bytes) / float64(ns)
}

// Median returns the middle of sorted values, or the mean of the two middle
// values for an even count; 0 for none.
func Median(sorted []int64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return float64(sorted[n/2])
	}
	// (a+b)/2 without overflowing int64.
	a, b := sorted[n/2-1], sorted[n/2]
	return float64(a) + float64(b-a)/2
}

// percentile returns the nearest-rank p-th percentile of sorted values: the
// smallest value with at least p % of the values at or below it.
func percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[percentileRank(len(sorted), p)]
}

// percentileRank is the index, in n sorted values, of their p-th
// percentile.
func percentileRank(n int, p float64) int {
	r := int(math.Ceil(p / 100 * float64(n)))
	return min(max(r, 1), n) - 1
}

// gapEdges are the bucket bounds of gapHistogram: 1 µs … 1 s by decades.
var gapEdges = [...]int64{1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// gapHistogram counts gaps by length in decades: <1 µs, 1–10 µs, …, ≥1 s.
func gapHistogram(gaps []Interval) []Bin {
	bins := make([]Bin, len(gapEdges)+1)
	for i := range bins {
		if i > 0 {
			bins[i].Lo = gapEdges[i-1]
		}
		if i < len(gapEdges) {
			bins[i].Hi = gapEdges[i]
		}
	}
	for _, g := range gaps {
		n := g.Len()
		i, _ := slices.BinarySearch(gapEdges[:], n+1)
		bins[i].Count++
		bins[i].SumNS += n
	}
	return bins
}

// summarizeHost aggregates cpu_op events: count, and top ops by total time
// with their self time (time not spent in ops nested inside them on the
// same thread).
func summarizeHost(t *trace.Trace, topN int) HostSummary {
	var h HostSummary
	ops := t.Ops
	h.APICalls = 0
	for i := range t.APICalls {
		c := &t.APICalls[i]
		if w := t.Window; w != nil && !overlaps(c.Start, c.End, w) {
			continue
		}
		h.APICalls++
		if IsKernelLaunch(c.Name) || IsGraphLaunch(c.Name) {
			h.Launches++
		}
	}
	if w := t.Window; w != nil {
		ops = clipOps(ops, w)
	}
	type thread struct{ pid, tid int64 }
	// A stack of open ops per thread gives each op its parent, visited
	// parents first: by start, the longer first, and ops of the same span
	// in file order (the caller first). Ops are sorted stably by (start,
	// end), so each run of equal starts is walked backwards, a span at a
	// time.
	stacks := map[thread]*[]int{}
	var stack *[]int
	var last thread
	self := make([]int64, len(ops)) // by op index; cpu_ops only
	visit := func(i int) {
		op := &ops[i]
		if op.Kind != trace.CPUOp {
			return
		}
		h.Ops++
		if k := (thread{op.PID, op.TID}); stack == nil || k != last {
			if stack = stacks[k]; stack == nil {
				stack = new([]int)
				stacks[k] = stack
			}
			last = k
		}
		open := *stack
		for len(open) > 0 && ops[open[len(open)-1]].End <= op.Start {
			open = open[:len(open)-1]
		}
		self[i] = op.End - op.Start
		if len(open) > 0 {
			p := open[len(open)-1]
			self[p] -= min(op.End, ops[p].End) - op.Start
		}
		*stack = append(open, i)
	}
	for lo := 0; lo < len(ops); {
		hi := lo + 1
		for hi < len(ops) && ops[hi].Start == ops[lo].Start {
			hi++
		}
		for end := hi; end > lo; {
			from := end - 1
			for from > lo && ops[from-1].End == ops[end-1].End {
				from--
			}
			for i := from; i < end; i++ {
				visit(i)
			}
			end = from
		}
		lo = hi
	}
	if h.Ops == 0 {
		h.HostTimeline = hostTimeline(t, ops)
		return h
	}
	stats := map[string]*OpStat{}
	for i, s := range self {
		op := &ops[i]
		if op.Kind != trace.CPUOp {
			continue
		}
		st := stats[op.Name]
		if st == nil {
			st = &OpStat{Name: op.Name}
			stats[op.Name] = st
		}
		st.Count++
		st.TotalNS += op.End - op.Start
		st.SelfNS += s
	}
	all := make([]OpStat, 0, len(stats))
	for _, st := range stats {
		all = append(all, *st)
	}
	h.TopOps = top(all, topN, func(a, b OpStat) int {
		return cmp.Or(cmp.Compare(b.TotalNS, a.TotalNS), cmp.Compare(a.Name, b.Name))
	})
	h.AllOps = top(all, len(all), func(a, b OpStat) int {
		return cmp.Or(cmp.Compare(b.TotalNS, a.TotalNS), cmp.Compare(a.Name, b.Name))
	})
	h.HostTimeline = hostTimeline(t, ops)
	return h
}

// overlaps reports whether [start, end] meets the window w.
func overlaps(start, end int64, w *trace.Window) bool { return end >= w.Start && start <= w.End }

// clipOps returns the CPU ops of ops (sorted by start, then end) that
// overlap w, clipped to it, in the same order: ops begun before the window
// now start with it, and are sorted again by end. The other ops are left
// out: the host summary reads CPU ops alone.
func clipOps(ops []trace.Op, w *trace.Window) []trace.Op {
	keep := func(o *trace.Op) bool { return o.Kind == trace.CPUOp && overlaps(o.Start, o.End, w) }
	n := 0
	for i := range ops {
		if keep(&ops[i]) {
			n++
		}
	}
	out := make([]trace.Op, 0, n)
	for i := range ops {
		if o := &ops[i]; keep(o) {
			out = append(out, *o)
			c := &out[len(out)-1]
			c.Start, c.End = max(c.Start, w.Start), min(c.End, w.End)
		}
	}
	// Clipping keeps the order, except among the ops that now start with
	// the window, which come first: ends only move down to the window's.
	moved := 0
	for moved < len(out) && out[moved].Start == w.Start {
		moved++
	}
	slices.SortStableFunc(out[:moved], func(a, b trace.Op) int { return cmp.Compare(a.End, b.End) })
	return out
}
