package synth

import (
	"cmp"
	"slices"
)

// A Truth is what a correct reader and correct metrics must find in a trace
// written by Write. Times ending in NS are int64 nanoseconds on the trace's
// own clock: a "ts" of 1234.567 µs is 1234567 ns. In the Modern era add
// BaseTimeNS for nanoseconds since the Unix epoch; Era2021 times are already
// epoch-based. Durations are nanoseconds.
type Truth struct {
	Era        string `json:"era"`
	Container  string `json:"container"`
	Seed       int64  `json:"seed"`
	BaseTimeNS int64  `json:"base_time_ns"` // baseTimeNanoseconds; 0 in Era2021
	Rank       int    `json:"rank"`         // distributedInfo's rank; -1 in a bare array, which has none
	// TraceStartNS and TraceEndNS are the "PyTorch Profiler (0)" span and
	// the "Record Window End" instant.
	TraceStartNS int64 `json:"trace_start_ns"`
	TraceEndNS   int64 `json:"trace_end_ns"`
	Bytes        int64 `json:"bytes"`                // uncompressed JSON bytes
	FileBytes    int64 `json:"file_bytes,omitempty"` // bytes on disk (WriteFile only)
	Events       int   `json:"events"`               // elements of traceEvents

	Kernels      int `json:"kernels"` // GPU kernel events, all devices
	Memcpys      int `json:"memcpys"`
	Memsets      int `json:"memsets"`
	GraphKernels int `json:"graph_kernels"` // kernels replayed by cudaGraphLaunch

	// APICalls counts the cuda_runtime and cuda_driver events (Runtime in
	// Era2021): RuntimeCalls + DriverCalls.
	APICalls     int `json:"api_calls"`
	RuntimeCalls int `json:"runtime_calls"`
	DriverCalls  int `json:"driver_calls"` // cuLaunchKernel (Modern, Triton kernels)
	// KernelLaunches counts cudaLaunchKernel and cuLaunchKernel calls, one
	// per non-graph kernel.
	KernelLaunches int `json:"kernel_launches"`
	GraphLaunches  int `json:"graph_launches"` // cudaGraphLaunch calls
	MemcpyCalls    int `json:"memcpy_calls"`   // cudaMemcpyAsync
	MemsetCalls    int `json:"memset_calls"`   // cudaMemsetAsync
	SyncCalls      int `json:"sync_calls"`     // cudaStreamSynchronize + cudaDeviceSynchronize

	CPUOps          int `json:"cpu_ops"`          // cpu_op (Operator) events, ProfilerStep excluded
	PythonFunctions int `json:"python_functions"` // python_function events
	MemoryEvents    int `json:"memory_events"`    // [memory] instant events
	Flows           int `json:"flows"`            // flow events, "s" and "f"

	Steps       []StepTruth       `json:"steps"`
	Devices     []DeviceTruth     `json:"devices"`      // sorted by Device
	KernelNames []KernelNameTruth `json:"kernel_names"` // sorted by Name
}

// A StepTruth is one ProfilerStep#N.
type StepTruth struct {
	Name    string `json:"name"` // "ProfilerStep#N"
	Number  int    `json:"number"`
	StartNS int64  `json:"start_ns"` // CPU-side range (user_annotation, or Operator in Era2021)
	EndNS   int64  `json:"end_ns"`
	Kernels int    `json:"kernels"` // kernels run in the step, all devices
	// GPU holds, per device, the first start and the last end of the
	// step's GPU activity. In the Modern era the gpu_user_annotation
	// ProfilerStep#N on that device spans [StartNS-1, EndNS+1].
	GPU []Window `json:"gpu"`
}

// A Window is a device's span of time.
type Window struct {
	Device  int   `json:"device"`
	StartNS int64 `json:"start_ns"`
	EndNS   int64 `json:"end_ns"`
}

