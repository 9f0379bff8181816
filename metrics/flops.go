package metrics

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/traceql/traceql/trace"
)

// A Cost is the work one op instance does by the FLOP model: floating
// point operations and the minimum memory traffic (each input read once,
// each output written once), from the shapes PyTorch recorded
// (record_shapes=True). A multiply-add is two operations.
type Cost struct {
	Flops, Bytes int64
	// Precision is that of the op's first tensor input ("" when unknown):
	// the dtype its math runs in, tf32 aside, which only the kernel name
	// tells.
	Precision Precision
	// Causal says an attention op was masked causally, which the model
	// counts (only the query–key pairs the mask keeps).
	Causal bool
}

// A Precision is a number format of math on the device.
type Precision string

// The precisions of the precision mix, widest first.
const (
	FP64 Precision = "fp64"
	FP32 Precision = "fp32"
	TF32 Precision = "tf32"
	BF16 Precision = "bf16"
	FP16 Precision = "fp16"
	FP8  Precision = "fp8"
	INT8 Precision = "int8"
)

// dtype is a PyTorch "Input type" string's precision and element size in
// bytes; size 0 for what is no tensor element ("Scalar", "ScalarList",
// "GenericList", "").
func dtype(s string) (Precision, int64) {
	switch s {
	case "float":
		return FP32, 4
	case "double":
		return FP64, 8
	case "c10::BFloat16":
		return BF16, 2
	case "c10::Half":
		return FP16, 2
	case "c10::Float8_e4m3fn", "c10::Float8_e5m2", "c10::Float8_e4m3fnuz", "c10::Float8_e5m2fnuz", "c10::Float8_e8m0fnu":
		return FP8, 1
	case "signed char":
		return INT8, 1
	case "unsigned char", "bool":
		return "", 1
	case "short", "c10::complex<c10::Half>":
		return "", 2
	case "int", "c10::complex<float>":
		return "", 4
	case "long", "long int", "c10::complex<double>":
		return "", 8
	}
	return "", 0
}

// An opModel computes an op's cost from its recorded inputs; ok is false
// when the shapes do not tell it (a missing stride, a varlen attention).
type opModel func(in inputs) (Cost, bool)

// opModels are the ops the model counts, by name without "aten::".
// Backward ops modelled: convolution_backward (the gradients its
// output_mask asks for, both when it is not recorded) and
// cudnn_convolution_backward_input; not cudnn_convolution_backward_weight
// (torch before 1.11 records the weight's size as a list, not dims),
// nor attention's or normalization's backward.
var opModels = map[string]opModel{
	"mm": gemm2D, "addmm": gemmBias, "_addmm_activation": gemmBias, "_scaled_mm": gemm2D,
	"bmm": bmm, "baddbmm": bmmBias,
	"matmul": matmul, "linear": linear,

	"conv1d": conv(3, 4, 5, -1), "conv2d": conv(3, 4, 5, -1), "conv3d": conv(3, 4, 5, -1),
	"convolution": conv(3, 4, 5, 6), "_convolution": conv(3, 4, 5, 6),
	"cudnn_convolution": conv(3, 2, 4, -1), "miopen_convolution": conv(4, 3, 5, -1),
	"convolution_backward":             convBackward,
	"cudnn_convolution_backward_input": convBackwardInput,

	"scaled_dot_product_attention":            attention(bhsd, 5),
	"_scaled_dot_product_flash_attention":     attention(bhsd, 4),
	"_scaled_dot_product_efficient_attention": attention(bhsd, 6),
	"_scaled_dot_product_cudnn_attention":     attention(bhsd, 6),
	"_flash_attention_forward":                attention(bshd, 8),
	"_efficient_attention_forward":            attention(bshd, -9),

	"layer_norm": norm(5), "native_layer_norm": norm(5),
	"group_norm": norm(5), "native_group_norm": norm(5),
	"batch_norm": norm(5), "native_batch_norm": norm(5), "_batch_norm_impl_index": norm(5),
	"cudnn_batch_norm": norm(5), "miopen_batch_norm": norm(5),
	"rms_norm": norm(3), "_fused_rms_norm": norm(3),

	"softmax": softmax, "_softmax": softmax, "log_softmax": softmax, "_log_softmax": softmax,
}

