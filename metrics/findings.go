package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// Severity orders findings by how much of the run they cost.
type Severity uint8

// Severities. A finding's severity follows from its measured time as a
// share of the device's span (severityOf), its savings when it has them;
// the trust checks, which cost no time but make other numbers doubtful,
// are Warn whatever their count.
const (
	Info Severity = iota // nothing measured to cost time, or under 1 % of the span
	Low                  // 1 % to 5 % of the span
	Warn                 // 5 % to 20 % of the span, or a trust check
	High                 // 20 % of the span or more
)

var severityNames = [...]string{"info", "low", "warn", "high"}

func (s Severity) String() string { return severityNames[s] }

// ParseSeverity reads a severity's name.
func ParseSeverity(name string) (Severity, bool) {
	i := slices.Index(severityNames[:], name)
	return Severity(max(i, 0)), i >= 0
}

// SeverityNames lists the severities, lowest first: for flags and help.
func SeverityNames() []string { return slices.Clone(severityNames[:]) }

// severityOf grades time ns of a span: see Severity.
func severityOf(ns, span int64) Severity {
	p := sharePct(ns, span)
	switch {
	case p >= 20:
		return High
	case p >= 5:
		return Warn
	case p >= 1:
		return Low
	}
	return Info
}

// A Finding is one pattern a rule found on one device, with what it cost.
type Finding struct {
	Rule     string // a Rules() id
	Severity Severity
	Device   int
	Count    int // occurrences: copies, calls, kernels, gaps, frames (the rule's Doc says which)
	// TimeNS is the time the pattern took, measured: copy time, idle
	// time it caused, kernel time (the rule's Doc says which); 0 when the
	// trace does not measure one.
	TimeNS int64
	// SavingsNS is an upper bound of the time the fix removes from the
	// device's span, when HasSavings; it is never more than TimeNS or the
	// span. Rules whose fix's effect the numbers do not bound have none.
	SavingsNS  int64
	HasSavings bool
	Bytes      int64  // bytes moved, for copy rules; else 0
	Evidence   string // the names, ops or calls that show it, and their numbers
	Fix        string // one sentence
}

// A Rule is one kind of finding: its id, what it measures, the threshold
// it fires at and where that definition comes from.
type Rule struct {
	ID        string
	Doc       string // what it finds, what count and time_ns are
	Threshold string
	Source    string // nsys analyze, PyTorch's pattern matcher, a measurement
	Savings   string // what savings_ns bounds; "" for none
}

// Thresholds the rules fire at.
const (
	// SlowLaunchNS: a launch call this long is no launch overhead (a few
	// µs) but work inside the driver: module loading on a kernel's first
	// use under CUDA lazy loading.
	SlowLaunchNS = 1_000_000
	// tinyKernelNS: kernels shorter than this take about as long on the
	// GPU as their launch takes on the CPU (a launch call costs 2–10 µs).
	tinyKernelNS = 5_000
	// optimizerLaunchesPerStep: an optimizer step launching this many
	// kernels with no multi-tensor kernel among them runs parameter by
	// parameter.
	optimizerLaunchesPerStep = 100
)