// A DeviceTruth is the truth for one GPU. Activity means kernels, memcpys
// and memsets on any stream; annotations are not activity.
type DeviceTruth struct {
	Device  int     `json:"device"`
	Name    string  `json:"name"`    // deviceProperties name; "" for a bare array
	Streams []int64 `json:"streams"` // streams with activity, ascending

	Kernels        int     `json:"kernels"`
	ZeroKernels    int     `json:"zero_kernels"` // kernels with dur 0
	KernelNS       int64   `json:"kernel_ns"`    // sum of kernel durations
	KernelMinNS    int64   `json:"kernel_min_ns"`
	KernelMaxNS    int64   `json:"kernel_max_ns"`
	KernelMedianNS float64 `json:"kernel_median_ns"` // mean of the two middle values for an even count
	KernelBusyNS   int64   `json:"kernel_busy_ns"`   // union of kernel intervals

	FirstNS int64 `json:"first_ns"` // first activity start
	LastNS  int64 `json:"last_ns"`  // last activity end
	SpanNS  int64 `json:"span_ns"`  // LastNS - FirstNS
	BusyNS  int64 `json:"busy_ns"`  // union of all activity intervals over all streams
	IdleNS  int64 `json:"idle_ns"`  // SpanNS - BusyNS
	// IdleGaps counts the gaps of positive length between merged busy
	// intervals; LargestGapNS is the longest.
	IdleGaps     int   `json:"idle_gaps"`
	LargestGapNS int64 `json:"largest_gap_ns"`
	// Touches counts places where one busy cluster ends exactly where the
	// next begins: they merge, and make no gap.
	Touches int `json:"touches"`

	Memcpys     int         `json:"memcpys"`
	MemcpyBytes int64       `json:"memcpy_bytes"`
	MemcpyNS    int64       `json:"memcpy_ns"`
	H2D         CopyTruth   `json:"h2d"`    // all HtoD copies, pinned and pageable
	D2H         CopyTruth   `json:"d2h"`    // all DtoH copies
	D2D         CopyTruth   `json:"d2d"`    // DtoD only (PtoP is separate)
	Copies      []CopyTruth `json:"copies"` // one per Kineto memcpy name present, sorted by Name
	Memsets     int         `json:"memsets"`
	MemsetBytes int64       `json:"memset_bytes"`
	MemsetNS    int64       `json:"memset_ns"`
}

// A CopyTruth totals memcpys. Name is the Kineto event name ("Memcpy HtoD
// (Pinned -> Device)"), Kind the token after "Memcpy " ("HtoD"), and Src
// and Dst the memory kinds in parentheses; the H2D/D2H/D2D totals of a
// DeviceTruth leave Name, Src and Dst empty.
type CopyTruth struct {
	Name   string `json:"name,omitempty"`
	Kind   string `json:"kind"`
	Src    string `json:"src,omitempty"`
	Dst    string `json:"dst,omitempty"`
	Copies int    `json:"copies"`
	Bytes  int64  `json:"bytes"`
	NS     int64  `json:"ns"` // sum of durations
}

// A KernelNameTruth totals the kernels of one name over all devices.
type KernelNameTruth struct {
	Name     string  `json:"name"`
	Count    int     `json:"count"`
	TotalNS  int64   `json:"total_ns"`
	MinNS    int64   `json:"min_ns"`
	MaxNS    int64   `json:"max_ns"`
	MedianNS float64 `json:"median_ns"`
}

// busyAcc accumulates the busy intervals of a device from clusters that
// arrive in time order and never overlap. A cluster that starts exactly where
// the previous one ends joins it.
type busyAcc struct {
	has        bool
	first      int64
	start, end int64 // the open merged interval
	busy       int64 // closed merged intervals
	idle       int64
	gaps       int
	touches    int
	largest    int64
}

func (a *busyAcc) add(c, l int64) {
	if l < 0 {
		panic("synth: negative cluster length")
	}
	if !a.has {
		a.has, a.first, a.start, a.end = true, c, c, c+l
		return
	}
	switch {
	case c < a.end:
		panic("synth: cluster overlaps the previous one")
	case c == a.end:
		a.touches++
		a.end = c + l
		return
	}
	gap := c - a.end
	a.busy += a.end - a.start
	a.idle += gap
	a.gaps++
	a.largest = max(a.largest, gap)
	a.start, a.end = c, c+l
}

