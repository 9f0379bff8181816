package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// OpWork is what a host op's instances computed on one device, by the
// FLOP model (OpCost) or the profiler's own count (with_flops): part of
// its ScopeStat. Only instances whose op has a cost count: CostedCalls of
// Calls, their kernels' time CostedGPUNS.
type OpWork struct {
	Flops, Bytes int64
	CostedCalls  int
	// ProfilerCalls are the costed instances whose FLOPs are the
	// profiler's "flops" argument rather than the model's.
	ProfilerCalls int
	// ArgMismatches are those of them whose argument differs from the
	// model's count by more than argTolerance (flopsArgWarnings).
	ArgMismatches int
	CostedGPUNS   int64
	// Precision is the costed instances' (the first one's) input
	// precision, tf32 when their kernels' names say so.
	Precision Precision
	// MathNS is the time of the GEMM and convolution kernels launched, by
	// precision (indexed as precisionIndex): the precision mix.
	MathNS [len(precisionIndex)]int64
	// MathUnknownNS is GEMM and convolution kernel time whose precision
	// neither the kernel's name nor its op's input type tells.
	MathUnknownNS int64
}

// Costed reports whether any instance has a cost.
func (w *OpWork) Costed() bool { return w.CostedCalls > 0 }

// AchievedTFLOPS is FLOPs over the GPU time of the costed instances'
// kernels, in TFLOP/s; 0 without.
func (w *OpWork) AchievedTFLOPS() float64 {
	if w.CostedGPUNS == 0 {
		return 0
	}
	return float64(w.Flops) / float64(w.CostedGPUNS) / 1e3
}

// Intensity is FLOPs per byte of minimum traffic; 0 without bytes.
func (w *OpWork) Intensity() float64 {
	if w.Bytes == 0 {
		return 0
	}
	return float64(w.Flops) / float64(w.Bytes)
}

func (w *OpWork) add(o OpWork) {
	w.Flops += o.Flops
	w.Bytes += o.Bytes
	w.CostedCalls += o.CostedCalls
	w.ProfilerCalls += o.ProfilerCalls
	w.ArgMismatches += o.ArgMismatches
	w.CostedGPUNS += o.CostedGPUNS
	for i := range w.MathNS {
		w.MathNS[i] += o.MathNS[i]
	}
	w.MathUnknownNS += o.MathUnknownNS
}

// precisionIndex orders the precisions for OpWork.MathNS, widest first.
var precisionIndex = [...]Precision{FP64, FP32, TF32, BF16, FP16, FP8, INT8}

// Precisions lists the precisions widest first, as the precision mix and
// `traceql help peaks` order them.
func Precisions() []Precision { return slices.Clone(precisionIndex[:]) }

func precIndex(p Precision) int {
	for i, q := range precisionIndex {
		if q == p {
			return i
		}
	}
	return -1
}

// instanceCost is the cost of one op instance: the model's, with the
// profiler's "flops" argument in place of the model's FLOPs when recorded
// (fromProfiler). ok is false when neither counts it.
func instanceCost(o *trace.Op) (c Cost, fromProfiler, ok bool) {
	if o.Args == nil {
		return Cost{}, false, false
	}
	c, ok = OpCost(o.Name, o.Args)
	if o.Args.HasFlops && o.Args.Flops >= 0 {
		if !ok {
			// No model: the bytes are unknown, the precision read from
			// the inputs all the same.
			c = Cost{Precision: inputs{o.Args}.prec()}
		}
		c.Flops = o.Args.Flops
		return c, true, true
	}
	return c, false, ok
}

// isMathOp reports whether an op's model is a GEMM or a convolution (not
// an Inductor kernel such as triton_poi_fused_addmm_gelu, which is
// neither, though its name says addmm).
func isMathOp(name string) bool { return mathOps[strings.TrimPrefix(name, "aten::")] }

var mathOps = setOf(`mm addmm _addmm_activation _scaled_mm bmm baddbmm matmul linear
	conv1d conv2d conv3d convolution _convolution cudnn_convolution miopen_convolution
	convolution_backward cudnn_convolution_backward_input cudnn_convolution_backward_weight`)

