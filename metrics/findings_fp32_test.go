package metrics

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFP32FixByKind: the fp32-gemm fix follows what its kernels are:
// matmuls alone get the matmul precision, convolutions alone cuDNN's
// switch and channels_last and never the matmul precision, which does not
// govern them; both get both, and the evidence counts each.
func TestFP32FixByKind(t *testing.T) {
	const gemm, conv = "ampere_sgemm_128x64_nn", "sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_ffma_cudnn"
	for _, c := range []struct {
		name          string
		kernels       []string
		matmul, cudnn bool
		evidence      string
	}{
		{"matmuls", []string{gemm, gemm}, true, false, "matmuls 2 kernels, 200 ns"},
		{"convolutions", []string{conv, conv, conv}, false, true, "convolutions 3 kernels, 300 ns"},
		{"both", []string{gemm, conv, conv}, true, true, "matmuls 1 kernel, 100 ns, convolutions 2 kernels, 200 ns"},
	} {
		b := newBuilder(8)
		for i, k := range c.kernels {
			at := int64(1000 + 200*i)
			b.kernel(k, at, at+100, b.call("cudaLaunchKernel", at-50, at-40))
		}
		f, ok := findingsOf(b.done(t))["fp32-gemm"]
		if !ok || f.Count != len(c.kernels) {
			t.Errorf("%s: %+v", c.name, f)
			continue
		}
		if strings.Contains(f.Fix, "set_float32_matmul_precision") != c.matmul || strings.Contains(f.Fix, "cudnn.allow_tf32") != c.cudnn ||
			strings.Contains(f.Fix, "channels_last") != c.cudnn {
			t.Errorf("%s: fix %q", c.name, f.Fix)
		}
		if !strings.Contains(f.Evidence, c.evidence) {
			t.Errorf("%s: evidence %q, want %q", c.name, f.Evidence, c.evidence)
		}
	}
	for _, n := range []string{conv, "scudnn_128x64_relu_interior_nn", "cutlass_80_simt_sgemm_implicit_gemm_conv2d_fprop"} {
		if !isConvKernel(n) {
			t.Errorf("%s: not a convolution", n)
		}
	}
	for _, n := range []string{gemm, "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_ffma_cublas"} {
		if isConvKernel(n) {
			t.Errorf("%s: a convolution", n)
		}
	}
}

// TestFP32FixRealPair: after the matmul precision fix, the fp32 pair's
// run keeps only its patch embedding's convolutions in fp32: the finding
// says so and no longer asks for the matmul precision it already has.
func TestFP32FixRealPair(t *testing.T) {
	want := map[string]struct {
		matmuls, convs int
	}{"before": {490, 10}, "after": {0, 10}}
	for side, w := range want {
		tr := readLean(t, filepath.Join("../testdata/gpu", "pair-fp32-matmul_"+side+".pt.trace.json.gz"))
		var m, c int
		for _, k := range tr.Kernels {
			if isFP32GEMM(k.Name) {
				if strings.Contains(k.Name, "cudnn") {
					c++
				} else {
					m++
				}
			}
		}
		if m != w.matmuls || c != w.convs {
			t.Fatalf("%s: records hold %d fp32 matmuls, %d convolutions; the test wants %d, %d", side, m, c, w.matmuls, w.convs)
		}
		f := findingsOf(tr)["fp32-gemm"]
		if f.Count != m+c || strings.Contains(f.Fix, "set_float32_matmul_precision") != (m > 0) || !strings.Contains(f.Fix, "cudnn.allow_tf32") {
			t.Errorf("%s: %d kernels, fix %q", side, f.Count, f.Fix)
		}
		if !strings.Contains(f.Evidence, "convolutions 10 kernels") {
			t.Errorf("%s: evidence %q", side, f.Evidence)
		}
	}
}
