package metrics

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/trace"
)

// builder makes a trace of one device whose records are known by
// construction: each piece of GPU work comes with the call that launched
// it, on one host thread.
type builder struct {
	t    trace.Trace
	corr int64
}

func newBuilder(compute int) *builder {
	return &builder{t: trace.Trace{Devices: []trace.Device{{ID: 0, ComputeMajor: compute}}, Streams: []trace.Stream{{Device: 0, ID: 7}}}}
}

// call adds a host API call, returning its correlation id.
func (b *builder) call(name string, start, end int64) int64 {
	b.corr++
	b.t.APICalls = append(b.t.APICalls, trace.APICall{Name: name, PID: 1, TID: 1, Start: start, End: end, Correlation: b.corr})
	return b.corr
}

func (b *builder) act(start, end, corr int64) trace.Activity {
	return trace.Activity{Device: 0, Stream: 7, Start: start, End: end, Correlation: corr}
}

func (b *builder) kernel(name string, start, end, corr int64) {
	b.t.Kernels = append(b.t.Kernels, trace.Kernel{Activity: b.act(start, end, corr), Name: name})
}

func (b *builder) op(name string, kind trace.OpKind, start, end int64) {
	b.t.Ops = append(b.t.Ops, trace.Op{Name: name, Kind: kind, PID: 1, TID: 1, Start: start, End: end})
}