// kernelMath tells from a kernel's name whether it is a GEMM or a
// convolution, and in which precision ("" when the name does not say).
// Names: cuBLAS/CUTLASS (sm90_xmma_gemm_bf16bf16_bf16f32…,
// ampere_bf16_s16816gemm…, ampere_sgemm…, cutlass_80_tensorop_s1688gemm…,
// nvjet_tst…), cuDNN (…implicit_gemm…, sm80_xmma_fprop…, cudnn::…conv…),
// rocBLAS/hipBLASLt (Cijk_…).
func kernelMath(name string) (math bool, p Precision) {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "triton_") { // Inductor's fused kernels name the ops they fuse: triton_poi_fused_convolution_…
		return false, ""
	}
	math = strings.Contains(n, "gemm") || strings.Contains(n, "conv") || strings.Contains(n, "xmma") ||
		strings.Contains(n, "nvjet") || strings.HasPrefix(n, "cijk_") || strings.Contains(n, "fprop") ||
		strings.Contains(n, "dgrad") || strings.Contains(n, "wgrad") || strings.Contains(n, "cutlass")
	if !math {
		return false, ""
	}
	if strings.HasPrefix(n, "cijk_") {
		return true, tensilePrecision(name)
	}
	switch {
	case strings.Contains(n, "e4m3") || strings.Contains(n, "e5m2") || strings.Contains(n, "fp8"):
		p = FP8
	case strings.Contains(n, "imma") || strings.Contains(n, "int8") || strings.Contains(n, "i8i8") || strings.Contains(n, "s8s8"):
		p = INT8
	case strings.Contains(n, "bf16"):
		p = BF16
	case strings.Contains(n, "tf32"):
		p = TF32
	case strings.Contains(n, "fp16") || strings.Contains(n, "f16") || strings.Contains(n, "hgemm") || strings.Contains(n, "h1688") ||
		strings.Contains(n, "h16816") || strings.Contains(n, "h884"):
		p = FP16
	case strings.Contains(n, "dgemm") || strings.Contains(n, "f64") || strings.Contains(n, "dmma"):
		p = FP64
	case strings.Contains(n, "sgemm") || strings.Contains(n, "f32f32_f32") || strings.Contains(n, "ffma") || strings.Contains(n, "fp32"):
		p = FP32
	}
	return true, p
}

// tensilePrecision reads the precision of a rocBLAS/hipBLASLt (Tensile)
// kernel from its data-type token, the fourth of its name:
// Cijk_Alik_Bljk_BBS_BH_… is bf16 in (B), bf16 out, fp32 compute (S).
func tensilePrecision(name string) Precision {
	tok := strings.Split(name, "_")
	if len(tok) < 4 || tok[3] == "" {
		return ""
	}
	t := tok[3]
	switch {
	case strings.HasPrefix(t, "F8") || strings.HasPrefix(t, "B8"):
		return FP8
	case strings.HasPrefix(t, "I8"):
		return INT8
	}
	switch t[0] {
	case 'B':
		return BF16
	case 'H':
		return FP16
	case 'S':
		return FP32
	case 'D':
		return FP64
	}
	return ""
}

// A workTally accumulates OpWork for the scopes of one device.
type workTally struct {
	names map[string]kernelClass // kernelMath by kernel name
}

type kernelClass struct {
	math bool
	p    Precision
}

func newWorkTally() *workTally {
	return &workTally{names: map[string]kernelClass{}}
}

// instance counts the cost of op instance o, seen for the first time,
// into w, and reports whether it has one.
func (t *workTally) instance(w *OpWork, o *trace.Op) bool {
	cost, prof, ok := instanceCost(o)
	if !ok {
		return false
	}
	w.Flops += cost.Flops
	w.Bytes += cost.Bytes
	w.CostedCalls++
	if prof {
		w.ProfilerCalls++
		if m, ok := OpCost(o.Name, o.Args); ok && flopsDisagree(cost.Flops, m.Flops) {
			w.ArgMismatches++
		}
	}
	if w.Precision == "" {
		w.Precision = cost.Precision
	}
	return true
}

// kernel counts kernel k (activity a), launched from inside op o (nil:
// none), into w's precision mix when it is a GEMM or a convolution.
func (t *workTally) kernel(w *OpWork, o *trace.Op, a *trace.Activity, k *trace.Kernel) {
	kc, ok := t.names[k.Name]
	if !ok {
		kc.math, kc.p = kernelMath(k.Name)
		t.names[k.Name] = kc
	}
	if !kc.math && (o == nil || !isMathOp(o.Name)) {
		return
	}
	p := kc.p
	if p == TF32 && w.Precision == FP32 {
		w.Precision = TF32
	}
	if p == "" && o != nil && o.Args != nil {
		p = inputs{o.Args}.prec()
	}
	if i := precIndex(p); i >= 0 {
		w.MathNS[i] += a.Dur()
	} else {
		w.MathUnknownNS += a.Dur()
	}
}

// deviceWork sums the work of a device's ops (DeviceSummary.Ops).
func deviceWork(ops []ScopeStat) OpWork {
	var w OpWork
	for i := range ops {
		w.add(ops[i].Work)
	}
	w.Precision = ""
	return w
}

// A precisionShare is one precision's share of GEMM and convolution
// kernel time.
type precisionShare struct {
	Precision Precision // "" for time whose precision is not told
	NS        int64
	Share     float64
}