// elementwise are the ops counted as one operation per output element:
// arithmetic and activations (gelu and silu take several instructions per
// element, which one operation understates, as the profiler's own count
// for add and mul does).
var elementwise = setOf(`add sub mul div add_ sub_ mul_ div_ rsub neg neg_ reciprocal
	relu relu_ gelu gelu_ silu silu_ sigmoid sigmoid_ tanh tanh_ exp exp_ log pow sqrt rsqrt
	abs clamp clamp_ clamp_min clamp_min_ threshold hardtanh leaky_relu mish where
	addcmul_ addcdiv_ lerp_ maximum minimum`)

func setOf(names string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(names) {
		m[n] = true
	}
	return m
}

// copyOps move data and compute nothing: modelled with 0 FLOPs.
var copyOps = setOf("copy_ _to_copy clone fill_ zero_")

// ModelledOps are the names of the ops the FLOP model counts, as traces
// name them ("aten::mm"): those a read keeps shapes for
// (trace.Needs.ShapesOf). A new map on each call.
func ModelledOps() map[string]bool {
	m := map[string]bool{}
	for _, set := range []map[string]bool{elementwise, copyOps} {
		for n := range set {
			m["aten::"+n] = true
		}
	}
	for n := range opModels {
		m["aten::"+n] = true
	}
	return m
}

// OpCost is the model's cost of one instance of the op named name with
// the recorded inputs a; ok is false for an op the model does not count
// or whose shapes do not tell it. It ignores a.Flops (see OpFlops).
func OpCost(name string, a *trace.OpArgs) (Cost, bool) {
	if a == nil {
		return Cost{}, false
	}
	n := strings.TrimPrefix(name, "aten::")
	in := inputs{a}
	if m, ok := opModels[n]; ok {
		return m(in)
	}
	if elementwise[n] {
		return pointwise(in, 1)
	}
	if copyOps[n] {
		return pointwise(in, 0)
	}
	return Cost{}, false
}

// inputs are an op's recorded inputs.
type inputs struct{ a *trace.OpArgs }

// dims are input i's sizes; nil when it is no tensor or not recorded.
func (in inputs) dims(i int) []int64 {
	if i < 0 || i >= len(in.a.Dims) {
		return nil
	}
	return in.a.Dims[i]
}

// elem is input i's element size and precision.
func (in inputs) elem(i int) (Precision, int64) {
	if i < 0 || i >= len(in.a.Types) {
		return "", 0
	}
	return dtype(in.a.Types[i])
}

// tensor reports whether input i is a tensor with known element type.
func (in inputs) tensor(i int) bool {
	_, es := in.elem(i)
	return es > 0 && i < len(in.a.Dims) && (in.a.Dims[i] != nil || in.a.Types[i] != "")
}

// concrete is input i's recorded value ("" when none).
func (in inputs) concrete(i int) string {
	if i < 0 || i >= len(in.a.Concrete) {
		return ""
	}
	return in.a.Concrete[i]
}