// median returns the median of sorted v: the mean of the two middle values
// for an even count, 0 for none.
func median(v []int64) float64 {
	n := len(v)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return float64(v[n/2])
	}
	return float64(v[n/2-1]+v[n/2]) / 2
}

// truth assembles the Truth once writing is done.
func (g *gen) truth() Truth {
	t := g.tr
	t.Era = g.cfg.Era.String()
	t.Container = g.cfg.Container.String()
	t.Seed = g.cfg.Seed
	t.Rank = g.cfg.Rank
	if g.cfg.Container == Array {
		t.Rank = -1
	}
	t.Steps = g.steps
	for _, d := range g.devs {
		t.Devices = append(t.Devices, d.truth(g))
	}
	// Per-name totals over all devices.
	for s := range kernelSpecs {
		var all []int64
		for _, d := range g.devs {
			all = append(all, d.durs[s]...)
		}
		if len(all) == 0 {
			continue
		}
		slices.Sort(all)
		var sum int64
		for _, v := range all {
			sum += v
		}
		t.KernelNames = append(t.KernelNames, KernelNameTruth{
			Name: kernelSpecs[s].name, Count: len(all), TotalNS: sum,
			MinNS: all[0], MaxNS: all[len(all)-1], MedianNS: median(all),
		})
	}
	slices.SortFunc(t.KernelNames, func(a, b KernelNameTruth) int { return cmp.Compare(a.Name, b.Name) })
	return t
}

func (d *devState) truth(g *gen) DeviceTruth {
	name := g.prop.name
	if g.cfg.Container == Array {
		name = "" // a bare array has no deviceProperties
	}
	t := DeviceTruth{
		Device:       d.id,
		Name:         name,
		Kernels:      d.kernels,
		ZeroKernels:  d.zeroKernels,
		KernelNS:     d.kernelNS,
		KernelBusyNS: d.kernelBusy,
		Memsets:      d.memsets,
		MemsetBytes:  d.memsetBytes,
		MemsetNS:     d.memsetNS,
		Streams:      []int64{},
		Copies:       []CopyTruth{},
	}
	for i, used := range d.streamUsed {
		if used {
			t.Streams = append(t.Streams, d.streams[i])
		}
	}
	slices.Sort(t.Streams)
	var all []int64
	for _, v := range d.durs {
		all = append(all, v...)
	}
	if len(all) > 0 {
		slices.Sort(all)
		t.KernelMinNS, t.KernelMaxNS = all[0], all[len(all)-1]
		t.KernelMedianNS = median(all)
	}
	a := d.acc
	if a.has {
		t.FirstNS, t.LastNS = a.first, a.end
		t.SpanNS = a.end - a.first
		t.BusyNS = a.busy + a.end - a.start
		t.IdleNS = t.SpanNS - t.BusyNS
		if t.IdleNS != a.idle {
			panic("synth: idle time does not add up")
		}
		t.IdleGaps, t.LargestGapNS, t.Touches = a.gaps, a.largest, a.touches
	}
	t.H2D.Kind, t.D2H.Kind, t.D2D.Kind = "HtoD", "DtoH", "DtoD"
	for k, c := range d.copies {
		if c.Copies == 0 {
			continue
		}
		ck := copyKinds[k]
		c.Name, c.Kind, c.Src, c.Dst = ck.name, ck.kind, ck.src, ck.dst
		t.Copies = append(t.Copies, c)
		t.Memcpys += c.Copies
		t.MemcpyBytes += c.Bytes
		t.MemcpyNS += c.NS
		var tot *CopyTruth
		switch ck.kind {
		case "HtoD":
			tot = &t.H2D
		case "DtoH":
			tot = &t.D2H
		case "DtoD":
			tot = &t.D2D
		default:
			continue
		}
		tot.Copies += c.Copies
		tot.Bytes += c.Bytes
		tot.NS += c.NS
	}
	slices.SortFunc(t.Copies, func(a, b CopyTruth) int { return cmp.Compare(a.Name, b.Name) })
	return t
}
