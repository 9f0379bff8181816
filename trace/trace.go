package trace

import (
	"fmt"
	"slices"
	"strings"
)

// Format names the file format a Trace was read from.
type Format string

// The formats traceql reads.
const (
	Kineto Format = "kineto" // PyTorch profiler / Chrome trace JSON
	Nsys   Format = "nsys"   // Nsight Systems SQLite export
)

// MaxTime bounds every time in a Trace: |t| ≤ MaxTime ns, 146 years either
// side of zero (the Unix epoch, in most traces), so that the difference of
// any two times fits an int64. Readers skip events beyond it, with a
// warning.
const MaxTime = 1<<62 - 1

// A Trace is a format-neutral GPU trace: what every reader produces and the
// only thing metrics consume. Times are int64 nanoseconds on the trace's own
// clock (Kineto: ts×1000; Nsight: the session clock).
type Trace struct {
	Source string // the path as given, for messages
	Meta   Meta

	Devices []Device // sorted by ID; every device an activity refers to is listed
	Streams []Stream // sorted by (Device, ID)

	Kernels []Kernel // sorted by (Start, End)
	Memcpys []Memcpy // sorted by (Start, End)
	Memsets []Memset // sorted by (Start, End)
	Syncs   []Sync   // device-side synchronization records, sorted by (Start, End)

	APICalls []APICall // host runtime/driver API calls, sorted by (Start, End)
	Ops      []Op      // host ops and annotations, sorted by (Start, End)
	// LaunchArgs are the kernel names and graph node ids launch calls
	// record, for a read with Needs.LaunchArgs; in no order.
	LaunchArgs []LaunchArg

	// Window is what Clip restricted the device records to; nil for the
	// whole trace.
	Window *Window
	// Only says which device records Filter kept ("kernels matching
	// ^triton, device 1"); "" for all.
	Only string
	// Partial says that Filter kept some of a device's kernels or streams,
	// not all its work: time between what is kept is not time the device
	// sat idle.
	Partial bool
	// Unclipped is the trace Clip was called on; nil for the whole trace.
	// Steps are found on it, so that a step partly outside the window is
	// seen as such.
	Unclipped *Trace

	// Warnings are non-fatal problems met while reading, already aggregated
	// ("3 kernel events without dur skipped"); shown to the user.
	Warnings []string
}

// Meta is what a trace says about itself.
type Meta struct {
	Format  Format
	Version string // Kineto schemaVersion; Nsight exporter version ("2024.2.1.106"); "" when unknown
	// VersionIsSchema says that Version numbers the file's schema (Kineto's
	// schemaVersion) rather than a release of the program that wrote it:
	// people read "schema 1", not "1".
	VersionIsSchema bool
	// CorrelationPerProcess says that correlation ids are unique per
	// process (the records' PID), not per trace: Nsight numbers each
	// process's ids on its own. Kineto's ids are unique in the trace, and
	// its device records carry no process.
	CorrelationPerProcess bool
	// BaseTimeNS is Kineto's baseTimeNanoseconds: the epoch time of ts 0
	// (0 when absent). Absolute ns = BaseTimeNS + time.
	BaseTimeNS int64
	Rank       int // distributed rank; -1 when unknown
	WorldSize  int // 0 when unknown
	Events     int // events or rows the reader looked at, kept or not
}

// A Device is one accelerator. ID is the number the trace uses for it
// (CUDA device index, Kineto args.device or pid, Nsight deviceId).
type Device struct {
	ID             int
	Name           string // "" when the trace does not say
	ComputeMajor   int
	ComputeMinor   int
	TotalMemBytes  int64
	SMs            int // streaming multiprocessors (compute units on ROCm); 0 when unknown
	MemBandwidthBs int64
}

// A Stream is one device queue.
type Stream struct {
	Device int
	ID     int64
}

// Activity is what every device-side record has.
type Activity struct {
	Device      int
	Stream      int64
	Start, End  int64 // ns
	Correlation int64 // links to the launching APICall; 0 when unknown
	PID         int64 // host process that issued it; 0 when unknown
}

// Dur returns End − Start in ns.
func (a *Activity) Dur() int64 { return a.End - a.Start }

// A Kernel is one kernel execution on a device.
type Kernel struct {
	Activity
	Name       string // demangled name as the trace gives it
	ExternalID int64  // Kineto "External id" (the launching op); 0 when absent
	Grid       [3]int32
	Block      [3]int32
	Registers  int32 // per thread; 0 when unknown
	// OccupancyPct is Kineto's estimate of the achieved occupancy from the
	// launch configuration ("est. achieved occupancy %", 0–100) when
	// HasOccupancy; Nsight exports and traces before Kineto recorded it
	// have none.
	OccupancyPct uint8
	HasOccupancy bool
	SharedMem    int64 // static + dynamic bytes; 0 when unknown
	GraphID      int64 // CUDA graph the kernel was replayed from; 0 when none or unknown
	GraphNode    int64
}