// Rules lists every rule, in the order findings of equal cost are listed.
func Rules() []Rule {
	return []Rule{
		{"slow-launch", "kernel or graph launch calls of the device taking " + fmtNS(SlowLaunchNS) + " or more: module loading on a kernel's first use (CUDA lazy loading), not launch overhead; count: such calls; time_ns: their CPU time",
			"call ≥ 1 ms", "a measurement: launch calls take 2–10 µs; the 2021 ResNet-50 run's 2.13 s cudaLaunchKernel is module loading", "the idle time of gaps that wait on such a call"},
		{"pageable-copy", "copies between the device and pageable host memory (Memcpy … (Pageable -> Device)): the driver stages them through a pinned buffer and the copy cannot overlap host work; count, bytes, time_ns: the copies' own durations",
			"any", "nsys analyze's rule on asynchronous copies with pageable memory; PyTorch's pattern matcher has no such rule", ""},
		{"sync-copy", "copies issued by a blocking call (cudaMemcpy, hipMemcpy, hipMemcpyWithStream, cuMemcpyDtoH…): the host waits until the copy is done; count, bytes, time_ns: the calls' CPU time",
			"any", "nsys analyze's rule on synchronous copies", ""},
		{"sync-memset", "memsets issued by a blocking call (cudaMemset, hipMemset, cuMemsetD8…); count, bytes, time_ns: the calls' CPU time",
			"any", "nsys analyze's rule on synchronous memsets", ""},
		{"host-sync", "idle gaps in which the host waits in a synchronization (cudaStreamSynchronize, cudaDeviceSynchronize, blocking copies; what .item(), .cpu(), .tolist() and nonzero reach): the GPU drains, then waits for the launch after the sync returns, which would otherwise have been queued; count: such gaps; time_ns: their time in syncs and waiting on launches",
			"time_ns ≥ 1 % of the span", "nsys analyze's rule on synchronization API calls; a measurement of the gaps they open (the H200 pair item-sync-b32: 8.47 ms before, 3.05 ms after removing .item())", ""},
		{"fp32-gemm", "GEMM and convolution kernels on the fp32 path without tensor cores (sgemm, scudnn, …f32f32…ffma), never tf32, bf16 or fp16 tensor-op kernels; count: kernels; time_ns: their kernel time",
			"kernel time ≥ 1 % of the device's", "PyTorch's pattern matcher (FP32MatMulPattern, on Ampere and later) extended to convolutions and Volta", ""},
		{"tiny-kernels", "a launch-bound device (verdict launch or graph-launch) whose median kernel is under " + fmtNS(tinyKernelNS) + ": the CPU launches kernels more slowly than the GPU runs them; count: kernels under " + fmtNS(tinyKernelNS) + "; time_ns: the launch wait of gaps under 1 ms (short_launch_ns)",
			"launch-bound and median kernel < 5 µs", "a measurement: a launch call costs 2–10 µs of CPU (launch_mean_ns of the real traces)", "short_launch_ns: what the verdict bounds for CUDA graphs"},
		{"dataloader-wait", "GPU idle time while the host is inside the DataLoader's __next__ (enumerate(DataLoader)#… ranges); count: such ranges met by idle time; time_ns: that idle time",
			"idle ≥ 1 % of the span", "PyTorch's pattern matcher (SynchronizedDataLoaderPattern looks for num_workers=0; this measures the wait itself)", "that idle time: loading the next batch while the GPU computes removes at most it"},
		{"single-tensor-optimizer", "optimizer steps (Optimizer.step#… ranges) launching " + fmt.Sprint(optimizerLaunchesPerStep) + " or more kernels a step with no multi-tensor (foreach/fused) kernel; count: kernels launched in the steps; time_ns: their kernel time",
			"≥ 100 launches a step, no multi_tensor_apply kernel", "PyTorch's pattern matcher (OptimizerSingleTensorPattern, which needs Python stacks; this reads the kernels)", ""},
		{"recompile", "torch.compile frames compiled more than once (Torch-Compiled Region: F/R with R > 0), or with --compile-log the recompiles the log holds (compiles of a frame after its first, with their failed guards); count: recompiles; no time: the profile does not hold the compile time",
			"any", "torch.compile's own frame numbering (Torch-Compiled Region: F/R)", ""},
		{"graph-break", "more than one compiled frame with kernels launched outside compiled code: Dynamo makes a frame of the code after each graph break; count: frames; time_ns: the eager kernel time. With --compile-log, the graph breaks the log holds instead (count: breaks, exactly)",
			"> 1 frame and eager kernel time > 0; with a log, any break", "torch.compile's own frame numbering, a guess, as separate compiled functions also make frames; with --compile-log, Dynamo's own log (dynamo_graph_break_reason, num_graph_breaks)", ""},
		{"exposed-comm", "communication kernels (NCCL, RCCL) running while no computation does: time the step waits on the network; count: communication kernels; time_ns: comm_ns − comm_overlap_ns",
			"time_ns ≥ 1 % of the span", "a measurement (the summary's communication union against the computation union; HTA's comm/comp overlap)", "time_ns: overlapping all of it with computation removes at most it"},
		{"exposed-copy", "copies (H2D, D2H, device to device) running while no kernel does: time the GPU waits on the host link or on a copy engine; count: copies exposed for part of their time at least; bytes: theirs; time_ns: copy_exposed_ns",
			"time_ns ≥ 1 % of the span", "a measurement (the summary's time split: copy_exposed_ns); the achieved GB/s against the host link's peak from traceql's table of links (traceql help links)", "time_ns: overlapping all of it with kernels removes at most it"},
		{"lost-activity", "kernels with no launch call in the trace (launched before the profiler started, or the call lost): their launch and idle cause are unknown; count: such kernels; time_ns: their kernel time",
			"any, with launch calls in the trace", "a trust check: CUPTI drops records when its buffers fill", ""},
		{"lost-launches", "kernel and graph launch calls matched to no device work (the trace's, on its first device): their kernels were lost or ran after the profiler stopped; count: such calls",
			"any, whole traces only", "a trust check: CUPTI drops records when its buffers fill", ""},
		{"clock-skew", "launches whose first kernel starts before the launch call does, which no launch can: a correlation id shared by two calls, or clocks out of step; count: such launches",
			"any", "a trust check (HTA counts negative launch delays)", ""},
	}
}

