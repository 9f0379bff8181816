package metrics

import (
	"cmp"
	"strings"
)

// Unit says how a column's value is measured, for scaling and formatting.
type Unit uint8

// Units.
const (
	Count Unit = iota // a number of things
	NS                // nanoseconds
	Bytes             // bytes
	GBps              // gigabytes (1e9 B) per second = bytes per ns
	Ratio             // a fraction, 0..1
	Text              // a name
)

// Units of work: what an op computed and how fast.
const (
	FLOP   Unit = Text + 1 + iota // floating-point operations
	TFLOPS                        // 1e12 floating-point operations per second
)

// A Column is one per-device metric: its name in CSV and JSON output, its
// unit, its definition (shown by `traceql summarize --help`: see
// report.MetricsHelp) and how to read it from a DeviceSummary. This table
// is the one place metrics are defined.
type Column struct {
	Name  string // in CSV and JSON
	Label string // for people
	Unit  Unit
	Doc   string
	Value func(*DeviceSummary) any // int, int64, float64 or string
	// Missing reports whether the metric has no value on a device: a
	// mean of no kernels, a bandwidth of no copies. It is then empty in
	// CSV, null in JSON and Parquet and "–" in text, never a 0 that
	// would bias a mean. nil: always defined.
	Missing func(*DeviceSummary) bool
}

// Get returns the metric's value on d, or nil when it has none; per step
// when d.PerStep says so and the metric adds up over steps.
func (c Column) Get(d *DeviceSummary) any {
	if c.Missing != nil && c.Missing(d) {
		return nil
	}
	if d.PerStep > 0 && perStepTotals[c.Name] {
		return perStep(c.Value(d), d.PerStep)
	}
	return c.Value(d)
}

// missing says when each metric that can lack a value lacks it.
func missing() map[string]func(*DeviceSummary) bool {
	noKernels := func(d *DeviceSummary) bool { return d.Kernels == 0 }
	noLaunches := func(d *DeviceSummary) bool { return d.Launch.Launches+d.Launch.GraphLaunches == 0 }
	noDelays := func(d *DeviceSummary) bool { return d.Launch.Launches+d.Launch.GraphLaunches-d.Launch.Inverted <= 0 }
	return map[string]func(*DeviceSummary) bool{
		"kernel_mean_ns": noKernels, "kernel_median_ns": noKernels, "kernel_min_ns": noKernels,
		"kernel_p90_ns": noKernels, "kernel_p99_ns": noKernels, "kernel_max_ns": noKernels,
		"gpu_util":                 func(d *DeviceSummary) bool { return d.SpanNS == 0 },
		"h2d_gbps":                 func(d *DeviceSummary) bool { return d.H2D.NS == 0 },
		"d2h_gbps":                 func(d *DeviceSummary) bool { return d.D2H.NS == 0 },
		"largest_gap_ns":           func(d *DeviceSummary) bool { return d.IdleGaps == 0 },
		"kernels_per_launch":       func(d *DeviceSummary) bool { return d.Launch.Launches == 0 },
		"kernels_per_graph_launch": func(d *DeviceSummary) bool { return d.Launch.GraphLaunches == 0 },
		"launch_mean_ns":           noLaunches, "launch_median_ns": noLaunches,
		"queue_delay_median_ns": noDelays, "queue_delay_p90_ns": noDelays,
		"launch_to_start_median_ns": noDelays, "launch_to_start_p90_ns": noDelays,
		"step_median_ns":        func(d *DeviceSummary) bool { return len(d.Steps) == 0 },
		"comm_overlap":          func(d *DeviceSummary) bool { return d.Comm.NS == 0 },
		"compiled_kernel_share": func(d *DeviceSummary) bool { return d.KernelNS == 0 },
	}
}

// Columns returns the per-device metrics in output order. The first ones are
// the columns of ../shared/traces/reference.csv, named exactly so.
func Columns() []Column {
	cols := columns()
	m := missing()
	for i := range cols {
		cols[i].Missing = m[cols[i].Name]
	}
	return append(cols, workColumns()...)
}

