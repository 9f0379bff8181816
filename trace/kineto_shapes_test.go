package trace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseDims(t *testing.T) {
	for _, tt := range []struct {
		in    string
		dims  [][]int64
		lists [][][]int64
	}{
		{`[[2048, 1024], [1024, 4096]]`, [][]int64{{2048, 1024}, {1024, 4096}}, nil},
		{`[[], [3], []]`, [][]int64{nil, {3}, nil}, nil},
		{`[[[2, 3], [4, 5]], []]`, [][]int64{nil, nil}, [][][]int64{{{2, 3}, {4, 5}}, nil}},
		{`[[1], [[2], []], [7, 8]]`, [][]int64{{1}, nil, {7, 8}}, [][][]int64{nil, {{2}, nil}, nil}},
		{`[]`, nil, nil},
		{`[["x"]]`, nil, nil},
		{`{}`, nil, nil},
		{`[[1, 2]`, nil, nil},
	} {
		dims, lists := parseDims([]byte(tt.in))
		if !reflect.DeepEqual(dims, tt.dims) || !reflect.DeepEqual(lists, tt.lists) {
			t.Errorf("parseDims(%s) = %v, %v; want %v, %v", tt.in, dims, lists, tt.dims, tt.lists)
		}
	}
}

// TestShapesKept reads a trace whose cpu_ops carry shapes, with and
// without Needs.Shapes: only the read that asks keeps them, and only on the
// ops ShapesOf accepts or that carry flops.
func TestShapesKept(t *testing.T) {
	const doc = `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
  "args": {"External id": 3, "Input Dims": [[8, 16], [16, 4]], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Concrete Inputs": ["", ""], "flops": 1024}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 1, "tid": 1, "ts": 20, "dur": 1,
  "args": {"Input Dims": [[8, 16], []], "Input type": ["float", "ScalarList"]}},
 {"args": {"Input Dims": [[2], [2]], "Input type": ["float", "float"]}, "ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 30, "dur": 1},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 11, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1}}
]}`
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, err := Options{Needs: &Needs{Ops: true}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range plain.Ops {
		if o.Args != nil {
			t.Errorf("%s: shapes kept without Needs.Shapes", o.Name)
		}
	}
	tr, err := Options{Needs: &Needs{Shapes: true, ShapesOf: map[string]bool{"aten::add": true}}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*OpArgs{}
	for _, o := range tr.Ops {
		got[o.Name] = o.Args
	}
	if len(got) != 3 {
		t.Fatalf("ops %v, want 3", got)
	}
	want := &OpArgs{Dims: [][]int64{{8, 16}, {16, 4}}, Types: []string{"c10::BFloat16", "c10::BFloat16"}, Concrete: []string{"", ""}, Flops: 1024, HasFlops: true}
	if !reflect.DeepEqual(got["aten::mm"], want) {
		t.Errorf("aten::mm args %+v, want %+v (flops keeps them though ShapesOf refuses)", got["aten::mm"], want)
	}
	if got["aten::view"] != nil {
		t.Errorf("aten::view kept shapes ShapesOf refused: %+v", got["aten::view"])
	}
	if a := got["aten::add"]; a == nil || !reflect.DeepEqual(a.Dims, [][]int64{{2}, {2}}) || a.HasFlops {
		t.Errorf("aten::add (args before cat) %+v", a)
	}
}