func fmtNS(ns int64) string {
	if ns >= 1e6 {
		return fmt.Sprintf("%d ms", ns/1e6)
	}
	return fmt.Sprintf("%d µs", ns/1e3)
}

// findingInputs are what the rules read, gathered on the summary's one
// pass over the device's records (summarizeDevice, summarizeTimeline,
// launches).
type findingInputs struct {
	pageable, syncCopy, syncMemset counted
	pageableNames                  map[string]int // "HtoD (Pageable -> Device)" → copies
	syncCopyCalls, syncMemsetCalls map[string]int // call name → calls
	fp32                           counted
	fp32Top                        KernelStat    // the fp32 kernel name of most time
	tiny                           int           // kernels under tinyKernelNS
	noLaunch                       counted       // kernels with no launch call
	dataloaderNS                   int64         // idle inside DataLoader ranges
	dataloaderRanges               int           // DataLoader ranges met by idle time
	dataloaderAll                  int           // DataLoader ranges, merged
	optimizer                      counted       // kernels launched inside optimizer steps
	multiTensor                    bool          // a multi-tensor kernel launched inside one
	syncGaps                       int           // gaps with sync time
	syncGapNS                      int64         // their sync and launch time
	fp32Conv                       counted       // of fp32, the convolutions (isConvKernel)
	fp32ConvTop                    KernelStat    // the fp32 convolution of most time
	copies                         []copyRec     // the device's copies
	exposed                        exposedCopies // those the time split leaves exposed
}

// counted is a number of things, their time and bytes.
type counted struct {
	n         int
	ns, bytes int64
}

func (c *counted) add(ns, bytes int64) { c.n++; c.ns += ns; c.bytes += bytes }

// findingRanges are the host ranges the rules read, found on compileOps'
// pass over the trace's ops (the DataLoader's are the host row's,
// collectHostRanges).
type findingRanges struct {
	optimizer []Interval // Optimizer.step#… ranges, merged
	optSteps  int
	syncOps   map[string]int // aten::item and the like, by name
}

// visit reads op if it is an optimizer step or an op that
// synchronizes (trace.IsSyncOp); compileOps shows it every host op within
// the window, on its one pass over them, and calls done after.
func (h *findingRanges) visit(op *trace.Op) {
	switch op.Name[0] {
	case 'O':
		if strings.HasPrefix(op.Name, trace.OptimizerStepPrefix) {
			h.optimizer = append(h.optimizer, Interval{op.Start, op.End})
			h.optSteps++
		}
	case 'a':
		if trace.IsSyncOp(op.Name) {
			if h.syncOps == nil {
				h.syncOps = map[string]int{}
			}
			h.syncOps[op.Name]++
		}
	}
}

// done merges the ranges visited.
func (h *findingRanges) done() {
	h.optimizer = union(h.optimizer)
}

// inUnion reports whether x lies in one of the sorted, disjoint us.
func inUnion(us []Interval, x int64) bool {
	i, _ := slices.BinarySearchFunc(us, x, func(u Interval, x int64) int { return cmp.Compare(u.End, x) })
	return i < len(us) && us[i].Start <= x && x < us[i].End
}