// A Memcpy is one copy executed by a device.
type Memcpy struct {
	Activity
	Kind     CopyKind
	Src, Dst MemKind
	Bytes    int64
}

// A Memset is one memset executed by a device.
type Memset struct {
	Activity
	Mem   MemKind
	Bytes int64
}

// A Sync is a device-side record of a host synchronization (Nsight
// SYNCHRONIZATION rows, Kineto cuda_sync events).
type Sync struct {
	Activity
	Kind string // "Stream Sync", "Event Sync", "Context Sync", "Stream Wait", …
	// WaitStream and WaitRecord say what an event sync or a stream's wait
	// on an event waits for: the stream the event was recorded on and the
	// correlation of the cudaEventRecord call (Kineto's "wait_on_stream",
	// "wait_on_cuda_event_record_corr_id"); WaitRecord is 0 when not
	// recorded, and WaitStream then means nothing.
	WaitStream, WaitRecord int64
}

// APIKind tells runtime from driver API calls.
type APIKind uint8

// The API layers.
const (
	Runtime APIKind = iota // cudaXxx / hipXxx
	Driver                 // cuXxx
)

func (k APIKind) String() string {
	if k == Driver {
		return "driver"
	}
	return "runtime"
}

// An APICall is one host call into the CUDA/HIP runtime or driver.
type APICall struct {
	Name        string // without Nsight's _vNNNN suffix: cudaLaunchKernel, cudaGraphLaunch, …
	Kind        APIKind
	PID, TID    int64
	Start, End  int64
	Correlation int64
	ExternalID  int64
}

// A LaunchArg is what a launch call records of the kernel it launches,
// beyond the call itself, kept only for a read with Needs.LaunchArgs: a
// launch made while a graph was captured executes nothing, and its
// kernel is known from the call alone.
type LaunchArg struct {
	PID, Correlation int64 // the launch call's
	// Kernel is the kernel's name where the call records it (ROCm's
	// Kineto args "kernel"); "" elsewhere.
	Kernel string
	// GraphNode is the graph node the call became during capture (Kineto
	// args "graph node id"); 0 when not recorded.
	GraphNode int64
}

// OpKind classifies host ops and annotations.
type OpKind uint8

// The kinds of Op.
const (
	CPUOp          OpKind = iota // Kineto cpu_op / Operator
	UserAnnotation               // record_function ranges, ProfilerStep#N
	GPUAnnotation                // Kineto gpu_user_annotation (PID = device, TID = stream)
	NVTXRange                    // Nsight NVTX push/pop or start/end range
	PythonFunction               // Kineto python_function (with_stack)
)

var opKindNames = [...]string{"cpu_op", "user_annotation", "gpu_user_annotation", "nvtx", "python_function"}