// ints reads a concrete list "[1, 1]" or a single integer "1".
func (in inputs) ints(i int) ([]int64, bool) {
	s := strings.TrimSpace(in.concrete(i))
	if s == "" {
		return nil, false
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// flag reads a concrete boolean; ok false when not recorded.
func (in inputs) flag(i int) (v, ok bool) {
	switch strings.TrimSpace(in.concrete(i)) {
	case "True", "true", "1":
		return true, true
	case "False", "false", "0":
		return false, true
	}
	return false, false
}

// prec is the precision of the first tensor input.
func (in inputs) prec() Precision {
	for i := range in.a.Types {
		if p, es := in.elem(i); es > 0 {
			return p
		}
	}
	return ""
}

// A counter multiplies and adds int64s, remembering an overflow: a
// shape too large for int64 FLOPs gets no model rather than a wrong one.
type counter struct{ over bool }

func (c *counter) mul(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x < 0 {
			c.over = true
			return 0
		}
		hi, lo := bits.Mul64(uint64(p), uint64(x))
		if hi != 0 || lo > 1<<62 {
			c.over = true
			return 0
		}
		p = int64(lo)
	}
	return p
}

func (c *counter) add(xs ...int64) int64 {
	s := int64(0)
	for _, x := range xs {
		if s > 1<<62-x {
			c.over = true
			return 0
		}
		s += x
	}
	return s
}

func (c *counter) numel(d []int64) int64 { return c.mul(d...) }

// bytesOf is input i's size in bytes (0 for no tensor).
func (c *counter) bytesOf(in inputs, i int) int64 {
	_, es := in.elem(i)
	if es == 0 || in.dims(i) == nil && !in.tensor(i) {
		return 0
	}
	return c.mul(c.numel(in.dims(i)), es)
}

func (c *counter) done(cost Cost) (Cost, bool) {
	if c.over {
		return Cost{}, false
	}
	return cost, true
}

// gemm2D: mm(a[M,K], b[K,N]) and _scaled_mm: 2·M·N·K.
func gemm2D(in inputs) (Cost, bool) { return gemmAt(in, 0, 1, -1) }

// gemmBias: addmm(bias, a[M,K], b[K,N]): 2·M·N·K, the bias's add not
// counted (as the profiler's own count).
func gemmBias(in inputs) (Cost, bool) { return gemmAt(in, 1, 2, 0) }

func gemmAt(in inputs, ia, ib, ibias int) (Cost, bool) {
	a, b := in.dims(ia), in.dims(ib)
	if len(a) != 2 || len(b) != 2 || a[1] != b[0] {
		return Cost{}, false
	}
	var c counter
	m, k, n := a[0], a[1], b[1]
	_, es := in.elem(ia)
	return c.done(Cost{Flops: c.mul(2, m, n, k),
		Bytes:     c.add(c.bytesOf(in, ia), c.bytesOf(in, ib), c.bytesOf(in, ibias), c.mul(m, n, es)),
		Precision: in.prec()})
}

// bmm(a[B,M,K], b[B,K,N]): 2·B·M·N·K.
func bmm(in inputs) (Cost, bool) { return bmmAt(in, 0, 1, -1) }

// baddbmm(self, a[B,M,K], b[B,K,N]): 2·B·M·N·K.
func bmmBias(in inputs) (Cost, bool) { return bmmAt(in, 1, 2, 0) }

func bmmAt(in inputs, ia, ib, ibias int) (Cost, bool) {
	a, b := in.dims(ia), in.dims(ib)
	if len(a) != 3 || len(b) != 3 || a[0] != b[0] || a[2] != b[1] {
		return Cost{}, false
	}
	var c counter
	_, es := in.elem(ia)
	return c.done(Cost{Flops: c.mul(2, a[0], a[1], b[2], a[2]),
		Bytes:     c.add(c.bytesOf(in, ia), c.bytesOf(in, ib), c.bytesOf(in, ibias), c.mul(a[0], a[1], b[2], es)),
		Precision: in.prec()})
}

// matmul(a, b) with torch.matmul's rules: 1-D operands are a row or a
// column, leading dimensions broadcast; 2·batch·M·N·K.
func matmul(in inputs) (Cost, bool) {
	a, b := in.dims(0), in.dims(1)
	if len(a) == 0 || len(b) == 0 {
		return Cost{}, false
	}
	m, k := int64(1), a[len(a)-1]
	if len(a) >= 2 {
		m = a[len(a)-2]
	}
	n, k2 := int64(1), b[0]
	if len(b) >= 2 {
		n, k2 = b[len(b)-1], b[len(b)-2]
	}
	if k != k2 {
		return Cost{}, false
	}
	batch, ok := broadcast(lead(a), lead(b))
	if !ok {
		return Cost{}, false
	}
	var c counter
	_, es := in.elem(0)
	return c.done(Cost{Flops: c.mul(2, c.numel(batch), m, n, k),
		Bytes:     c.add(c.bytesOf(in, 0), c.bytesOf(in, 1), c.mul(c.numel(batch), m, n, es)),
		Precision: in.prec()})
}

// lead are the batch dimensions of a matmul operand.
func lead(d []int64) []int64 {
	if len(d) <= 2 {
		return nil
	}
	return d[:len(d)-2]
}

// broadcast is the broadcast shape of a and b.
func broadcast(a, b []int64) ([]int64, bool) {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]int64(nil), a...)
	off := len(a) - len(b)
	for i, x := range b {
		y := out[off+i]
		switch {
		case x == y || x == 1:
		case y == 1:
			out[off+i] = x
		default:
			return nil, false
		}
	}
	return out, true
}