// overlapLen is the length of the part of g inside the sorted, disjoint
// us.
func overlapLen(us []Interval, g Interval) int64 {
	i, _ := slices.BinarySearchFunc(us, g.Start, func(u Interval, x int64) int { return cmp.Compare(u.End, x) })
	var n int64
	for ; i < len(us) && us[i].Start < g.End; i++ {
		n += max(0, min(us[i].End, g.End)-max(us[i].Start, g.Start))
	}
	return n
}

// isFP32GEMM reports whether a kernel name is a GEMM or convolution on the
// fp32 path without tensor cores: cuBLAS/CUTLASS sgemm and SIMT ffma
// kernels, cuDNN's scudnn and implicit sgemm convolutions. Tensor-op
// kernels (tf32, bf16, fp16, the mma shapes s1688/s16816/h884…) never
// are.
func isFP32GEMM(name string) bool {
	n := name // the libraries spell these in lower case
	fp32 := strings.Contains(n, "sgemm") || strings.Contains(n, "scudnn") ||
		strings.Contains(n, "f32f32") && strings.Contains(n, "ffma")
	if !fp32 {
		return false
	}
	for _, tc := range []string{"tensorop", "tf32", "bf16", "f16", "fp16", "hmma", "884", "1688", "16816", "i8"} {
		if strings.Contains(n, tc) {
			return false
		}
	}
	return true
}

// isMultiTensorKernel reports whether a kernel applies one operation to
// many tensors at once: PyTorch's foreach and fused optimizer kernels.
func isMultiTensorKernel(name string) bool {
	return strings.Contains(name, "multi_tensor_apply") || strings.Contains(name, "fused_adam") ||
		strings.Contains(name, "FusedSgd") || strings.Contains(name, "fused_sgd")
}