func (k OpKind) String() string {
	if int(k) < len(opKindNames) {
		return opKindNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", k)
}

// StepPrefix begins the name of each profiler step's range: ProfilerStep#N.
const StepPrefix = "ProfilerStep#"

// The host ops torch.compile leaves in a PyTorch profiler trace.
const (
	// CompiledRegionPrefix begins the name of each call of a compiled
	// frame: "Torch-Compiled Region: F/R", frame F, its R-th compilation
	// (R > 0: a recompile).
	CompiledRegionPrefix = "Torch-Compiled Region: "
	// DynamoLookupName is Dynamo's guard check before each call of a
	// compiled frame.
	DynamoLookupName = "TorchDynamo Cache Lookup"
	// CompiledFunctionName and CompiledFunctionBackwardName are
	// AOTAutograd's ops around a compiled graph's forward and backward:
	// what PyTorch before 2.3 records instead of compiled regions, and the
	// backward's only mark.
	CompiledFunctionName         = "CompiledFunction"
	CompiledFunctionBackwardName = "CompiledFunctionBackward"
)

// isCompileOp reports whether a host op is one torch.compile leaves: a
// compiled region, a CompiledFunction(Backward) or a Dynamo cache lookup.
// A read for Options.Needs keeps these. The first byte
// turns away nearly every other op.
func isCompileOp(name string) bool {
	if name == "" || name[0] != 'T' && name[0] != 'C' {
		return false
	}
	return strings.HasPrefix(name, CompiledRegionPrefix) || name == DynamoLookupName ||
		name == CompiledFunctionName || name == CompiledFunctionBackwardName
}

// An Op is a host-side range: an operator, an annotation or an NVTX range.
type Op struct {
	Name       string
	Kind       OpKind
	PID, TID   int64
	Start, End int64
	ExternalID int64
	// Args are the shapes a cpu_op was recorded with (record_shapes),
	// kept only for a read with Needs.Shapes; nil otherwise. Ops
	// recorded with the same arguments may share one: read-only.
	Args *OpArgs
}

// OpArgs are what PyTorch records of a cpu_op's inputs with
// record_shapes=True (and with_flops=True), input by input.
type OpArgs struct {
	// Dims are the sizes of each input tensor ("Input Dims"); nil for an
	// input that is no tensor, and for a list of tensors, whose sizes are
	// in Lists.
	Dims [][]int64
	// Lists holds, for an input that is a list of tensors, their sizes;
	// nil for other inputs. Nil when no input is a list.
	Lists [][][]int64
	// Types are the inputs' types ("Input type"): "float",
	// "c10::BFloat16", "Scalar", "" …
	Types []string
	// Concrete are the values of non-tensor inputs as text ("Concrete
	// Inputs": "[1, 1]", "True", ""); nil when the trace has none (torch
	// before 2.1).
	Concrete []string
	// Flops is the "flops" argument (with_flops=True) when HasFlops.
	Flops    int64
	HasFlops bool
}

// Validate checks the invariants every reader guarantees: End ≥ Start,
// slices sorted, devices and streams of activities listed. Modelled on
// pprof's CheckValid.
func (t *Trace) Validate() error {
	if !slices.IsSortedFunc(t.Devices, func(a, b Device) int { return cmpInt(a.ID, b.ID) }) {
		return fmt.Errorf("devices not sorted by id")
	}
	for i := 1; i < len(t.Devices); i++ {
		if t.Devices[i].ID == t.Devices[i-1].ID {
			return fmt.Errorf("device %d listed twice", t.Devices[i].ID)
		}
	}
	if !slices.IsSortedFunc(t.Streams, cmpStream) {
		return fmt.Errorf("streams not sorted")
	}
	if err := checkActivities(t, "kernel", t.Kernels, func(k *Kernel) *Activity { return &k.Activity }); err != nil {
		return err
	}
	if err := checkActivities(t, "memcpy", t.Memcpys, func(m *Memcpy) *Activity { return &m.Activity }); err != nil {
		return err
	}
	if err := checkActivities(t, "memset", t.Memsets, func(m *Memset) *Activity { return &m.Activity }); err != nil {
		return err
	}
	if err := checkActivities(t, "sync", t.Syncs, func(s *Sync) *Activity { return &s.Activity }); err != nil {
		return err
	}
	for i, c := range t.APICalls {
		if c.End < c.Start {
			return fmt.Errorf("api call %d (%s): end before start", i, c.Name)
		}
		if i > 0 && lessSpan(c.Start, c.End, t.APICalls[i-1].Start, t.APICalls[i-1].End) {
			return fmt.Errorf("api call %d: not sorted by start", i)
		}
	}
	for i, o := range t.Ops {
		if o.End < o.Start {
			return fmt.Errorf("op %d (%s): end before start", i, o.Name)
		}
		if i > 0 && lessSpan(o.Start, o.End, t.Ops[i-1].Start, t.Ops[i-1].End) {
			return fmt.Errorf("op %d: not sorted by start", i)
		}
	}
	return nil
}

func checkActivities[T any](t *Trace, what string, xs []T, act func(*T) *Activity) error {
	for i := range xs {
		a := act(&xs[i])
		if a.End < a.Start {
			return fmt.Errorf("%s %d: end %d before start %d", what, i, a.End, a.Start)
		}
		if i > 0 {
			p := act(&xs[i-1])
			if lessSpan(a.Start, a.End, p.Start, p.End) {
				return fmt.Errorf("%s %d: not sorted by start", what, i)
			}
			if a.Device == p.Device && a.Stream == p.Stream {
				continue // listed: checked with p
			}
		}
		if _, ok := t.Device(a.Device); !ok {
			return fmt.Errorf("%s %d: device %d not listed", what, i, a.Device)
		}
		if _, ok := slices.BinarySearchFunc(t.Streams, Stream{a.Device, a.Stream}, cmpStream); !ok {
			return fmt.Errorf("%s %d: stream %d of device %d not listed", what, i, a.Stream, a.Device)
		}
	}
	return nil
}

// Device returns the device with the given ID.
func (t *Trace) Device(id int) (Device, bool) {
	i, ok := slices.BinarySearchFunc(t.Devices, id, func(d Device, id int) int { return cmpInt(d.ID, id) })
	if !ok {
		return Device{}, false
	}
	return t.Devices[i], true
}

// EachGPUActivity calls fn for every kernel, memcpy and memset, in that
// order (each kind sorted by start).
func (t *Trace) EachGPUActivity(fn func(*Activity)) {
	for i := range t.Kernels {
		fn(&t.Kernels[i].Activity)
	}
	for i := range t.Memcpys {
		fn(&t.Memcpys[i].Activity)
	}
	for i := range t.Memsets {
		fn(&t.Memsets[i].Activity)
	}
}

// HasGPUActivity reports whether the trace holds any kernel, memcpy or memset.
func (t *Trace) HasGPUActivity() bool {
	return len(t.Kernels)+len(t.Memcpys)+len(t.Memsets) > 0
}

func lessSpan(s1, e1, s2, e2 int64) bool { return s1 < s2 || s1 == s2 && e1 < e2 }

func cmpInt[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpStream(a, b Stream) int {
	if c := cmpInt(a.Device, b.Device); c != 0 {
		return c
	}
	return cmpInt(a.ID, b.ID)
}
