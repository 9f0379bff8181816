package metrics

import (
	"testing"

	"github.com/traceql/traceql/trace"
)

// TestOpCost checks every modelled op against a count worked out by hand
// from its shapes, written out here rather than computed by the model's
// formulas.
func TestOpCost(t *testing.T) {
	bf, f32 := "c10::BFloat16", "float"
	args := func(dims [][]int64, types []string, concrete ...string) *trace.OpArgs {
		return &trace.OpArgs{Dims: dims, Types: types, Concrete: concrete}
	}
	for _, tt := range []struct {
		name         string
		op           string
		a            *trace.OpArgs
		flops, bytes int64
		prec         Precision
		causal       bool
	}{
		// 2·8·4·16 = 1024; bytes (8·16 + 16·4 + 8·4)·2 = 448.
		{"mm", "aten::mm", args([][]int64{{8, 16}, {16, 4}}, []string{bf, bf}), 1024, 448, BF16, false},
		// Inductor's mm with out=: the third input is the output, not read.
		{"mm out", "aten::mm", args([][]int64{{197, 384}, {384, 384}, {197, 384}}, []string{f32, f32, f32}),
			58097664, (197*384 + 384*384 + 197*384) * 4, FP32, false},
		// addmm(bias[4], a[8,16], b[16,4]): 1024; bytes + bias 4·2.
		{"addmm", "aten::addmm", args([][]int64{{4}, {8, 16}, {16, 4}, nil, nil}, []string{bf, bf, bf, "Scalar", "Scalar"}), 1024, 456, BF16, false},
		// bmm 3×[2,5]×[5,7]: 2·3·2·7·5 = 420; (30+105+42)·4 = 708.
		{"bmm", "aten::bmm", args([][]int64{{3, 2, 5}, {3, 5, 7}}, []string{f32, f32}), 420, 708, FP32, false},
		// baddbmm(self[3,2,7], …): 420; + 42·4.
		{"baddbmm", "aten::baddbmm", args([][]int64{{3, 2, 7}, {3, 2, 5}, {3, 5, 7}}, []string{f32, f32, f32}), 420, 876, FP32, false},
		// matmul [2,3,4,5]×[5,6]: batch 6, 2·6·4·6·5 = 1440; (120+30+144)·2.
		{"matmul broadcast", "aten::matmul", args([][]int64{{2, 3, 4, 5}, {5, 6}}, []string{bf, bf}), 1440, 588, BF16, false},
		// matmul [5]·[5]: a dot product, 10 FLOPs; (5+5+1)·4.
		{"matmul dot", "aten::matmul", args([][]int64{{5}, {5}}, []string{f32, f32}), 10, 44, FP32, false},
		// linear x[2,3,8], w[4,8], b[4]: 2·6·4·8 = 384; (48+32+4+24)·2.
		{"linear", "aten::linear", args([][]int64{{2, 3, 8}, {4, 8}, {4}}, []string{bf, bf, bf}), 384, 216, BF16, false},
		// conv2d x[2,3,8,8], w[4,3,3,3], stride 1, pad 1: out 8×8; 2·2·4·64·3·9 = 27648.
		// bytes (384 + 108 + 4 + 2·4·64)·4.
		{"conv2d", "aten::conv2d", args([][]int64{{2, 3, 8, 8}, {4, 3, 3, 3}, {4}, nil, nil, nil, nil},
			[]string{f32, f32, f32, "ScalarList", "ScalarList", "ScalarList", "Scalar"}, "", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"),
			27648, (384 + 108 + 4 + 512) * 4, FP32, false},
		// cudnn_convolution (self, weight, padding, stride, dilation, groups): the
		// ViT patch embedding: 224×224 by 16×16 stride 16 → 14×14;
		// 2·1·384·196·3·256 = 115605504.
		{"cudnn_convolution", "aten::cudnn_convolution", args([][]int64{{1, 3, 224, 224}, {384, 3, 16, 16}, nil, nil, nil, nil},
			[]string{f32, f32, "ScalarList", "ScalarList", "ScalarList", "Scalar"}, "", "", "[0, 0]", "[16, 16]", "[1, 1]", "1"),
			115605504, (150528 + 294912 + 75264) * 4, FP32, false},
		// Depthwise (groups 4): w[4,1,3,3], stride 2, pad 0, x 7×7 → 3×3: 2·1·4·9·1·9 = 648.
		{"conv grouped", "aten::convolution", args([][]int64{{1, 4, 7, 7}, {4, 1, 3, 3}, nil, nil, nil, nil, nil, nil, nil},
			[]string{f32, f32, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"},
			"", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "4"), 648, (196 + 36 + 36) * 4, FP32, false},
		// Transposed: x[1,2,3,3], w[2,5,2,2] (Cout 5, groups 1), stride 2: 2·1·2·9·5·4 = 720;
		// out (3−1)·2+1·1+1 = 6 → 6×6·5.
		{"conv transposed", "aten::convolution", args([][]int64{{1, 2, 3, 3}, {2, 5, 2, 2}, nil, nil, nil, nil, nil, nil, nil},
			[]string{f32, f32, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"},
			"", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"), 720, (18 + 40 + 180) * 4, FP32, false},
		// convolution_backward, grad_out [2,4,8,8], input [2,3,8,8], weight [4,3,3,3],
		// mask both: 2 × 27648.
		{"convolution_backward", "aten::convolution_backward", args([][]int64{{2, 4, 8, 8}, {2, 3, 8, 8}, {4, 3, 3, 3}, nil, nil, nil, nil, nil, nil, nil, nil},
			[]string{f32, f32, f32, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"},
			"", "", "", "[4]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, False]"),
			55296, (512 + 384 + 108 + 384 + 108) * 4, FP32, false},
		// …grad_input only.
		{"convolution_backward input", "aten::convolution_backward", args([][]int64{{2, 4, 8, 8}, {2, 3, 8, 8}, {4, 3, 3, 3}, nil, nil, nil, nil, nil, nil, nil, nil},
			[]string{f32, f32, f32, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"},
			"", "", "", "[4]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, False, False]"),
			27648, (512 + 384 + 108 + 384) * 4, FP32, false},
		// cudnn_convolution_backward_input(size, grad_out [2,4,8,8], weight [4,3,3,3]).
		{"cudnn backward input", "aten::cudnn_convolution_backward_input", args([][]int64{nil, {2, 4, 8, 8}, {4, 3, 3, 3}},
			[]string{"GenericList", f32, f32}), 27648, (512 + 108) * 4, FP32, false},
		// SDPA q,k,v [2,3,4,8]: pairs 16; 2·2·3·16·(8+8) = 3072; bytes 4·192·2.
		{"sdpa", "aten::scaled_dot_product_attention", args([][]int64{{2, 3, 4, 8}, {2, 3, 4, 8}, {2, 3, 4, 8}, nil, nil, nil, nil, nil},
			[]string{bf, bf, bf, "", "Scalar", "Scalar", "Scalar", "Scalar"}, "", "", "", "", "0.", "False", "", "False"),
			3072, 4 * 192 * 2, BF16, false},
		// Causal, 4×4: pairs 1+2+3+4 = 10: 2·2·3·10·16 = 1920.
		{"sdpa causal", "aten::_scaled_dot_product_flash_attention", args([][]int64{{2, 3, 4, 8}, {2, 3, 4, 8}, {2, 3, 4, 8}, nil, nil, nil, nil},
			[]string{bf, bf, bf, "Scalar", "Scalar", "Scalar", "Scalar"}, "", "", "", "0.", "True", "False", "0.125"),
			1920, 4 * 192 * 2, BF16, true},
		// Causal with more queries than keys: q 5, k 3: 1+2+3+3+3 = 12 pairs, D 2, Dv 4, B 1, H 1: 2·12·6.
		{"sdpa causal long q", "aten::scaled_dot_product_attention", args([][]int64{{1, 1, 5, 2}, {1, 1, 3, 2}, {1, 1, 3, 4}},
			[]string{f32, f32, f32}, "", "", "", "", "0.", "True"), 144, (10 + 6 + 12 + 20) * 4, FP32, true},
		// _flash_attention_forward is [B,S,H,D]: q [2,4,3,8] is B 2, S 4, H 3.
		{"flash forward", "aten::_flash_attention_forward", args([][]int64{{2, 4, 3, 8}, {2, 4, 3, 8}, {2, 4, 3, 8}},
			[]string{bf, bf, bf}, "", "", "", "", "", "4", "4", "0.", "False"), 3072, 4 * 192 * 2, BF16, false},
		// _efficient_attention_forward: causal from custom_mask_type (input 9).
		{"efficient forward causal", "aten::_efficient_attention_forward", args([][]int64{{2, 4, 3, 8}, {2, 4, 3, 8}, {2, 4, 3, 8}},
			[]string{f32, f32, f32}, "", "", "", "", "", "", "", "", "0.", "1"), 1920, 4 * 192 * 4, FP32, true},
		// layer norm [4,10] with weight and bias: (5+2)·40 = 280; bytes 2·80 + 20 + 20.
		{"layer_norm", "aten::native_layer_norm", args([][]int64{{4, 10}, nil, {10}, {10}, nil},
			[]string{bf, "ScalarList", bf, bf, "Scalar"}, "", "[10]", "", "", "1e-05"), 280, 200, BF16, false},
		// rms norm with weight: (3+1)·40.
		{"rms_norm", "aten::rms_norm", args([][]int64{{4, 10}, nil, {10}, nil}, []string{f32, "ScalarList", f32, "Scalar"}), 160, 360, FP32, false},
		// softmax: 5 per element.
		{"softmax", "aten::_softmax", args([][]int64{{2, 64}, nil, nil}, []string{f32, "Scalar", "Scalar"}), 640, 1024, FP32, false},
		// add [3,1] + [1,4]: broadcast 12 elements; bytes (3+4+12)·4.
		{"add broadcast", "aten::add", args([][]int64{{3, 1}, {1, 4}, nil}, []string{f32, f32, "Scalar"}), 12, 76, FP32, false},
		// mul by a Python number (a 0-d double): 8 elements, 8 + 1 read.
		{"mul scalar", "aten::mul", args([][]int64{{8}, nil}, []string{bf, "double"}), 8, 16 + 8 + 16, BF16, false},
		// copy_: no FLOPs, both tensors moved; out is dst's shape.
		{"copy", "aten::copy_", args([][]int64{{4, 4}, {4, 4}, nil}, []string{bf, f32, "Scalar"}), 0, 32 + 64 + 32, BF16, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := OpCost(tt.op, tt.a)
			if !ok {
				t.Fatalf("%s: no cost", tt.op)
			}
			if c.Flops != tt.flops || c.Bytes != tt.bytes || c.Precision != tt.prec || c.Causal != tt.causal {
				t.Errorf("%s: got flops %d bytes %d %s causal %v; want %d %d %s %v", tt.op, c.Flops, c.Bytes, c.Precision, c.Causal,
					tt.flops, tt.bytes, tt.prec, tt.causal)
			}
		})
	}
}

// TestOpCostRefuses: shapes that do not tell the cost give none, never 0.
func TestOpCostRefuses(t *testing.T) {
	f32 := "float"
	for _, tt := range []struct {
		name string
		op   string
		a    *trace.OpArgs
	}{
		{"no args", "aten::mm", nil},
		{"unmodelled op", "aten::embedding", &trace.OpArgs{Dims: [][]int64{{10, 4}, {3}}, Types: []string{f32, "long int"}}},
		{"inductor kernel", "triton_poi_fused_addmm_gelu_4", &trace.OpArgs{Dims: [][]int64{{1, 197, 1536}}, Types: []string{f32}}},
		{"mm mismatched", "aten::mm", &trace.OpArgs{Dims: [][]int64{{8, 16}, {15, 4}}, Types: []string{f32, f32}}},
		// torch before 2.1 records no stride or padding.
		{"conv without concrete", "aten::cudnn_convolution", &trace.OpArgs{Dims: [][]int64{{32, 3, 224, 224}, {64, 3, 7, 7}, nil}, Types: []string{f32, f32, "GenericList"}}},
		{"varlen attention", "aten::_flash_attention_forward", &trace.OpArgs{Dims: [][]int64{{100, 3, 8}, {100, 3, 8}, {100, 3, 8}}, Types: []string{f32, f32, f32}}},
		{"overflow", "aten::mm", &trace.OpArgs{Dims: [][]int64{{1 << 30, 1 << 30}, {1 << 30, 1 << 30}}, Types: []string{f32, f32}}},
	} {
		if c, ok := OpCost(tt.op, tt.a); ok {
			t.Errorf("%s: cost %+v, want none", tt.name, c)
		}
	}
}

// TestInstanceCostProfiler: the profiler's flops replace the model's.
func TestInstanceCostProfiler(t *testing.T) {
	o := &trace.Op{Name: "aten::mm", Args: &trace.OpArgs{Dims: [][]int64{{8, 16}, {16, 4}}, Types: []string{"float", "float"}, Flops: 999, HasFlops: true}}
	c, prof, ok := instanceCost(o)
	if !ok || !prof || c.Flops != 999 || c.Bytes != (128+64+32)*4 {
		t.Errorf("got %+v prof %v ok %v", c, prof, ok)
	}
	o = &trace.Op{Name: "aten::mystery", Args: &trace.OpArgs{Flops: 5, HasFlops: true}}
	if c, prof, ok := instanceCost(o); !ok || !prof || c.Flops != 5 || c.Bytes != 0 {
		t.Errorf("unmodelled op with flops: %+v %v %v", c, prof, ok)
	}
}

func TestKernelMath(t *testing.T) {
	for _, tt := range []struct {
		name string
		math bool
		p    Precision
	}{
		{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", true, BF16},
		{"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn", true, BF16},
		{"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x8_kernel", true, TF32},
		{"ampere_sgemm_128x64_tn", true, FP32},
		{"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", true, FP16},
		{"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize", true, FP8},
		{"void cutlass::Kernel2<cutlass_80_wmma_tensorop_s161616gemm_bf16_16x16_128x1_tn_align8>(Params)", true, BF16},
		{"nvjet_tst_128x64_64x8_1x1_v_bz_coopA_TNT", true, ""},
		{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x192x64_MI16x16x1_SN_LDSB1", true, BF16},
		{"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN", true, FP16},
		{"Cijk_Ailk_Bljk_SB_MT64x64x16_SN", true, FP32},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", false, ""},
		{"triton_poi_fused_addmm_gelu_view_4", false, ""},
		{"triton_red_fused_add_cat_convolution_expand_native_layer_norm_transpose_view_0", false, ""},
	} {
		if m, p := kernelMath(tt.name); m != tt.math || p != tt.p {
			t.Errorf("%s: %v %q, want %v %q", tt.name, m, p, tt.math, tt.p)
		}
	}
}