// deviceFindings applies the rules to d, whose summary is complete, and
// what its pass gathered; the findings are sorted by severity, then time,
// then rule order.
func deviceFindings(d *DeviceSummary, dev trace.Device, in *findingInputs, h *findingRanges, c *CompileStats) []Finding {
	var out []Finding
	span := d.SpanNS
	add := func(f Finding) {
		f.Device = d.Device
		if f.HasSavings {
			f.SavingsNS = min(f.SavingsNS, f.TimeNS, span)
		}
		if f.Severity == Info {
			// What the device would gain when bounded (a slow launch's
			// CPU time may pass while the GPU works), else what it took.
			ns := f.TimeNS
			if f.HasSavings {
				ns = f.SavingsNS
			}
			f.Severity = severityOf(ns, span)
		}
		out = append(out, f)
	}
	if l := d.Launch; l.SlowLaunches > 0 {
		add(Finding{Rule: "slow-launch", Count: l.SlowLaunches, TimeNS: l.SlowLaunchNS,
			SavingsNS: d.IdleSlowLaunchNS, HasSavings: true,
			Evidence: fmt.Sprintf("longest %s (%s); median launch call %s", l.SlowestLaunch, fmtDur(l.SlowestLaunchNS), fmtDur(int64(l.MedianLaunchNS))),
			Fix:      "warm up before measuring (run each shape once), or load modules at start: CUDA_MODULE_LOADING=EAGER"})
	}
	if p := in.pageable; p.n > 0 {
		add(Finding{Rule: "pageable-copy", Count: p.n, TimeNS: p.ns, Bytes: p.bytes, Evidence: topCounts(in.pageableNames, 2),
			Fix: "pin the host memory: DataLoader(pin_memory=True), tensor.pin_memory(), then .to(device, non_blocking=True)"})
	}
	if p := in.syncCopy; p.n > 0 {
		add(Finding{Rule: "sync-copy", Count: p.n, TimeNS: p.ns, Bytes: p.bytes, Evidence: topCounts(in.syncCopyCalls, 2),
			Fix: "copy asynchronously (cudaMemcpyAsync, .to(non_blocking=True) from pinned memory) and synchronize once, where the result is needed"})
	}
	if p := in.syncMemset; p.n > 0 {
		add(Finding{Rule: "sync-memset", Count: p.n, TimeNS: p.ns, Bytes: p.bytes, Evidence: topCounts(in.syncMemsetCalls, 2),
			Fix: "use cudaMemsetAsync on the work's stream"})
	}
	if in.syncGapNS > 0 && severityOf(in.syncGapNS, span) > Info {
		ev := fmt.Sprintf("%s in the syncs, %s waiting on the launch after them", fmtDur(d.IdleSyncNS), fmtDur(in.syncGapNS-d.IdleSyncNS))
		if len(h.syncOps) > 0 {
			ev += "; ops " + topCounts(h.syncOps, 3)
		}
		add(Finding{Rule: "host-sync", Count: in.syncGaps, TimeNS: in.syncGapNS, Evidence: ev,
			Fix: "keep values on the GPU inside the step: no .item(), .cpu(), .tolist(), print or data-dependent shapes (nonzero, boolean masks) until the step ends"})
	}
	if in.fp32.n > 0 && sharePct(in.fp32.ns, d.KernelNS) >= 1 {
		add(fp32Finding(d, dev, in))
	}
	if b := Verdict(d); (b == LaunchBound || b == GraphLaunchBound) && d.KernelMedianNS < tinyKernelNS {
		add(Finding{Rule: "tiny-kernels", Count: in.tiny, TimeNS: d.ShortLaunchNS, SavingsNS: d.ShortLaunchNS, HasSavings: true,
			Evidence: fmt.Sprintf("%d of %s under %s; median kernel %s, median launch call %s", in.tiny, Plural(d.Kernels, "kernels"), fmtNS(tinyKernelNS),
				fmtDur(int64(d.KernelMedianNS)), fmtDur(int64(d.Launch.MedianLaunchNS))),
			Fix: "launch fewer, larger kernels: CUDA graphs (torch.compile mode='reduce-overhead'), fusion (torch.compile), larger batches"})
	}
	if in.dataloaderNS > 0 && severityOf(in.dataloaderNS, span) > Info {
		add(Finding{Rule: "dataloader-wait", Count: in.dataloaderRanges, TimeNS: in.dataloaderNS, SavingsNS: in.dataloaderNS, HasSavings: true,
			Evidence: fmt.Sprintf("%d of %s", in.dataloaderRanges, Plural(in.dataloaderAll, "DataLoader ranges")),
			Fix:      "load batches in worker processes (DataLoader(num_workers>0, pin_memory=True, persistent_workers=True)) and prefetch"})
	}
	if h.optSteps > 0 && !in.multiTensor && in.optimizer.n >= optimizerLaunchesPerStep*h.optSteps {
		add(Finding{Rule: "single-tensor-optimizer", Count: in.optimizer.n, TimeNS: in.optimizer.ns,
			Evidence: fmt.Sprintf("%s in %s, none multi-tensor", Plural(in.optimizer.n, "kernels"), Plural(h.optSteps, "optimizer steps")),
			Fix:      "use the multi-tensor optimizer: torch.optim.X(..., foreach=True), or fused=True"})
	}
	if cm := d.Comm; cm.Kernels > 0 && severityOf(cm.NS-cm.OverlapNS, span) > Info {
		exposed := cm.NS - cm.OverlapNS
		add(Finding{Rule: "exposed-comm", Count: cm.Kernels, TimeNS: exposed, SavingsNS: exposed, HasSavings: true,
			Evidence: fmt.Sprintf("%s of %s communication hidden behind computation", ShareText(cm.OverlapNS, cm.NS), fmtDur(cm.NS)),
			Fix:      "overlap communication with computation: DDP bucketing (bucket_cap_mb), FSDP prefetch, async collectives on their own stream"})
	}
	if f, ok := exposedCopyFinding(d, in.exposed); ok {
		add(f)
	}
	if c.Recompiles > 0 {
		add(Finding{Rule: "recompile", Count: c.Recompiles, Evidence: strings.Join(RecompileNotes(c), "; "),
			Fix: "find why with TORCH_LOGS=recompiles; mark changing sizes dynamic (torch._dynamo.mark_dynamic) or keep them fixed"})
	}
	if dc := d.Compile; c.Frames > 1 && dc.KernelNS < d.KernelNS && (dc.Regions+dc.CompiledFunctions) > 0 {
		add(Finding{Rule: "graph-break", Count: c.Frames, TimeNS: d.KernelNS - dc.KernelNS,
			Evidence: fmt.Sprintf("%s; %s of kernel time eager", Plural(c.Frames, "compiled frames"), ShareText(d.KernelNS-dc.KernelNS, d.KernelNS)),
			Fix:      "list the breaks with TORCH_LOGS=graph_breaks (or torch._dynamo.explain) and remove them; fullgraph=True makes one an error"})
	}
	if in.noLaunch.n > 0 {
		add(Finding{Rule: "lost-activity", Severity: Warn, Count: in.noLaunch.n, TimeNS: in.noLaunch.ns,
			Evidence: "kernels whose correlation id matches no launch call",
			Fix:      "start the profiler before the work (a warm-up step with schedule(wait, warmup)), or enlarge CUPTI's buffers"})
	}
	if n := d.Launch.Inverted; n > 0 {
		add(Finding{Rule: "clock-skew", Severity: Warn, Count: n, Evidence: "kernels starting before their launch call",
			Fix: "do not trust launch delays of this trace: record again, one process per trace"})
	}
	sortFindings(out)
	return out
}