// Mix is the precision mix of w: each precision with GEMM or convolution
// time, the most first (ties in precisionIndex order), the untold last.
func (w *OpWork) Mix() []precisionShare {
	var total int64
	for _, ns := range w.MathNS {
		total += ns
	}
	total += w.MathUnknownNS
	if total == 0 {
		return nil
	}
	var out []precisionShare
	for i, ns := range w.MathNS {
		if ns > 0 {
			out = append(out, precisionShare{precisionIndex[i], ns, float64(ns) / float64(total)})
		}
	}
	slices.SortStableFunc(out, func(a, b precisionShare) int { return cmp.Compare(b.NS, a.NS) })
	if w.MathUnknownNS > 0 {
		out = append(out, precisionShare{"", w.MathUnknownNS, float64(w.MathUnknownNS) / float64(total)})
	}
	return out
}

// MixText writes the precision mix compactly: "bf16 92 %, fp32 8 %".
func (w *OpWork) MixText() string {
	var parts []string
	var total int64
	for _, s := range w.Mix() {
		total += s.NS
	}
	for _, s := range w.Mix() {
		name := string(s.Precision)
		if name == "" {
			name = "unknown"
		}
		parts = append(parts, name+" "+ShareText(s.NS, total))
	}
	return strings.Join(parts, ", ")
}

// KernelWork is the work of the op instance that launched a kernel
// (its innermost cpu_op), for the kernels table: the instance's FLOPs
// and bytes, over the GPU time of all the kernels it launched.
type KernelWork struct {
	Costed       bool
	Flops, Bytes int64
	OpKernelNS   int64 // the instance's kernels' time
	Intensity    float64
	// Bound and PeakShare place the instance on the device's roofline
	// (Utilization.Roofline); "" and 0 without peaks.
	Bound     string
	PeakShare float64
}

// AchievedTFLOPS is the instance's FLOPs over its kernels' time.
func (k KernelWork) AchievedTFLOPS() float64 {
	if k.OpKernelNS == 0 {
		return 0
	}
	return float64(k.Flops) / float64(k.OpKernelNS) / 1e3
}

// KernelScopesWork is KernelScopes with, for each kernel, the work of the
// op instance that launched it (zero where it has no FLOP count).
// With a capture (m), a graph-replayed kernel named by it has the work of
// the op instance that captured it, once for each replay of the graph:
// the instance's FLOPs over the time of its kernels in that replay.
func KernelScopesWork(t *trace.Trace, m *CaptureMatch, peak PeakOverride) (ops, regions []string, work []KernelWork) {
	opOf, ops, regions := kernelScopes(t, m)
	work = make([]KernelWork, len(t.Kernels))
	type inst struct {
		w   OpWork
		dev int
	}
	insts := map[opInstance]*inst{}
	tally := newWorkTally()
	for i, oi := range opOf {
		o := oi.op
		if o == nil || o.Args == nil {
			continue
		}
		in := insts[oi]
		if in == nil {
			in = &inst{dev: t.Kernels[i].Device}
			tally.instance(&in.w, o)
			insts[oi] = in
		}
		k := &t.Kernels[i]
		if in.w.Costed() {
			in.w.CostedGPUNS += k.Dur()
		}
		tally.kernel(&in.w, o, &k.Activity, k)
	}
	utils := map[int]*Utilization{}
	for i, o := range opOf {
		in := insts[o]
		if in == nil || !in.w.Costed() {
			continue
		}
		u := utils[in.dev]
		if u == nil {
			name := ""
			if d, ok := t.Device(in.dev); ok {
				name = d.Name
			}
			u = &Utilization{}
			u.Peak, _ = peakOf(name)
			u.PeakGBps = u.Peak.GBps
			if peak.TFLOPS > 0 {
				u.PeakTFLOPS, u.PeakFrom = peak.TFLOPS, "--peak-tflops"
			}
			if peak.GBps > 0 {
				u.PeakGBps = peak.GBps
			}
			utils[in.dev] = u
		}
		kw := KernelWork{Costed: true, Flops: in.w.Flops, Bytes: in.w.Bytes, OpKernelNS: in.w.CostedGPUNS, Intensity: in.w.Intensity()}
		if b, share, ok := u.Roofline(&in.w); ok {
			kw.Bound, kw.PeakShare = b, share
		}
		work[i] = kw
	}
	return ops, regions, work
}

// argTolerance is how far, relative to the model's count, a recorded
// "flops" argument may be from it and still agree: PyTorch's counter
// leaves out what the model counts beside the multiply-adds (addmm's bias
// adds 1/(2K) of 2·M·N·K), never a whole factor.
const argTolerance = 0.01

// flopsDisagree reports whether the profiler's count arg and the
// model's count model differ by more than argTolerance of the model's.
func flopsDisagree(arg, model int64) bool {
	d := arg - model
	if d < 0 {
		d = -d
	}
	return float64(d) > argTolerance*float64(model)
}