// done sorts the tables as readers do and checks the trace.
func (b *builder) done(tb testing.TB) *trace.Trace {
	tb.Helper()
	t := &b.t
	slices.SortStableFunc(t.Kernels, func(a, b trace.Kernel) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	slices.SortStableFunc(t.Memcpys, func(a, b trace.Memcpy) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	slices.SortStableFunc(t.Memsets, func(a, b trace.Memset) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	slices.SortStableFunc(t.APICalls, func(a, b trace.APICall) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	slices.SortStableFunc(t.Ops, func(a, b trace.Op) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	if err := t.Validate(); err != nil {
		tb.Fatal(err)
	}
	return t
}

// bruteIdle walks device 0's span of t a nanosecond at a time and returns
// its idle nanoseconds that lie in any of ranges, and those during a
// blocking call (IsSync): written apart from the summary's unions.
func bruteIdleIn(t *trace.Trace, ranges []Interval) (inRanges, inSync int64) {
	lo, hi := int64(1<<62), int64(0)
	t.EachGPUActivity(func(a *trace.Activity) { lo, hi = min(lo, a.Start), max(hi, a.End) })
	for ns := lo; ns < hi; ns++ {
		busy := false
		t.EachGPUActivity(func(a *trace.Activity) { busy = busy || a.Start <= ns && ns < a.End })
		if busy {
			continue
		}
		for _, r := range ranges {
			if r.Start <= ns && ns < r.End {
				inRanges++
				break
			}
		}
		for _, c := range t.APICalls {
			if IsSync(c.Name) && c.Start <= ns && ns < c.End {
				inSync++
				break
			}
		}
	}
	return inRanges, inSync
}

func findingsOf(t *trace.Trace) map[string]Finding {
	s := Summarize(t, Options{})
	out := map[string]Finding{}
	for _, d := range s.Devices {
		for _, f := range d.Findings {
			out[f.Rule] = f
		}
	}
	return out
}

// checkBounds is what every finding owes: savings only under time and the
// span, times not negative, a rule that exists.
func checkBounds(tb testing.TB, name string, s Summary) {
	tb.Helper()
	ids := map[string]bool{}
	for _, r := range Rules() {
		ids[r.ID] = true
	}
	for _, d := range s.Devices {
		for _, f := range d.Findings {
			if !ids[f.Rule] {
				tb.Errorf("%s GPU %d: unknown rule %q", name, d.Device, f.Rule)
			}
			if f.TimeNS < 0 || f.Count <= 0 || f.Bytes < 0 {
				tb.Errorf("%s GPU %d %s: count %d, time %d, bytes %d", name, d.Device, f.Rule, f.Count, f.TimeNS, f.Bytes)
			}
			if f.HasSavings && (f.SavingsNS < 0 || f.SavingsNS > f.TimeNS || f.SavingsNS > d.SpanNS) {
				tb.Errorf("%s GPU %d %s: savings %d outside [0, min(time %d, span %d)]", name, d.Device, f.Rule, f.SavingsNS, f.TimeNS, d.SpanNS)
			}
			if !f.HasSavings && f.SavingsNS != 0 {
				tb.Errorf("%s GPU %d %s: savings %d without HasSavings", name, d.Device, f.Rule, f.SavingsNS)
			}
		}
	}
}

// TestFindingsFire: a generated trace in which slow-launch, pageable-copy,
// sync-copy, sync-memset, dataloader-wait, fp32-gemm, lost-activity and
// clock-skew fire with counts, times and bytes known by construction, and
// tiny-kernels (the device is host-bound, not launch-bound) does not.
func TestFindingsFire(t *testing.T) {
	b := newBuilder(8)
	b.kernel("ampere_sgemm_128x64_nn", 1000, 1100, b.call("cudaLaunchKernel", 900, 910))
	b.kernel("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_nn_align8", 1200, 1500, b.call("cudaLaunchKernel", 1000, 1010))
	// A 2,999,890-ns launch call: module loading. The GPU idles from 1500
	// to 3,001,500 waiting on it.
	b.kernel("ampere_sgemm_128x64_nn", 3_001_500, 3_001_600, b.call("cudaLaunchKernel", 1510, 3_001_400))
	b.t.Memcpys = append(b.t.Memcpys,
		trace.Memcpy{Activity: b.act(3_002_000, 3_002_500, b.call("cudaMemcpyAsync", 3_001_600, 3_001_610)), Kind: trace.HtoD,
			Src: trace.Pageable, Dst: trace.DeviceMem, Bytes: 4096},
		// Pinned, but issued by a blocking call of 300 ns.
		trace.Memcpy{Activity: b.act(3_003_000, 3_003_100, b.call("cudaMemcpy", 3_002_900, 3_003_200)), Kind: trace.DtoH,
			Src: trace.DeviceMem, Dst: trace.Pinned, Bytes: 100})
	b.t.Memsets = append(b.t.Memsets, trace.Memset{Activity: b.act(3_003_300, 3_003_400, b.call("cudaMemset", 3_003_250, 3_003_450)),
		Mem: trace.DeviceMem, Bytes: 64})
	b.kernel("k_lost", 3_004_000, 3_004_010, 99) // no call has id 99
	// Starts before its call: clocks out of step.
	b.kernel("k_skew", 3_005_000, 3_005_010, b.call("cudaLaunchKernel", 3_005_005, 3_005_008))
	dl := Interval{1500, 2_000_000}
	b.op(trace.DataLoaderPrefix+"_SingleProcessDataLoaderIter.__next__", trace.UserAnnotation, dl.Start, dl.End)
	tr := b.done(t)
	s := Summarize(tr, Options{})
	checkBounds(t, "generated", s)
	got := findingsOf(tr)

	dlIdle, syncIdle := bruteIdleIn(tr, []Interval{dl})
	want := map[string]Finding{
		"slow-launch":     {Count: 1, TimeNS: 2_999_890, SavingsNS: 2_999_890, HasSavings: true, Severity: High},
		"pageable-copy":   {Count: 1, TimeNS: 500, Bytes: 4096},
		"sync-copy":       {Count: 1, TimeNS: 300, Bytes: 100},
		"sync-memset":     {Count: 1, TimeNS: 200, Bytes: 64},
		"dataloader-wait": {Count: 1, TimeNS: dlIdle, SavingsNS: dlIdle, HasSavings: true, Severity: High},
		"fp32-gemm":       {Count: 2, TimeNS: 200, Severity: Info},
		"lost-activity":   {Count: 1, TimeNS: 10, Severity: Warn},
		"clock-skew":      {Count: 1, Severity: Warn},
	}
	if dlIdle != 2_000_000-1500 {
		t.Fatalf("brute force: %d idle ns in the DataLoader range, want all of it", dlIdle)
	}
	for rule, w := range want {
		f, ok := got[rule]
		if !ok {
			t.Errorf("%s: did not fire", rule)
			continue
		}
		if f.Count != w.Count || f.TimeNS != w.TimeNS || f.Bytes != w.Bytes || f.HasSavings != w.HasSavings || f.SavingsNS != w.SavingsNS {
			t.Errorf("%s: count %d time %d bytes %d savings %d/%v, want %d %d %d %d/%v", rule, f.Count, f.TimeNS, f.Bytes,
				f.SavingsNS, f.HasSavings, w.Count, w.TimeNS, w.Bytes, w.SavingsNS, w.HasSavings)
		}
		if w.Severity != Info && f.Severity != w.Severity {
			t.Errorf("%s: severity %s, want %s", rule, f.Severity, w.Severity)
		}
		if f.Fix == "" || f.Evidence == "" {
			t.Errorf("%s: no fix or evidence: %+v", rule, f)
		}
	}
	if f := got["fp32-gemm"]; !strings.Contains(f.Fix, "TF32") || !strings.Contains(f.Evidence, "ampere_sgemm") {
		t.Errorf("fp32-gemm on compute 8: fix %q, evidence %q", f.Fix, f.Evidence)
	}
	// The sync time is too small a share to report: host-sync stays out,
	// as does tiny-kernels on a host-bound device.
	if syncIdle*100 >= s.Devices[0].SpanNS {
		t.Fatalf("brute force: sync idle %d of span %d; the case wants under 1 %%", syncIdle, s.Devices[0].SpanNS)
	}
	if s.Devices[0].IdleSyncNS != syncIdle {
		t.Errorf("idle in syncs %d, brute force %d", s.Devices[0].IdleSyncNS, syncIdle)
	}
	for _, rule := range []string{"host-sync", "tiny-kernels", "single-tensor-optimizer", "recompile", "graph-break"} {
		if f, ok := got[rule]; ok {
			t.Errorf("%s fired: %+v", rule, f)
		}
	}
	for rule := range got {
		if _, ok := want[rule]; !ok {
			t.Errorf("%s fired, not expected: %+v", rule, got[rule])
		}
	}
	// The verdict's numbers: the launch's idle is named by its call.
	d := &s.Devices[0]
	if Verdict(d) != HostBound || d.HostCall != "cudaLaunchKernel" || d.HostCallMaxNS != 2_999_890 || d.HostCallIdleNS != 3_000_000-110 {
		t.Errorf("verdict %s, host call %q idle %d max %d; want host, cudaLaunchKernel, %d, 2999890", Verdict(d), d.HostCall,
			d.HostCallIdleNS, d.HostCallMaxNS, 3_000_000-110)
	}
	if d.Launch.SlowLaunches != 1 || d.Launch.MedianLaunchNS != 10 {
		t.Errorf("slow launches %d, median launch %v; want 1, 10", d.Launch.SlowLaunches, d.Launch.MedianLaunchNS)
	}
}

// TestFindingsQuiet: the same shapes done right fire nothing: pinned
// async copies, bf16 and tf32 tensor-op GEMMs, warm launches, no
// DataLoader wait, every kernel with its call.
func TestFindingsQuiet(t *testing.T) {
	b := newBuilder(8)
	names := []string{"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_nn_align8", "ampere_s1688gemm_tf32_128x128_nn",
		"sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16", "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
		"volta_h884gemm_64x64_nn", "sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc"}
	at := int64(1000)
	for i := range 60 {
		c := b.call("cudaLaunchKernel", at-500, at-490)
		b.kernel(names[i%len(names)], at, at+10_000, c)
		at += 10_000
	}
	b.t.Memcpys = append(b.t.Memcpys, trace.Memcpy{Activity: b.act(at, at+500, b.call("cudaMemcpyAsync", at-400, at-390)), Kind: trace.HtoD,
		Src: trace.Pinned, Dst: trace.DeviceMem, Bytes: 4096})
	b.op(trace.DataLoaderPrefix+"_MultiProcessingDataLoaderIter.__next__", trace.UserAnnotation, 0, 900)
	tr := b.done(t)
	s := Summarize(tr, Options{})
	checkBounds(t, "quiet", s)
	if fs := s.Devices[0].Findings; len(fs) > 0 {
		t.Errorf("findings on a clean trace: %+v", fs)
	}
}

// TestFindingsLaunchBound: tiny kernels each waiting on its launch fire
// tiny-kernels with the short launch wait as time and savings; a
// single-tensor optimizer step and a recompiled frame with a graph break
// fire theirs.
func TestFindingsLaunchBound(t *testing.T) {
	b := newBuilder(9)
	at := int64(1000)
	// 200 kernels of 2 µs, each launched 8 µs after the last ended: every
	// gap is 8 µs of launch wait. The optimizer step launches the last 150.
	const n, kern, gap = 200, 2_000, 8_000
	var opt Interval
	for i := range n {
		c := b.call("cudaLaunchKernel", at-gap+100, at-gap+200) // began after the GPU went idle
		if i == n-150 {
			opt.Start = at - gap
		}
		b.kernel("vectorized_elementwise_kernel", at, at+kern, c)
		at += kern + gap
	}
	opt.End = at
	b.op(trace.OptimizerStepPrefix+"SGD.step", trace.UserAnnotation, opt.Start, opt.End)
	// torch.compile: frame 0 compiled twice, frame 1 once; the first 20
	// launches are inside a compiled region, the rest eager.
	b.op(trace.CompiledRegionPrefix+"0/0", trace.CPUOp, 0, 100)
	b.op(trace.CompiledRegionPrefix+"0/1", trace.CPUOp, -gap, 1000+20*(kern+gap)-gap)
	b.op(trace.CompiledRegionPrefix+"1/0", trace.CPUOp, 0, 50)
	tr := b.done(t)
	s := Summarize(tr, Options{})
	checkBounds(t, "launch-bound", s)
	d := &s.Devices[0]
	if Verdict(d) != LaunchBound {
		t.Fatalf("verdict %s, want launch", Verdict(d))
	}
	got := findingsOf(tr)
	short := int64((n - 1) * gap)
	if f := got["tiny-kernels"]; f.Count != n || f.TimeNS != short || f.SavingsNS != short || !f.HasSavings {
		t.Errorf("tiny-kernels: %+v, want %d kernels, time and savings %d", f, n, short)
	}
	if f := got["single-tensor-optimizer"]; f.Count != 150 || f.TimeNS != 150*kern {
		t.Errorf("single-tensor-optimizer: %+v, want 150 kernels of %d ns", f, 150*kern)
	}
	if f := got["recompile"]; f.Count != 1 || f.TimeNS != 0 || f.HasSavings {
		t.Errorf("recompile: %+v, want 1, no time", f)
	}
	if f := got["graph-break"]; f.Count != 2 || f.TimeNS != (n-20)*kern {
		t.Errorf("graph-break: %+v, want 2 frames, %d eager", f, (n-20)*kern)
	}
	// A multi-tensor kernel in the step: the optimizer is foreach.
	b.kernel("multi_tensor_apply_kernel<TensorListMetadata<2>>", at+100, at+200, b.call("cudaLaunchKernel", at-50, at-40))
	b.t.Ops[slices.IndexFunc(b.t.Ops, func(o trace.Op) bool { return strings.HasPrefix(o.Name, trace.OptimizerStepPrefix) })].End = at + 300
	tr = b.done(t)
	if f, ok := findingsOf(tr)["single-tensor-optimizer"]; ok {
		t.Errorf("single-tensor-optimizer with a multi-tensor kernel: %+v", f)
	}
}

func TestIsFP32GEMM(t *testing.T) {
	for name, want := range map[string]bool{
		"ampere_sgemm_128x64_nn":                                true,
		"volta_sgemm_128x64_nn":                                 true,
		"volta_scudnn_128x64_stridedB_splitK_xregs_large_nn_v1": true,
		"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int)":                     true,
		"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel": true,
		"cutlass_80_simt_sgemm_128x128_8x4_nn_align1":                                                                    true,
		"ampere_s1688gemm_tf32_128x128_nn":                                                                               false,
		"cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4":                                                           false,
		"sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16_ffma":                                                false,
		"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_nn":                                                                 false,
		"volta_h884gemm_64x64_nn":                                                                                        false,
		"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1":                                 false,
		"void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>":                                           false,
	} {
		if got := isFP32GEMM(name); got != want {
			t.Errorf("isFP32GEMM(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestFindingsHostSync: a kernel, then .item(): the host syncs until the
// GPU drains, then launches the next kernel, which the GPU waits for.
// Each gap is the sync's and the late launch's; host-sync counts them.
func TestFindingsHostSync(t *testing.T) {
	b := newBuilder(9)
	const n, kern, tail, gap = 10, 100_000, 50, 2_000
	at := int64(0)
	var want int64
	for i := range n {
		b.kernel("k", at, at+kern, b.call("cudaLaunchKernel", at-gap+tail+10, at-gap+tail+20))
		if i < n-1 {
			b.op("aten::item", trace.CPUOp, at+5, at+kern+tail+5)
			b.call("cudaStreamSynchronize", at+10, at+kern+tail)
			want += gap
		}
		at += kern + gap
	}
	tr := b.done(t)
	s := Summarize(tr, Options{})
	checkBounds(t, "host-sync", s)
	// The brute force: every idle nanosecond of a gap some sync call
	// overlaps.
	var brute int64
	for i := 1; i < len(tr.Kernels); i++ {
		g := Interval{tr.Kernels[i-1].End, tr.Kernels[i].Start}
		for _, c := range tr.APICalls {
			if IsSync(c.Name) && c.Start < g.End && c.End > g.Start {
				brute += g.Len()
				break
			}
		}
	}
	f := findingsOf(tr)["host-sync"]
	if f.Count != n-1 || f.TimeNS != want || brute != want || f.HasSavings {
		t.Errorf("host-sync: %+v; want %d gaps of %d ns (brute force %d)", f, n-1, want, brute)
	}
	if !strings.Contains(f.Evidence, "aten::item ×9") {
		t.Errorf("host-sync evidence %q names no aten::item ×9", f.Evidence)
	}
}

// TestFindingsExposedComm: an all-reduce half under a GEMM: the other half
// is exposed, and so is a second all-reduce alone.
func TestFindingsExposedComm(t *testing.T) {
	b := newBuilder(9)
	b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 0, 100_000, b.call("cudaLaunchKernel", -100, -90))
	b.t.Streams = append(b.t.Streams, trace.Stream{Device: 0, ID: 8})
	ar := func(start, end int64) {
		b.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", start, end, b.call("cudaLaunchKernel", start-50, start-40))
		b.t.Kernels[len(b.t.Kernels)-1].Stream = 8
	}
	ar(50_000, 150_000)  // 50,000 ns exposed
	ar(200_000, 230_000) // 30,000 ns exposed
	tr := b.done(t)
	s := Summarize(tr, Options{})
	checkBounds(t, "exposed-comm", s)
	f := findingsOf(tr)["exposed-comm"]
	if f.Count != 2 || f.TimeNS != 80_000 || f.SavingsNS != 80_000 || !f.HasSavings {
		t.Errorf("exposed-comm: %+v; want 2 kernels, 80,000 ns exposed", f)
	}
}

// TestSyncPerProcess: in an Nsight export of two processes, one a GPU,
// process 2's sync does not idle process 1's GPU; with ids unique in the
// trace (Kineto, one process) every sync counts on every device.
func TestSyncPerProcess(t *testing.T) {
	k := func(dev int, pid, start, end, corr int64) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Device: dev, Stream: 7, Start: start, End: end, Correlation: corr, PID: pid}, Name: "k"}
	}
	call := func(name string, pid, start, end, corr int64) trace.APICall {
		return trace.APICall{Name: name, PID: pid, TID: pid, Start: start, End: end, Correlation: corr}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}, {ID: 1}},
		Streams: []trace.Stream{{Device: 0, ID: 7}, {Device: 1, ID: 7}},
		Kernels: []trace.Kernel{k(0, 1, 0, 100, 1), k(1, 2, 0, 100, 1), k(0, 1, 300, 400, 2), k(1, 2, 300, 400, 2)},
		APICalls: []trace.APICall{
			call("cudaLaunchKernel", 1, -20, -10, 1), call("cudaLaunchKernel", 2, -20, -10, 1),
			call("cudaStreamSynchronize", 2, 50, 250, 0), // process 2 waits 150 ns of the gap [100,300)
			call("cudaLaunchKernel", 1, 260, 270, 2), call("cudaLaunchKernel", 2, 260, 270, 2),
		},
	}
	tr.Meta.CorrelationPerProcess = true
	for _, perProcess := range []bool{true, false} {
		tr.Meta.CorrelationPerProcess = perProcess
		s := Summarize(tr, Options{})
		want := map[int]int64{0: 0, 1: 150}
		if !perProcess {
			want[0] = 150
		}
		for _, d := range s.Devices {
			if d.IdleSyncNS != want[d.Device] {
				t.Errorf("per process %v: GPU %d idle in syncs %d, want %d", perProcess, d.Device, d.IdleSyncNS, want[d.Device])
			}
		}
	}
}

// TestHostCallIdle: the GPU waits 5 ms for a launch while the host sits
// 4 ms inside hipFree (two threads' calls overlapping count once) and a
// 10-µs launch: the idle is named by hipFree, 4 ms of it.
func TestHostCallIdle(t *testing.T) {
	b := newBuilder(9)
	b.kernel("k", 0, 1000, b.call("hipLaunchKernel", -100, -90))
	b.call("hipFree", 2000, 4_002_000)
	b.t.APICalls = append(b.t.APICalls, trace.APICall{Name: "hipFree", PID: 1, TID: 2, Start: 3_000_000, End: 4_000_000})
	b.kernel("k", 5_001_000, 5_002_000, b.call("hipLaunchKernel", 4_990_000, 5_000_000))
	tr := b.done(t)
	d := Summarize(tr, Options{}).Devices[0]
	if Verdict(&d) != HostBound || d.HostCall != "hipFree" || d.HostCallIdleNS != 4_000_000 || d.HostCallMaxNS != 4_000_000 {
		t.Errorf("verdict %s, host call %q idle %d longest %d; want host, hipFree, 4000000, 4000000", Verdict(&d), d.HostCall,
			d.HostCallIdleNS, d.HostCallMaxNS)
	}
}