// sortFindings orders findings by severity, the most first, then time,
// then rule order.
func sortFindings(fs []Finding) {
	order := map[string]int{}
	for i, r := range Rules() {
		order[r.ID] = i
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.TimeNS, a.TimeNS), cmp.Compare(order[a.Rule], order[b.Rule]),
			cmp.Compare(a.Device, b.Device))
	})
}

// topCounts writes the n most counted names of m, "name ×count", most
// first, ties by name.
func topCounts(m map[string]int, n int) string {
	type nc struct {
		name string
		n    int
	}
	var all []nc
	for k, v := range m {
		all = append(all, nc{k, v})
	}
	slices.SortFunc(all, func(a, b nc) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name)) })
	var parts []string
	for _, x := range all[:min(n, len(all))] {
		parts = append(parts, fmt.Sprintf("%s ×%d", x.name, x.n))
	}
	if len(all) > n {
		parts = append(parts, fmt.Sprintf("%d more", len(all)-n))
	}
	return strings.Join(parts, ", ")
}

// fmtDur writes ns for evidence text, in the unit that reads best.
func fmtDur(ns int64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", float64(ns)/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	}
	return fmt.Sprintf("%d ns", ns)
}

// syncCall returns the API call that issued device work a when that call
// blocks the host (IsSync, as syncs marks them), or nil.
func syncCall(t *trace.Trace, ix launchIndex, syncs *syncSet, a *trace.Activity) *trace.APICall {
	if len(syncs.calls) == 0 {
		return nil // no blocking call in the trace: no lookup
	}
	if ci := ix.call(a); ci >= 0 && syncs.blocks(ci) {
		return &t.APICalls[ci]
	}
	return nil
}

// countName counts one more of name in m, made when nil.
func countName(m map[string]int, name string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[name]++
	return m
}

// callIdle sums, by call name, the idle time of long gaps during which
// the host sat inside a long call (longCall) of that name.
type callIdle struct {
	maxDur int64
	ns     map[string]int64
	max    map[string]int64
}

func newCallIdle(long []longCall) *callIdle {
	c := &callIdle{ns: map[string]int64{}, max: map[string]int64{}}
	for _, l := range long {
		c.maxDur = max(c.maxDur, l.Len())
	}
	return c
}

// add counts the part of gap g inside the long calls, the union of each
// name's calls (two threads may be inside one name at once).
func (c *callIdle) add(long []longCall, g Interval) {
	// Calls are sorted by start, and none is longer than maxDur: those
	// meeting g start in [g.Start − maxDur, g.End).
	i, _ := slices.BinarySearchFunc(long, g.Start-c.maxDur, func(l longCall, x int64) int { return cmp.Compare(l.Start, x) })
	var by map[string][]Interval
	for ; i < len(long) && long[i].Start < g.End; i++ {
		l := &long[i]
		if l.End <= g.Start {
			continue
		}
		if by == nil {
			by = map[string][]Interval{}
		}
		by[l.Name] = append(by[l.Name], Interval{max(l.Start, g.Start), min(l.End, g.End)})
		c.max[l.Name] = max(c.max[l.Name], l.Len())
	}
	for name, ivs := range by {
		c.ns[name] += length(union(ivs))
	}
}

// done names in d the call of the most idle time, ties by name.
func (c *callIdle) done(d *DeviceSummary) {
	for name, ns := range c.ns {
		if ns > d.HostCallIdleNS || ns == d.HostCallIdleNS && name < d.HostCall {
			d.HostCall, d.HostCallIdleNS, d.HostCallMaxNS = name, ns, c.max[name]
		}
	}
}
