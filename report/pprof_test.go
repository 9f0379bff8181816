package report

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/pprof/profile"

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