// linear(x[…,K], w[N,K], bias): 2·rows·N·K.
func linear(in inputs) (Cost, bool) {
	x, w := in.dims(0), in.dims(1)
	if len(x) == 0 || len(w) != 2 || x[len(x)-1] != w[1] {
		return Cost{}, false
	}
	var c counter
	rows := c.numel(x[:len(x)-1])
	_, es := in.elem(0)
	return c.done(Cost{Flops: c.mul(2, rows, w[0], w[1]),
		Bytes:     c.add(c.bytesOf(in, 0), c.bytesOf(in, 1), c.bytesOf(in, 2), c.mul(rows, w[0], es)),
		Precision: in.prec()})
}

// conv returns the model of a forward convolution whose stride, padding
// and dilation are inputs is, ip and id, and whose "transposed" flag is
// input it (-1: never). input [N, C, spatial…], weight [Cout, C/groups,
// kernel…] (transposed: [C, Cout/groups, kernel…]). 2·N·Cout·out·C/g·kernel
// operations: the weight's second size is C/groups, so groups need not be
// known. The output's size needs stride, padding and dilation, which
// torch records (Concrete Inputs) from 2.1 on.
func conv(is, ip, id, it int) opModel {
	return func(in inputs) (Cost, bool) {
		x, w := in.dims(0), in.dims(1)
		if len(x) < 3 || len(w) != len(x) {
			return Cost{}, false
		}
		sp := len(x) - 2
		stride, ok1 := in.ints(is)
		pad, ok2 := in.ints(ip)
		dil, ok3 := in.ints(id)
		if !ok1 || !ok2 || !ok3 {
			return Cost{}, false
		}
		transposed := false
		if it >= 0 {
			v, ok := in.flag(it)
			if !ok {
				return Cost{}, false
			}
			transposed = v
		}
		at := func(v []int64, i int) int64 {
			if len(v) == 1 {
				return v[0]
			}
			return v[i]
		}
		if len(stride) != 1 && len(stride) != sp || len(pad) != 1 && len(pad) != sp || len(dil) != 1 && len(dil) != sp {
			return Cost{}, false
		}
		var c counter
		kernel := c.numel(w[2:])
		out := make([]int64, sp)
		for i := range sp {
			k := w[2+i]
			if transposed {
				// The output padding is not needed for FLOPs, only bytes:
				// left out, the output is a lower bound.
				out[i] = (x[2+i]-1)*at(stride, i) - 2*at(pad, i) + at(dil, i)*(k-1) + 1
			} else {
				out[i] = (x[2+i]+2*at(pad, i)-at(dil, i)*(k-1)-1)/at(stride, i) + 1
			}
			if out[i] <= 0 {
				return Cost{}, false
			}
		}
		var flops, cout int64
		if transposed {
			// weight [C, Cout/groups, kernel…]: the output's channels need
			// groups (convolution's input 8).
			g, ok := in.ints(8)
			if !ok || len(g) != 1 || g[0] <= 0 {
				return Cost{}, false
			}
			cout = c.mul(w[1], g[0])
			flops = c.mul(2, x[0], x[1], c.numel(x[2:]), w[1], kernel)
		} else {
			cout = w[0]
			flops = c.mul(2, x[0], cout, c.numel(out), w[1], kernel)
		}
		_, es := in.elem(0)
		return c.done(Cost{Flops: flops,
			Bytes:     c.add(c.bytesOf(in, 0), c.bytesOf(in, 1), c.bytesOf(in, 2), c.mul(x[0], cout, c.numel(out), es)),
			Precision: in.prec()})
	}
}

