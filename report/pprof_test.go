package report

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceql/traceql/internal/pproftest"
	"github.com/traceql/traceql/metrics"
)

// TestWritePprof checks a profile's frames, values and stacks, leaf first,
// with Python frames split into function, file and line.
func TestWritePprof(t *testing.T) {
	samples := []metrics.StackSample{
		{Stack: []string{"train.py(12): <module>", "aten::mm", "cudaLaunchKernel", "gemm\nkernel"}, GPUNS: 700, Kernels: 2},
		{Stack: []string{"train.py(12): <module>", "aten::add"}, GPUNS: 5, Kernels: 1},
		{Stack: []string{"train.py(12): <module>", "<built-in method argmax of Tensor object at 0x7f0fbc689680>", "aten::argmax"}, GPUNS: 3, Kernels: 1},
		{Stack: []string{"train.py(12): <module>", "<built-in method argmax of Tensor object at 0x7f0fbc6896c0>", "aten::argmax"}, GPUNS: 4, Kernels: 1},
	}
	var b bytes.Buffer
	if err := WritePprof(&b, samples); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 4 {
		t.Fatalf("%d samples, want 4", len(p.Sample))
	}
	s := p.Sample[0]
	if s.Value[0] != 700 || s.Value[1] != 2 {
		t.Errorf("values %v, want [700 2]", s.Value)
	}
	var names []string
	for _, l := range s.Location {
		names = append(names, l.Line[0].Function.Name)
	}
	if want := []string{"gemm kernel", "cudaLaunchKernel", "aten::mm", "[module]"}; !slices.Equal(names, want) {
		t.Errorf("stack %q, want %q", names, want)
	}
	root := s.Location[len(s.Location)-1].Line[0]
	if root.Function.Filename != "train.py" || root.Line != 12 {
		t.Errorf("root frame in %q line %d, want train.py line 12", root.Function.Filename, root.Line)
	}
	if p.Sample[1].Location[1] != s.Location[len(s.Location)-1] {
		t.Error("the shared Python frame is not one location")
	}
	// A builtin is one function whatever object it was called on, named in
	// brackets that pprof's display keeps.
	b2, b3 := p.Sample[2].Location[1].Line[0].Function, p.Sample[3].Location[1].Line[0].Function
	if b2 != b3 || b2.Name != "[built-in method argmax of Tensor object]" {
		t.Errorf("builtins %q and %q, want one function [built-in method argmax of Tensor object]", b2.Name, b3.Name)
	}
}

// TestPprofDistinctKernels runs pprof's own -top on kernels that pprof's
// display would shorten to one name (templates and parameters cut): each
// must stay its own node, named as short as tells it apart, with its full
// name kept as SystemName.
func TestPprofDistinctKernels(t *testing.T) {
	const launch = "cudaLaunchKernel"
	tests := []struct {
		kernel string
		ns     int64
		want   string // the -top name
	}{
		{"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)", 611,
			"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>"},
		{"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)", 410,
			"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>"},
		// Told apart at the first depth of nesting, the second kept out.
		{"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)", 300,
			"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor, at::detail::Array >"},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::MulFunctor<float>, at::detail::Array<char*, 3>)", 200,
			"void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor, at::detail::Array >"},
		// Told apart only at the second depth.
		{"void at::native::reduce_kernel<512, at::native::ReduceOp<float> >(int)", 90, "void at::native::reduce_kernel<512, at::native::ReduceOp<float> >"},
		{"void at::native::reduce_kernel<512, at::native::ReduceOp<long> >(int)", 80, "void at::native::reduce_kernel<512, at::native::ReduceOp<long> >"},
		// No parameters to cut: the name with its templates would be the
		// full name, which pprof shortens again, so a suffix.
		{"gemv<float>", 70, "gemv #1"},
		{"gemv<half>", 60, "gemv #2 #2"},
		{"gemv #2", 55, "gemv #2"}, // so named in the trace: the made name yields
		// Alone under its short name: shown as pprof would.
		{"void cublasLt::splitKreduce_kernel<32, 16>(cublasLt::cublasSplitKParams<float>)", 50, "void cublasLt::splitKreduce_kernel"},
		{"triton_poi_fused_addmm_gelu_view_4", 40, "triton_poi_fused_addmm_gelu_view_4"},
	}
	var samples []metrics.StackSample
	for _, tt := range tests {
		samples = append(samples, metrics.StackSample{Stack: []string{"aten::mm", launch, tt.kernel}, GPUNS: tt.ns, Kernels: 1})
	}
	var b bytes.Buffer
	if err := WritePprof(&b, samples); err != nil {
		t.Fatal(err)
	}
	top := pproftest.Report(t, b.Bytes(), "-top", "-nodecount=0", "-nodefraction=0")
	rows := map[string]int64{} // -top name → flat ns
	for _, line := range strings.Split(top, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasSuffix(f[0], "ns") {
			continue
		}
		ns, err := strconv.ParseInt(strings.TrimSuffix(f[0], "ns"), 10, 64)
		if err != nil {
			continue
		}
		rows[strings.Join(f[5:], " ")] = ns
	}
	for _, tt := range tests {
		if got, ok := rows[tt.want]; !ok || got != tt.ns {
			t.Errorf("-top: %q has %d ns (listed: %v), want its own node of %d ns", tt.want, got, ok, tt.ns)
		}
	}
	if t.Failed() {
		t.Logf("pprof -top:\n%s", top)
	}
	p, err := profile.ParseData(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]bool{}
	for _, f := range p.Function {
		full[f.SystemName] = true
	}
	for _, tt := range tests {
		if !full[tt.kernel] {
			t.Errorf("no function with SystemName %q", tt.kernel)
		}
	}
}

// TestPprofShort pins the rule of pprof's display that displayNames
// predicts (internal/symbolizer's heuristics for demangled names).
func TestPprofShort(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"void cutlass::Kernel2<X>(X::Params)", "void cutlass::Kernel2"},
		{"void k<4, f(int)::{lambda(float)#1}, A<char*, 2> >(int, A<char*, 2>)", "void k"},
		{"[built-in method argmax of Tensor object]", "[built-in method argmax of Tensor object]"},
		{"aten::mm", "aten::mm"},
		{"triton_poi_fused_0", "triton_poi_fused_0"},
		{"main.(*T[int]).M(x)", "main.(*T[int]).M(x)"}, // Go, left alone
		{"a::b>(c)<d", "a::b><d"},                      // a close before any open: pprof stops there
		{"a::b(c)>", "a::b>"},
		{"a::b<c", "a::b<c"}, // an open never closed stays
	} {
		if got := pprofShort(tt.in); got != tt.want {
			t.Errorf("pprofShort(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