func columns() []Column {
	return []Column{
		{"device", "device", Count, "device id as the trace numbers it (Kineto args.device, else pid; Nsight deviceId)", func(d *DeviceSummary) any { return d.Device }, nil},
		{"kernels", "kernels", Count, "number of kernel executions on the device, all streams", func(d *DeviceSummary) any { return d.Kernels }, nil},
		{"kernel_ns", "kernel time", NS, "sum of kernel durations (end − start); overlapping kernels both count", func(d *DeviceSummary) any { return d.KernelNS }, nil},
		{"kernel_mean_ns", "mean kernel", NS, "kernel_ns / kernels", func(d *DeviceSummary) any { return d.KernelMeanNS }, nil},
		{"kernel_median_ns", "median kernel", NS, "median kernel duration; the mean of the two middle values for an even count", func(d *DeviceSummary) any { return d.KernelMedianNS }, nil},
		{"kernel_busy_ns", "kernel busy", NS, "length of the union of kernel intervals only (tb-profiler's GPU utilization numerator)", func(d *DeviceSummary) any { return d.KernelBusyNS }, nil},
		{"span_ns", "span", NS, "last GPU activity end − first GPU activity start; GPU activity = kernels + memcpys + memsets", func(d *DeviceSummary) any { return d.SpanNS }, nil},
		{"busy_ns", "busy", NS, "length of the union of GPU activity intervals over all streams: overlapping work counts once, never a sum", func(d *DeviceSummary) any { return d.BusyNS }, nil},
		{"idle_ns", "idle", NS, "span_ns − busy_ns: time inside the span with nothing running", func(d *DeviceSummary) any { return d.IdleNS }, nil},
		{"idle_gaps", "idle gaps", Count, "number of gaps between merged busy intervals (intervals that touch merge)", func(d *DeviceSummary) any { return d.IdleGaps }, nil},
		{"gpu_util", "GPU utilization", Ratio, "busy_ns / span_ns; none when the span is 0", func(d *DeviceSummary) any { return d.GPUUtil }, nil},
		{"h2d_copies", "H2D copies", Count, "memcpys of kind HtoD (Kineto: the token after \"Memcpy \" in the name; Nsight: copyKind 1)", func(d *DeviceSummary) any { return d.H2D.Copies }, nil},
		{"h2d_bytes", "H2D bytes", Bytes, "bytes moved by HtoD copies", func(d *DeviceSummary) any { return d.H2D.Bytes }, nil},
		{"h2d_ns", "H2D time", NS, "sum of HtoD copy durations", func(d *DeviceSummary) any { return d.H2D.NS }, nil},
		{"h2d_gbps", "H2D bandwidth", GBps, "h2d_bytes / h2d_ns, in GB/s with GB = 1e9 B; none without copy time", func(d *DeviceSummary) any { return d.H2D.GBps }, nil},
		{"d2h_copies", "D2H copies", Count, "memcpys of kind DtoH (Nsight copyKind 2)", func(d *DeviceSummary) any { return d.D2H.Copies }, nil},
		{"d2h_bytes", "D2H bytes", Bytes, "bytes moved by DtoH copies", func(d *DeviceSummary) any { return d.D2H.Bytes }, nil},
		{"d2h_ns", "D2H time", NS, "sum of DtoH copy durations", func(d *DeviceSummary) any { return d.D2H.NS }, nil},
		{"d2h_gbps", "D2H bandwidth", GBps, "d2h_bytes / d2h_ns, GB/s; none without copy time", func(d *DeviceSummary) any { return d.D2H.GBps }, nil},
		{"name", "name", Text, "device name, when the trace gives it", func(d *DeviceSummary) any { return d.Name }, nil},
		{"streams", "streams", Count, "streams with GPU activity on the device", func(d *DeviceSummary) any { return d.Streams }, nil},
		{"kernel_min_ns", "min kernel", NS, "shortest kernel", func(d *DeviceSummary) any { return d.KernelMinNS }, nil},
		{"kernel_p90_ns", "p90 kernel", NS, "90th percentile kernel duration, nearest rank (the smallest duration with ≥ 90 % of kernels at or below it)", func(d *DeviceSummary) any { return d.KernelP90NS }, nil},
		{"kernel_p99_ns", "p99 kernel", NS, "99th percentile kernel duration, nearest rank", func(d *DeviceSummary) any { return d.KernelP99NS }, nil},
		{"kernel_max_ns", "max kernel", NS, "longest kernel", func(d *DeviceSummary) any { return d.KernelMaxNS }, nil},
		{"largest_gap_ns", "largest gap", NS, "longest idle gap", func(d *DeviceSummary) any { return d.LargestGapNS }, nil},
		{"start_ns", "first start", NS, "first GPU activity start, on the trace's clock", func(d *DeviceSummary) any { return d.StartNS }, nil},
		{"end_ns", "last end", NS, "last GPU activity end, on the trace's clock", func(d *DeviceSummary) any { return d.EndNS }, nil},
		{"other_copies", "other copies", Count, "memcpys of every other kind (DtoD, HtoH, PtoP, unified memory, …)", func(d *DeviceSummary) any { return d.otherCopies().Copies }, nil},
		{"other_copy_bytes", "other copy bytes", Bytes, "bytes moved by those copies", func(d *DeviceSummary) any { return d.otherCopies().Bytes }, nil},
		{"other_copy_ns", "other copy time", NS, "sum of their durations", func(d *DeviceSummary) any { return d.otherCopies().NS }, nil},
		{"memsets", "memsets", Count, "memset executions", func(d *DeviceSummary) any { return d.Memsets }, nil},
		{"memset_bytes", "memset bytes", Bytes, "bytes set", func(d *DeviceSummary) any { return d.MemsetBytes }, nil},
		{"memset_ns", "memset time", NS, "sum of memset durations", func(d *DeviceSummary) any { return d.MemsetNS }, nil},
		{"launches", "kernel launches", Count, "eager kernel launch calls (" + namesDoc(kernelLaunchPrefixes) + ", and their variants) whose kernels ran on the device, matched on correlation id within a process", func(d *DeviceSummary) any { return d.Launch.Launches }, nil},
		{"graph_launches", "graph launches", Count, "graph launch calls (" + namesDoc(graphLaunchNames) + ") whose kernels ran on the device", func(d *DeviceSummary) any { return d.Launch.GraphLaunches }, nil},
		{"kernels_per_launch", "kernels per launch", Count, "kernels matched to an eager launch call / launches: eager launches only (graph replays are kernels_per_graph_launch)", func(d *DeviceSummary) any { return d.Launch.KernelsPerLaunch }, nil},
		{"graph_kernels", "graph kernels", Count, "kernels replayed by graph launches", func(d *DeviceSummary) any { return d.Launch.GraphKernels }, nil},
		{"kernels_per_graph_launch", "kernels per graph launch", Count, "graph_kernels / graph_launches: the kernels one graph replays", func(d *DeviceSummary) any { return d.Launch.KernelsPerGraphLaunch }, nil},
		{"launch_ns", "launch CPU time", NS, "CPU time spent in those launch calls, eager and graph (the sum of call durations)", func(d *DeviceSummary) any { return d.Launch.LaunchNS }, nil},
		{"launch_mean_ns", "CPU cost of a launch", NS, "launch_ns / (launches + graph_launches): how long one launch call keeps the CPU", func(d *DeviceSummary) any { return d.Launch.MeanLaunchNS }, nil},
		{"launch_median_ns", "CPU cost of a launch (median)", NS, "median CPU time of a launch call (eager or graph): what summarize's headline shows, which a few calls loading modules do not move as they move launch_mean_ns", func(d *DeviceSummary) any { return d.Launch.MedianLaunchNS }, nil},
		{"slow_launches", "launch calls of 1 ms or more", Count, "launch calls (eager or graph) taking 1 ms or more: module loading on a kernel's first use, not launch overhead (see the slow-launch finding)", func(d *DeviceSummary) any { return d.Launch.SlowLaunches }, nil},
		{"slow_launch_ns", "CPU time in launch calls of 1 ms or more", NS, "sum of the CPU time of those calls", func(d *DeviceSummary) any { return d.Launch.SlowLaunchNS }, nil},
		{"queue_delay_median_ns", "queue delay (median)", NS, "median of (GPU start of a launch's first kernel − the end of its launch call), HTA's launch delay: how long launched work waited for the GPU; it grows when the CPU runs further ahead, which is healthy, and is negative when a kernel starts before its call returns", func(d *DeviceSummary) any { return d.Launch.QueueDelayMedianNS }, nil},
		{"queue_delay_p90_ns", "queue delay (p90)", NS, "90th percentile of the queue delay, nearest rank", func(d *DeviceSummary) any { return d.Launch.QueueDelayP90NS }, nil},
		{"launch_to_start_median_ns", "launch + queue (median)", NS, "median of (GPU start of a launch's first kernel − the start of its launch call): the call's CPU cost plus the queue delay; a launch whose kernel starts before its call is left out (see the warning)", func(d *DeviceSummary) any { return d.Launch.StartDelayMedianNS }, nil},
		{"launch_to_start_p90_ns", "launch + queue (p90)", NS, "90th percentile of that time, nearest rank", func(d *DeviceSummary) any { return d.Launch.StartDelayP90NS }, nil},
		{"idle_sync_ns", "idle: in host syncs", NS, "idle time during which a host synchronization was in progress: a blocking call (" + namesDoc(SyncCalls()) + ", with any _v2/_ptsz suffix), or a Nsight SYNCHRONIZATION row or Kineto cuda_sync event of the device other than stream waits, which do not block the host. Only the time a sync overlaps counts, not the whole gap", func(d *DeviceSummary) any { return d.IdleSyncNS }, nil},
		{"idle_launch_ns", "idle: waiting on launches", NS, "the rest of each idle gap whose next GPU work was launched by a call that began after the GPU went idle, or was still running when it did: the CPU was late", func(d *DeviceSummary) any { return d.IdleLaunchNS }, nil},
		{"idle_other_ns", "idle: other", NS, "the rest of idle_ns: the GPU waited although its next work had been launched already (waits on another stream or event, between profiled steps), or that work's launch call is not in the trace. idle_sync_ns + idle_launch_ns + idle_other_ns = idle_ns", func(d *DeviceSummary) any { return d.IdleOtherNS }, nil},
		{"steps", "steps", Count, "ProfilerStep#N windows measured on the device (the steps table); 0 when the trace has none", func(d *DeviceSummary) any { return len(d.Steps) }, nil},
		{"step_median_ns", "median step", NS, "median length of those windows; the mean of the two middle values for an even count; none without steps", func(d *DeviceSummary) any { return d.StepMedianNS }, nil},
		{"comm_kernels", "comm kernels", Count, "communication kernels: names holding, in any case and with '_' or '-' ignored, one of " + namesDoc(commPatterns) + " (NCCL, RCCL, PyTorch symmetric memory, vLLM custom all-reduce)", func(d *DeviceSummary) any { return d.Comm.Kernels }, nil},
		{"comm_ns", "comm time", NS, "length of the union of their intervals", func(d *DeviceSummary) any { return d.Comm.NS }, nil},
		{"compute_ns", "compute time", NS, "length of the union of the other kernels' intervals", func(d *DeviceSummary) any { return d.Comm.ComputeNS }, nil},
		{"comm_exposed_ns", "comm exposed", NS, "time a communication kernel runs and no compute kernel does: the first of the busy classes, which split busy_ns so that each busy nanosecond is in one, by priority compute_ns, then comm, copies (H2D, D2H, other), memsets; compute_ns + comm_exposed_ns + copy_exposed_ns + memset_exposed_ns = busy_ns", func(d *DeviceSummary) any { return d.Classes[ClassComm] }, nil},
		{"copy_exposed_ns", "copies exposed", NS, "time a memcpy runs and no kernel does: h2d_exposed_ns + d2h_exposed_ns + other_copy_exposed_ns", func(d *DeviceSummary) any { return d.Classes.CopyNS() }, nil},
		{"h2d_exposed_ns", "H2D exposed", NS, "time an HtoD copy runs and no kernel does", func(d *DeviceSummary) any { return d.Classes[ClassH2D] }, nil},
		{"d2h_exposed_ns", "D2H exposed", NS, "time a DtoH copy runs and no kernel or HtoD copy does", func(d *DeviceSummary) any { return d.Classes[ClassD2H] }, nil},
		{"other_copy_exposed_ns", "other copies exposed", NS, "time another copy (DtoD, PtoP, …) runs and no kernel, HtoD or DtoH copy does", func(d *DeviceSummary) any { return d.Classes[ClassOtherCopy] }, nil},
		{"memset_exposed_ns", "memsets exposed", NS, "time only memsets run: no kernel and no copy", func(d *DeviceSummary) any { return d.Classes[ClassMemset] }, nil},
		{"comm_overlap", "comm overlap", Ratio, "share of comm_ns during which a compute kernel also runs: communication hidden under computation; none without communication", func(d *DeviceSummary) any { return d.Comm.Overlap }, nil},
		{"window", "window", Text, "the part of the trace measured: whole, or as --steps, --skip-steps, --window, --range or --steady chose it (steps 2–4, window 100ms:500ms, range NAME, steady: steps 3–10)", func(d *DeviceSummary) any { return cmp.Or(d.Window, "whole") }, nil},
		{"bound", "bound", Text, "what holds the GPU back, as summarize's note says: copy when copy_exposed_ns ≥ span_ns / 2, comm when comm_exposed_ns ≥ span_ns / 2; else none when idle_ns < 10 % of span_ns; else launch when idle_launch_ns ≥ idle_ns / 2 with half of it or more in gaps under 1 ms (graph-launch when the device ran graph launches), host when idle_launch_ns ≥ idle_ns / 2 otherwise, sync when idle_sync_ns ≥ idle_ns / 2, else none", func(d *DeviceSummary) any { return Verdict(d).String() }, nil},
		// torch.compile (compile.go).
		{"compiled_regions", "compiled regions", Count, "calls of Torch-Compiled Region: F/R host ops (frame F, compilation R) in the trace, the same for every device", func(d *DeviceSummary) any { return d.Compile.Regions }, nil},
		{"compiled_frames", "compiled frames", Count, "distinct frame ids F among the compiled regions", func(d *DeviceSummary) any { return d.Compile.Frames }, nil},
		{"recompiles", "recompiles", Count, "distinct (F, R) among the compiled regions with R > 0: compilations of a frame after its first", func(d *DeviceSummary) any { return d.Compile.Recompiles }, nil},
		{"compiled_kernel_ns", "compiled kernel time", NS, "sum of the durations of the kernels whose launch call (eager or graph, matched on correlation id) lies within a compiled range on the calling thread (same pid and tid): a Torch-Compiled Region, or an AOTAutograd CompiledFunction or CompiledFunctionBackward op (what PyTorch before 2.3 records, and the backward's only mark); graph replays included", func(d *DeviceSummary) any { return d.Compile.KernelNS }, nil},
		{"compiled_kernel_share", "compiled share", Ratio, "compiled_kernel_ns / kernel_ns; none without kernel time", func(d *DeviceSummary) any { return d.Compile.Share }, nil},
		{"graph_kernel_ns", "graph kernel time", NS, "sum of the durations of the kernels replayed by graph launch calls (graph_kernels), inside compiled ranges or not", func(d *DeviceSummary) any { return d.Compile.GraphKernelNS }, nil},
		{"dynamo_lookup_ns", "Dynamo lookup time", NS, "sum of the durations of the TorchDynamo Cache Lookup host ops (Dynamo's guard checks before each call of a compiled frame; they do not nest), all threads", func(d *DeviceSummary) any { return d.Compile.DynamoLookupNS }, nil},
	}
}

