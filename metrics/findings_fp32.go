package metrics

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/trace"
)

// isConvKernel reports whether an fp32 GEMM-path kernel (isFP32GEMM) is a
// convolution: cuDNN's kernels (scudnn, …_cudnn) and the implicit GEMMs
// and fprop/dgrad/wgrad kernels convolutions run as. The rest are matrix
// multiplications (cuBLAS, CUTLASS), which another switch governs.
func isConvKernel(name string) bool {
	for _, s := range []string{"cudnn", "conv", "fprop", "dgrad", "wgrad", "implicit_gemm", "implicit_sgemm"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// fp32Kernel counts k, an fp32 GEMM-path kernel name's statistics, among
// the convolutions when it is one, and keeps the top kernel of each.
func (in *findingInputs) fp32Kernel(k KernelStat) {
	if in.fp32Top.Name == "" || longestFirst(k, in.fp32Top) < 0 {
		in.fp32Top = k
	}
	if !isConvKernel(k.Name) {
		return
	}
	in.fp32Conv.n += k.Count
	in.fp32Conv.ns += k.TotalNS
	if in.fp32ConvTop.Name == "" || longestFirst(k, in.fp32ConvTop) < 0 {
		in.fp32ConvTop = k
	}
}

// fp32Finding is the fp32-gemm finding: its evidence says which kernels
// are matrix multiplications and which convolutions, and its fix follows,
// as PyTorch puts the two on tensor cores by different switches.
func fp32Finding(d *DeviceSummary, dev trace.Device, in *findingInputs) Finding {
	conv := in.fp32Conv
	gemm := counted{n: in.fp32.n - conv.n, ns: in.fp32.ns - conv.ns}
	var parts []string
	if gemm.n > 0 {
		parts = append(parts, "matmuls "+Plural(gemm.n, "kernels")+", "+fmtDur(gemm.ns))
	}
	if conv.n > 0 {
		parts = append(parts, "convolutions "+Plural(conv.n, "kernels")+", "+fmtDur(conv.ns))
	}
	ev := fmt.Sprintf("%s of kernel time: %s; top %s (%d×)", ShareText(in.fp32.ns, d.KernelNS), strings.Join(parts, ", "),
		in.fp32Top.Name, in.fp32Top.Count)
	if gemm.n > 0 && conv.n > 0 && in.fp32ConvTop.Name != in.fp32Top.Name {
		ev += fmt.Sprintf("; top convolution %s (%d×)", in.fp32ConvTop.Name, in.fp32ConvTop.Count)
	}
	var fixes []string
	if gemm.n > 0 {
		fixes = append(fixes, fp32MatmulFix(dev))
	}
	if conv.n > 0 {
		fixes = append(fixes, fp32ConvFix(dev))
	}
	return Finding{Rule: "fp32-gemm", Count: in.fp32.n, TimeNS: in.fp32.ns, Evidence: ev, Fix: strings.Join(fixes, "; ")}
}

// fp32MatmulFix says how to put fp32 matrix multiplications on tensor
// cores on dev's generation: TF32 or bf16 from Ampere (compute 8.x) on,
// fp16 AMP on Volta and Turing. PyTorch leaves TF32 off for matmuls by
// default (torch.backends.cuda.matmul.allow_tf32 is False since 1.12).
func fp32MatmulFix(dev trace.Device) string {
	switch {
	case dev.ComputeMajor >= 8:
		return "matmuls: torch.set_float32_matmul_precision('high') (TF32) or bf16 autocast"
	case dev.ComputeMajor == 7:
		return "matmuls: fp16 autocast (torch.autocast('cuda', dtype=torch.float16)) with a GradScaler"
	}
	return "matmuls: TF32 (torch.set_float32_matmul_precision('high')) or bf16 autocast on Ampere and later, fp16 autocast before"
}

// fp32ConvFix says the same of convolutions. cuDNN may use TF32 by
// default (torch.backends.cudnn.allow_tf32 is True, and
// set_float32_matmul_precision does not govern it), so an fp32 kernel
// from Ampere on means the flag was turned off or no tensor-core kernel
// fits the shape, as with the 3 input channels of an image stem: lower
// precision and channels_last are what is left.
func fp32ConvFix(dev trace.Device) string {
	switch {
	case dev.ComputeMajor >= 8:
		return "convolutions: cuDNN may use TF32 unless torch.backends.cudnn.allow_tf32 was set False; if it is True, no tensor-core kernel fit the shape (few channels, as a 3-channel image stem): bf16 autocast with channels_last (model.to(memory_format=torch.channels_last))"
	case dev.ComputeMajor == 7:
		return "convolutions: fp16 autocast with channels_last (model.to(memory_format=torch.channels_last))"
	}
	return "convolutions: bf16 autocast on Ampere and later (TF32 is cuDNN's default there: torch.backends.cudnn.allow_tf32), fp16 autocast before, with channels_last"
}