// convBackward: convolution_backward(grad_out, input, weight, bias_sizes,
// stride, padding, dilation, transposed, output_padding, groups,
// output_mask): the forward's FLOPs for each of grad_input and
// grad_weight that output_mask asks for (both when it is not recorded).
func convBackward(in inputs) (Cost, bool) {
	g, x, w := in.dims(0), in.dims(1), in.dims(2)
	if len(x) < 3 || len(w) != len(x) || len(g) != len(x) {
		return Cost{}, false
	}
	var c counter
	transposed, _ := in.flag(7)
	fwd := c.mul(2, g[0], g[1], c.numel(g[2:]), w[1], c.numel(w[2:]))
	if transposed {
		fwd = c.mul(2, x[0], x[1], c.numel(x[2:]), w[1], c.numel(w[2:]))
	}
	grads := int64(2)
	bytes := c.add(c.bytesOf(in, 0), c.bytesOf(in, 1), c.bytesOf(in, 2))
	if mask := strings.TrimSpace(in.concrete(10)); mask != "" {
		parts := strings.Split(strings.Trim(mask, "[]"), ",")
		grads = 0
		for i, p := range parts {
			if strings.TrimSpace(p) != "True" || i > 1 {
				continue
			}
			grads++
			bytes = c.add(bytes, c.bytesOf(in, i+1)) // grad_input is input's size, grad_weight weight's
		}
	} else {
		bytes = c.add(bytes, c.bytesOf(in, 1), c.bytesOf(in, 2))
	}
	return c.done(Cost{Flops: c.mul(fwd, grads), Bytes: bytes, Precision: in.prec()})
}

// convBackwardInput: cudnn_convolution_backward_input(input_size,
// grad_out, weight, …): the forward's FLOPs, from grad_out and weight.
func convBackwardInput(in inputs) (Cost, bool) {
	g, w := in.dims(1), in.dims(2)
	if len(g) < 3 || len(w) != len(g) {
		return Cost{}, false
	}
	var c counter
	flops := c.mul(2, g[0], g[1], c.numel(g[2:]), w[1], c.numel(w[2:]))
	return c.done(Cost{Flops: flops, Bytes: c.add(c.bytesOf(in, 1), c.bytesOf(in, 2)), Precision: in.prec()})
}

// Attention layouts: query [B, H, S, D] (scaled_dot_product_*) or
// [B, S, H, D] (the flash and efficient kernels' own ops).
const (
	bhsd = iota
	bshd
)

// attention returns the model of an attention op whose query, key and
// value are inputs 0–2 in the given layout and whose causal flag is
// input causal (negative: -i, an integer mask type, causal when not 0).
// 2·S_q·S_k·D for Q·Kᵀ and 2·S_q·S_k·D_v for P·V per batch and head; a
// causal mask keeps only the pairs with key ≤ query (top-left, as
// is_causal). The softmax is not counted. A varlen call (rank-3 query)
// has no model: its sequence lengths are not recorded.
func attention(layout, causal int) opModel {
	return func(in inputs) (Cost, bool) {
		q, k, v := in.dims(0), in.dims(1), in.dims(2)
		if len(q) != 4 || len(k) != 4 || len(v) != 4 {
			return Cost{}, false
		}
		b, h, sq, d := q[0], q[1], q[2], q[3]
		sk, dv := k[2], v[3]
		if layout == bshd {
			h, sq, sk = q[2], q[1], k[1]
		}
		isCausal := false
		if causal >= 0 {
			isCausal, _ = in.flag(causal)
		} else if t, ok := in.ints(-causal); ok && len(t) == 1 {
			isCausal = t[0] != 0
		}
		var c counter
		pairs := c.mul(sq, sk)
		if isCausal {
			pairs = causalPairs(sq, sk)
		}
		_, es := in.elem(0)
		out := c.mul(b, h, sq, dv, es)
		return c.done(Cost{Flops: c.mul(2, b, h, pairs, d+dv), Causal: isCausal,
			Bytes:     c.add(c.bytesOf(in, 0), c.bytesOf(in, 1), c.bytesOf(in, 2), out),
			Precision: in.prec()})
	}
}