// namesDoc lists names for a definition: "a, b or c".
func namesDoc(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// otherCopies totals the copies that are neither HtoD nor DtoH.
func (d *DeviceSummary) otherCopies() CopyStat {
	var o CopyStat
	for _, c := range d.Copies {
		if c.Kind != "HtoD" && c.Kind != "DtoH" {
			o.Copies += c.Copies
			o.Bytes += c.Bytes
			o.NS += c.NS
		}
	}
	return o
}

// A HostColumn is one metric of a run's host side, what a run without GPU
// activity reports in place of the device metrics (CSV and JSON rows of
// host-only runs, compare and diff of them).
type HostColumn struct {
	Name  string // in CSV and JSON
	Label string // for people
	Unit  Unit
	Doc   string
	Value func(*Summary) any // int, int64, float64 or string
	// Missing reports whether the metric has no value for a run, as
	// Column's; nil: always defined.
	Missing func(*Summary) bool
}

// Get returns the metric's value for s, or nil when it has none.
func (c HostColumn) Get(s *Summary) any {
	if c.Missing != nil && c.Missing(s) {
		return nil
	}
	return c.Value(s)
}

// HostColumns returns the host-side metrics in output order.
func HostColumns() []HostColumn {
	cols := hostColumns()
	for i, c := range cols {
		switch c.Name {
		case "host_step_median_ns":
			cols[i].Missing = func(s *Summary) bool { return len(s.Host.Steps) == 0 }
		case "steady_step_median_ns":
			cols[i].Missing = func(s *Summary) bool { return len(s.Host.Steps) == s.Host.WarmupSteps }
		}
	}
	return cols
}

func hostColumns() []HostColumn {
	return []HostColumn{
		{"host_span_ns", "host span", NS, "last host event end − first host event start; host events = ops and annotations (not their GPU copies) and runtime or driver calls", func(s *Summary) any { return s.Host.SpanNS }, nil},
		{"host_ops", "host ops", Count, "cpu_op events", func(s *Summary) any { return s.Host.Ops }, nil},
		{"api_calls", "runtime/driver calls", Count, "runtime and driver API calls", func(s *Summary) any { return s.Host.APICalls }, nil},
		{"op_busy_ns", "time in ops", NS, "length of the union of the cpu_op intervals over all threads: time in which some thread ran an op", func(s *Summary) any { return s.Host.OpBusyNS }, nil},
		{"outside_ops_ns", "time outside ops", NS, "host_span_ns − op_busy_ns: time in which no thread ran an op (Python between ops, data loading, waits)", func(s *Summary) any { return s.Host.OutsideOpsNS }, nil},
		{"host_steps", "steps", Count, "CPU ProfilerStep#N ranges, each starting no earlier than the one before ends", func(s *Summary) any { return len(s.Host.Steps) }, nil},
		{"host_step_median_ns", "median step", NS, "median length of those steps; the mean of the two middle values for an even count; none without steps", func(s *Summary) any { return s.Host.StepMedianNS }, nil},
		{"warmup_steps", "warm-up steps", Count, "leading steps longer than twice the median step (warm-up, compilation), at most all but one; none with under 3 steps", func(s *Summary) any { return s.Host.WarmupSteps }, nil},
		{"steady_step_median_ns", "median step after warm-up", NS, "median length of the steps after the warm-up steps", func(s *Summary) any { return s.Host.SteadyStepMedianNS }, nil},
		{"compiled_regions", "compiled regions", Count, "as the device column of that name", func(s *Summary) any { return s.Compile.Regions }, nil},
		{"compiled_frames", "compiled frames", Count, "as the device column of that name", func(s *Summary) any { return s.Compile.Frames }, nil},
		{"recompiles", "recompiles", Count, "as the device column of that name", func(s *Summary) any { return s.Compile.Recompiles }, nil},
		{"compiled_host_ns", "host time in compiled code", NS, "per thread, the length of the union of its compiled ranges (Torch-Compiled Region, CompiledFunction, CompiledFunctionBackward), summed over threads", func(s *Summary) any { return s.Compile.CompiledHostNS }, nil},
		{"dynamo_lookup_ns", "Dynamo lookup time", NS, "as the device column of that name (a sum of durations)", func(s *Summary) any { return s.Compile.DynamoLookupNS }, nil},
	}
}

// A FrameColumn is one column of the compiled-frames table that
// summarize --compile-log shows (CompileJoin): a row per compile of a
// frame, "F/R".
type FrameColumn struct {
	Name, Label string
	Unit        Unit
	Doc         string
}

// FrameColumns defines the compiled-frames table's columns.
func FrameColumns() []FrameColumn {
	return []FrameColumn{
		{"frame", "frame", Text, "F/R: Dynamo's frame id and the frame's compile count (R > 0: a recompile), as the log's compile ids and the trace's Torch-Compiled Region: F/R ops write them"},
		{"compile_ns", "compile", NS, "the log's compile time of F/R: the sum of its compilation_metrics duration_us (entire_frame_compile_time_s in older logs), parsed from decimal text; records timing run-time work (is_runtime) left out"},
		{"graph_breaks", "breaks", Count, "graph breaks in F/R: the larger of the log's num_graph_breaks and the number of distinct break reasons it logged (dynamo_graph_break_reason, restart_reasons)"},
		{"recompile_guards", "guards", Count, "the guard failures the log gives as the cause of compiling F/R (recompile_reasons): each names an earlier compile F/R' whose guard failed"},
		{"calls", "calls", Count, "Torch-Compiled Region: F/R ops in the trace (within the window)"},
		{"lookup_ns", "lookup", NS, "sum of the durations of the TorchDynamo Cache Lookup ops charged to F/R: a lookup is, when the next compiled region or lookup to start on its thread at or after its end is a call of F/R"},
		{"frame_kernel_ns", "kernel time", NS, "sum of the durations of the kernels whose launch call (eager or graph, matched on correlation id) lies within a call of F/R on the calling thread, the innermost when frames nest"},
		{"frame_kernel_share", "share", Ratio, "frame_kernel_ns / the device's kernel_ns"},
		{"cudagraphs", "graphs", Text, "CUDA graphs: replayed: some of frame_kernel_ns was replayed by graph launch calls; skipped: none was and the log gives Inductor's cudagraph_skip_reason; no: none was, the frame ran"},
		{"code", "code", Text, "the compiled function as the log names it (co_name, file base name:first line); torch_dynamo_resume_in_FN_at_LINE is the code after a graph break in FN"},
	}
}
