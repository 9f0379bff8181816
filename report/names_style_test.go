package report

import (
	"slices"
	"testing"
)

// TestStyleNamesDistinct: --names short keeps distinct kernels distinct:
// two cutlass GEMMs and the add and GELU elementwise kernels of a real
// ViT run, which all folded to two names, show the template arguments
// that tell them apart; names without a clash stay folded.
func TestStyleNamesDistinct(t *testing.T) {
	names := []string{
		"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)",
		"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)",
		"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
		"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, std::array<char*, 2ul>)",
		"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(at::native::ReduceOp<float>)",
		"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float>(cublasGemvParamsEx<int, float>)",
	}
	want := []string{
		"Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(…)",
		"Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(…)",
		"vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<…>, std::array<…> >(…)",
		"vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(…)::{lambda(…)#1}, std::array<…> >(…)",
		"reduce_kernel<…>(…)",
		"kernel<…>(…)",
	}
	if got := StyleNames(names, NamesShort); !slices.Equal(got, want) {
		t.Errorf("short names:\n%q\nwant\n%q", got, want)
	}
	// The same name twice is one kernel: no clash to resolve.
	if got := StyleNames([]string{names[4], names[4]}, NamesShort); got[0] != "reduce_kernel<…>(…)" || got[1] != got[0] {
		t.Errorf("one name twice: %q", got)
	}
	fam := StyleNames(names, NamesFamily)
	if fam[5] != "internal::gemvx::kernel" || fam[0] != "cutlass::Kernel2" {
		t.Errorf("families %q: want the kernel's own name, not its return type", fam)
	}
}

// TestStyleNamesMangled: mangled names (as Triton and some libraries
// leave them) are demangled by github.com/ianlancetaylor/demangle, pprof's,
// before folding; two instantiations that differ only in a template
// argument stay apart, and a family is the kernel's own qualified name.
func TestStyleNamesMangled(t *testing.T) {
	names := []string{
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIiEEEEviT0_",
		"_ZN2at6native13reduce_kernelILi512ELi1EEEvv",
	}
	want := []string{
		"vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(…)",
		"vectorized_elementwise_kernel<4, at::native::FillFunctor<int> >(…)",
		"reduce_kernel<…>(…)",
	}
	if got := StyleNames(names, NamesShort); !slices.Equal(got, want) {
		t.Errorf("short names:\n%q\nwant\n%q", got, want)
	}
	if fam := StyleNames(names, NamesFamily); fam[0] != "at::native::vectorized_elementwise_kernel" || fam[0] != fam[1] {
		t.Errorf("families %q: want the instantiations together under the kernel's name", fam)
	}
}