// causalPairs counts the (query i, key j) pairs with j ≤ i, i < sq, j < sk.
func causalPairs(sq, sk int64) int64 {
	if sq <= sk {
		return sq * (sq + 1) / 2
	}
	return sk*(sk+1)/2 + (sq-sk)*sk
}

// norm returns the model of a normalization: perElem operations per
// element of the input (layer, group, batch norm: mean, variance and
// normalizing, 5; RMS norm: squares, their mean and scaling, 3), plus one
// each for the first two parameter tensors after the input (weight and
// bias) when given. Bytes: the input read and the output written, and
// every parameter tensor (running statistics too) read.
func norm(perElem int64) opModel {
	return func(in inputs) (Cost, bool) {
		x := in.dims(0)
		if len(x) == 0 {
			return Cost{}, false
		}
		var c counter
		n := c.numel(x)
		ops, params := perElem, 0
		bytes := c.mul(2, c.bytesOf(in, 0)) // read, and written normalized
		for i := 1; i < len(in.a.Dims); i++ {
			if d := in.dims(i); len(d) > 0 && in.tensor(i) && c.numel(d) > 0 && c.numel(d) <= n {
				if params++; params <= 2 {
					ops++
				}
				bytes = c.add(bytes, c.bytesOf(in, i))
			}
		}
		return c.done(Cost{Flops: c.mul(n, ops), Bytes: bytes, Precision: in.prec()})
	}
}

// softmax: max, subtract, exp, sum and divide, 5 operations per element.
func softmax(in inputs) (Cost, bool) {
	x := in.dims(0)
	if len(x) == 0 {
		return Cost{}, false
	}
	var c counter
	return c.done(Cost{Flops: c.mul(5, c.numel(x)), Bytes: c.mul(2, c.bytesOf(in, 0)), Precision: in.prec()})
}

// pointwise: perElem operations per element of the broadcast output;
// every tensor input read and the output written. The output's shape is
// built in a buffer on the stack: elementwise ops are most of a trace's
// ops, and this runs once for each.
func pointwise(in inputs, perElem int64) (Cost, bool) {
	var buf [8]int64
	out := buf[:0]
	var c counter
	var bytes, es int64
	seen := false
	for i, d := range in.a.Dims {
		if !in.tensor(i) {
			continue
		}
		if len(d) > len(buf) {
			return Cost{}, false
		}
		if !broadcastInto(&out, d) {
			return Cost{}, false
		}
		seen = true
		bytes = c.add(bytes, c.bytesOf(in, i))
		if es == 0 {
			_, es = in.elem(i)
		}
	}
	if !seen {
		return Cost{}, false
	}
	n := c.numel(out)
	return c.done(Cost{Flops: c.mul(perElem, n), Bytes: c.add(bytes, c.mul(n, es)), Precision: in.prec()})
}

// broadcastInto makes *out the broadcast shape of *out and d, in place
// (*out has the capacity of the longer).
func broadcastInto(out *[]int64, d []int64) bool {
	o := *out
	if len(d) > len(o) {
		n := len(d) - len(o)
		o = o[:len(d)]
		copy(o[n:], o[:len(o)-n])
		for i := range n {
			o[i] = 1
		}
	}
	off := len(o) - len(d)
	for i, x := range d {
		y := o[off+i]
		switch {
		case x == y || x == 1:
		case y == 1:
			o[off+i] = x
		default:
			return false
		}
	}
	*out = o
	return true
}
