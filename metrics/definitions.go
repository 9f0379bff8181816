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
}

// Columns returns the per-device metrics in output order. The first ones are
// the columns of ../shared/traces/reference.csv, named exactly so.
func Columns() []Column {
	return []Column{
		{"device", "device", Count, "device id as the trace numbers it (Kineto args.device, else pid; Nsight deviceId)", func(d *DeviceSummary) any { return d.Device }},
		{"kernels", "kernels", Count, "number of kernel executions on the device, all streams", func(d *DeviceSummary) any { return d.Kernels }},
		{"kernel_ns", "kernel time", NS, "sum of kernel durations (end − start); overlapping kernels both count", func(d *DeviceSummary) any { return d.KernelNS }},
		{"kernel_mean_ns", "mean kernel", NS, "kernel_ns / kernels", func(d *DeviceSummary) any { return d.KernelMeanNS }},
		{"kernel_median_ns", "median kernel", NS, "median kernel duration; the mean of the two middle values for an even count", func(d *DeviceSummary) any { return d.KernelMedianNS }},
		{"kernel_busy_ns", "kernel busy", NS, "length of the union of kernel intervals only (tb-profiler's GPU utilization numerator)", func(d *DeviceSummary) any { return d.KernelBusyNS }},
		{"span_ns", "span", NS, "last GPU activity end − first GPU activity start; GPU activity = kernels + memcpys + memsets", func(d *DeviceSummary) any { return d.SpanNS }},
		{"busy_ns", "busy", NS, "length of the union of GPU activity intervals over all streams: overlapping work counts once, never a sum", func(d *DeviceSummary) any { return d.BusyNS }},
		{"idle_ns", "idle", NS, "span_ns − busy_ns: time inside the span with nothing running", func(d *DeviceSummary) any { return d.IdleNS }},
		{"idle_gaps", "idle gaps", Count, "number of gaps between merged busy intervals (intervals that touch merge)", func(d *DeviceSummary) any { return d.IdleGaps }},
		{"gpu_util", "GPU utilization", Ratio, "busy_ns / span_ns; empty (–) when the span is 0", func(d *DeviceSummary) any { return d.GPUUtil }},
		{"h2d_copies", "H2D copies", Count, "memcpys of kind HtoD (Kineto: the token after \"Memcpy \" in the name; Nsight: copyKind 1)", func(d *DeviceSummary) any { return d.H2D.Copies }},
		{"h2d_bytes", "H2D bytes", Bytes, "bytes moved by HtoD copies", func(d *DeviceSummary) any { return d.H2D.Bytes }},
		{"h2d_ns", "H2D time", NS, "sum of HtoD copy durations", func(d *DeviceSummary) any { return d.H2D.NS }},
		{"h2d_gbps", "H2D bandwidth", GBps, "h2d_bytes / h2d_ns, in GB/s with GB = 1e9 B; 0 without copies", func(d *DeviceSummary) any { return d.H2D.GBps }},
		{"d2h_copies", "D2H copies", Count, "memcpys of kind DtoH (Nsight copyKind 2)", func(d *DeviceSummary) any { return d.D2H.Copies }},
		{"d2h_bytes", "D2H bytes", Bytes, "bytes moved by DtoH copies", func(d *DeviceSummary) any { return d.D2H.Bytes }},
		{"d2h_ns", "D2H time", NS, "sum of DtoH copy durations", func(d *DeviceSummary) any { return d.D2H.NS }},
		{"d2h_gbps", "D2H bandwidth", GBps, "d2h_bytes / d2h_ns, GB/s; 0 without copies", func(d *DeviceSummary) any { return d.D2H.GBps }},
		{"name", "name", Text, "device name, when the trace gives it", func(d *DeviceSummary) any { return d.Name }},
		{"streams", "streams", Count, "streams with GPU activity on the device", func(d *DeviceSummary) any { return d.Streams }},
		{"kernel_min_ns", "min kernel", NS, "shortest kernel", func(d *DeviceSummary) any { return d.KernelMinNS }},
		{"kernel_p90_ns", "p90 kernel", NS, "90th percentile kernel duration, nearest rank (the smallest duration with ≥ 90 % of kernels at or below it)", func(d *DeviceSummary) any { return d.KernelP90NS }},
		{"kernel_p99_ns", "p99 kernel", NS, "99th percentile kernel duration, nearest rank", func(d *DeviceSummary) any { return d.KernelP99NS }},
		{"kernel_max_ns", "max kernel", NS, "longest kernel", func(d *DeviceSummary) any { return d.KernelMaxNS }},
		{"largest_gap_ns", "largest gap", NS, "longest idle gap", func(d *DeviceSummary) any { return d.LargestGapNS }},
		{"start_ns", "first start", NS, "first GPU activity start, on the trace's clock", func(d *DeviceSummary) any { return d.StartNS }},
		{"end_ns", "last end", NS, "last GPU activity end, on the trace's clock", func(d *DeviceSummary) any { return d.EndNS }},
		{"other_copies", "other copies", Count, "memcpys of every other kind (DtoD, HtoH, PtoP, unified memory, …)", func(d *DeviceSummary) any { return d.otherCopies().Copies }},
		{"other_copy_bytes", "other copy bytes", Bytes, "bytes moved by those copies", func(d *DeviceSummary) any { return d.otherCopies().Bytes }},
		{"other_copy_ns", "other copy time", NS, "sum of their durations", func(d *DeviceSummary) any { return d.otherCopies().NS }},
		{"memsets", "memsets", Count, "memset executions", func(d *DeviceSummary) any { return d.Memsets }},
		{"memset_bytes", "memset bytes", Bytes, "bytes set", func(d *DeviceSummary) any { return d.MemsetBytes }},
		{"memset_ns", "memset time", NS, "sum of memset durations", func(d *DeviceSummary) any { return d.MemsetNS }},
		{"launches", "kernel launches", Count, "eager kernel launch calls (" + namesDoc(kernelLaunchPrefixes) + ", and their variants) whose kernels ran on the device, matched on correlation id within a process", func(d *DeviceSummary) any { return d.Launch.Launches }},
		{"graph_launches", "graph launches", Count, "graph launch calls (" + namesDoc(graphLaunchNames) + ") whose kernels ran on the device", func(d *DeviceSummary) any { return d.Launch.GraphLaunches }},
		{"kernels_per_launch", "kernels per launch", Count, "kernels matched to an eager launch call / launches: eager launches only (graph replays are kernels_per_graph_launch)", func(d *DeviceSummary) any { return d.Launch.KernelsPerLaunch }},
		{"graph_kernels", "graph kernels", Count, "kernels replayed by graph launches", func(d *DeviceSummary) any { return d.Launch.GraphKernels }},
		{"kernels_per_graph_launch", "kernels per graph launch", Count, "graph_kernels / graph_launches: the kernels one graph replays", func(d *DeviceSummary) any { return d.Launch.KernelsPerGraphLaunch }},
		{"launch_ns", "launch CPU time", NS, "CPU time spent in those launch calls, eager and graph (the sum of call durations)", func(d *DeviceSummary) any { return d.Launch.LaunchNS }},
		{"launch_mean_ns", "CPU cost of a launch", NS, "launch_ns / (launches + graph_launches): how long one launch call keeps the CPU", func(d *DeviceSummary) any { return d.Launch.MeanLaunchNS }},
		{"queue_delay_median_ns", "queue delay (median)", NS, "median of (GPU start of a launch's first kernel − the end of its launch call), HTA's launch delay: how long launched work waited for the GPU; it grows when the CPU runs further ahead, which is healthy, and is negative when a kernel starts before its call returns", func(d *DeviceSummary) any { return d.Launch.QueueDelayMedianNS }},
		{"queue_delay_p90_ns", "queue delay (p90)", NS, "90th percentile of the queue delay, nearest rank", func(d *DeviceSummary) any { return d.Launch.QueueDelayP90NS }},
		{"launch_to_start_median_ns", "launch + queue (median)", NS, "median of (GPU start of a launch's first kernel − the start of its launch call): the call's CPU cost plus the queue delay; a launch whose kernel starts before its call is left out (see the warning)", func(d *DeviceSummary) any { return d.Launch.StartDelayMedianNS }},
		{"launch_to_start_p90_ns", "launch + queue (p90)", NS, "90th percentile of that time, nearest rank", func(d *DeviceSummary) any { return d.Launch.StartDelayP90NS }},
		{"idle_sync_ns", "idle: in host syncs", NS, "idle time during which a host synchronization was in progress: a blocking call (" + namesDoc(SyncCalls()) + ", with any _v2/_ptsz suffix), or a Nsight SYNCHRONIZATION row or Kineto cuda_sync event of the device other than stream waits, which do not block the host. Only the time a sync overlaps counts, not the whole gap", func(d *DeviceSummary) any { return d.IdleSyncNS }},
		{"idle_launch_ns", "idle: waiting on launches", NS, "the rest of each idle gap whose next GPU work was launched by a call that began after the GPU went idle: the CPU was late", func(d *DeviceSummary) any { return d.IdleLaunchNS }},
		{"idle_other_ns", "idle: other", NS, "the rest of idle_ns: the GPU waited although its next work had been launched already (waits on another stream or event, between profiled steps), or that work's launch call is not in the trace. idle_sync_ns + idle_launch_ns + idle_other_ns = idle_ns", func(d *DeviceSummary) any { return d.IdleOtherNS }},
		{"steps", "steps", Count, "ProfilerStep#N windows measured on the device (the steps table); 0 when the trace has none", func(d *DeviceSummary) any { return len(d.Steps) }},
		{"step_median_ns", "median step", NS, "median length of those windows; the mean of the two middle values for an even count; 0 without steps", func(d *DeviceSummary) any { return d.StepMedianNS }},
		{"comm_kernels", "comm kernels", Count, "communication kernels: names holding, in any case and with '_' or '-' ignored, one of " + namesDoc(commPatterns) + " (NCCL, RCCL, PyTorch symmetric memory, vLLM custom all-reduce)", func(d *DeviceSummary) any { return d.Comm.Kernels }},
		{"comm_ns", "comm time", NS, "length of the union of their intervals", func(d *DeviceSummary) any { return d.Comm.NS }},
		{"compute_ns", "compute time", NS, "length of the union of the other kernels' intervals", func(d *DeviceSummary) any { return d.Comm.ComputeNS }},
		{"comm_overlap", "comm overlap", Ratio, "share of comm_ns during which a compute kernel also runs: communication hidden under computation; 0 without communication", func(d *DeviceSummary) any { return d.Comm.Overlap }},
		{"window", "window", Text, "the part of the trace measured: whole, or as --steps, --skip-steps, --window, --range or --steady chose it (steps 2–4, window 100ms:500ms, range NAME, steady: steps 3–10)", func(d *DeviceSummary) any { return cmp.Or(d.Window, "whole") }},
		{"bound", "bound", Text, "what holds the GPU back, as summarize's note says: none when idle_ns < 10 % of span_ns; else launch when idle_launch_ns ≥ idle_ns / 2 with half of it or more in gaps under 1 ms (graph-launch when the device ran graph launches), host when idle_launch_ns ≥ idle_ns / 2 otherwise, sync when idle_sync_ns ≥ idle_ns / 2, else none", func(d *DeviceSummary) any { return Verdict(d).String() }},
		// torch.compile (compile.go).
		{"compiled_regions", "compiled regions", Count, "calls of Torch-Compiled Region: F/R host ops (frame F, compilation R) in the trace, the same for every device", func(d *DeviceSummary) any { return d.Compile.Regions }},
		{"compiled_frames", "compiled frames", Count, "distinct frame ids F among the compiled regions", func(d *DeviceSummary) any { return d.Compile.Frames }},
		{"recompiles", "recompiles", Count, "distinct (F, R) among the compiled regions with R > 0: compilations of a frame after its first", func(d *DeviceSummary) any { return d.Compile.Recompiles }},
		{"compiled_kernel_ns", "compiled kernel time", NS, "sum of the durations of the kernels whose launch call (eager or graph, matched on correlation id) lies within a compiled range on the calling thread (same pid and tid): a Torch-Compiled Region, or an AOTAutograd CompiledFunction or CompiledFunctionBackward op (what PyTorch before 2.3 records, and the backward's only mark); graph replays included", func(d *DeviceSummary) any { return d.Compile.KernelNS }},
		{"compiled_kernel_share", "compiled share", Ratio, "compiled_kernel_ns / kernel_ns; 0 without kernels", func(d *DeviceSummary) any { return d.Compile.Share }},
		{"graph_kernel_ns", "graph kernel time", NS, "sum of the durations of the kernels replayed by graph launch calls (graph_kernels), inside compiled ranges or not", func(d *DeviceSummary) any { return d.Compile.GraphKernelNS }},
		{"dynamo_lookup_ns", "Dynamo lookup time", NS, "sum of the durations of the TorchDynamo Cache Lookup host ops (Dynamo's guard checks before each call of a compiled frame; they do not nest), all threads", func(d *DeviceSummary) any { return d.Compile.DynamoLookupNS }},
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
}

// HostColumns returns the host-side metrics in output order.
func HostColumns() []HostColumn {
	return []HostColumn{
		{"host_span_ns", "host span", NS, "last host event end − first host event start; host events = ops and annotations (not their GPU copies) and runtime or driver calls", func(s *Summary) any { return s.Host.SpanNS }},
		{"host_ops", "host ops", Count, "cpu_op events", func(s *Summary) any { return s.Host.Ops }},
		{"api_calls", "runtime/driver calls", Count, "runtime and driver API calls", func(s *Summary) any { return s.Host.APICalls }},
		{"op_busy_ns", "time in ops", NS, "length of the union of the cpu_op intervals over all threads: time in which some thread ran an op", func(s *Summary) any { return s.Host.OpBusyNS }},
		{"outside_ops_ns", "time outside ops", NS, "host_span_ns − op_busy_ns: time in which no thread ran an op (Python between ops, data loading, waits)", func(s *Summary) any { return s.Host.OutsideOpsNS }},
		{"host_steps", "steps", Count, "CPU ProfilerStep#N ranges, each starting no earlier than the one before ends", func(s *Summary) any { return len(s.Host.Steps) }},
		{"host_step_median_ns", "median step", NS, "median length of those steps; the mean of the two middle values for an even count; 0 without steps", func(s *Summary) any { return s.Host.StepMedianNS }},
		{"warmup_steps", "warm-up steps", Count, "leading steps longer than twice the median step (warm-up, compilation), at most all but one; none with under 3 steps", func(s *Summary) any { return s.Host.WarmupSteps }},
		{"steady_step_median_ns", "median step after warm-up", NS, "median length of the steps after the warm-up steps", func(s *Summary) any { return s.Host.SteadyStepMedianNS }},
		{"compiled_regions", "compiled regions", Count, "as the device column of that name", func(s *Summary) any { return s.Compile.Regions }},
		{"compiled_frames", "compiled frames", Count, "as the device column of that name", func(s *Summary) any { return s.Compile.Frames }},
		{"recompiles", "recompiles", Count, "as the device column of that name", func(s *Summary) any { return s.Compile.Recompiles }},
		{"compiled_host_ns", "host time in compiled code", NS, "per thread, the length of the union of its compiled ranges (Torch-Compiled Region, CompiledFunction, CompiledFunctionBackward), summed over threads", func(s *Summary) any { return s.Compile.CompiledHostNS }},
		{"dynamo_lookup_ns", "Dynamo lookup time", NS, "as the device column of that name (a sum of durations)", func(s *Summary) any { return s.Compile.DynamoLookupNS }},
	}
}
