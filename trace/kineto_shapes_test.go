package trace

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
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

// TestShapesShared reads ops whose arguments repeat, or differ in one
// part only: equal arguments share one OpArgs, different ones never do,
// and each op with invalid UTF-8 in a type counts its warning as when
// every op was parsed alone.
func TestShapesShared(t *testing.T) {
	op := func(name, args string) string {
		return `{"ph": "X", "cat": "cpu_op", "name": "` + name + `", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {` + args + `}}`
	}
	const mm = `"Input Dims": [[8, 16], [16, 4]], "Input type": ["float", "float"]`
	doc := `[` + op("aten::mm", mm) + `,` + op("aten::addmm", mm) + `,` + op("aten::mm", mm) + `,` +
		op("aten::mm", mm+`, "flops": 1024`) + `,` + op("aten::mm", mm+`, "flops": 1025`) + `,` +
		op("aten::mm", `"Input Dims": [[8, 16], [16, 4]]`) + `,` + op("aten::mm", `"Input type": ["float", "float"]`) + `,` +
		op("aten::mm", mm+`, "Concrete Inputs": ["", ""]`) + `,` +
		op("aten::add", `"Input Dims": [[2], [2]], "Input type": ["f`+"\xff"+`oat", "float"]`) + `,` +
		op("aten::add", `"Input Dims": [[2], [2]], "Input type": ["f`+"\xff"+`oat", "float"]`) + `]`
	tr, err := Options{Needs: &Needs{Shapes: true}}.Open(context.Background(), writeTemp(t, "t.json", []byte(doc)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Ops) != 10 {
		t.Fatalf("%d ops, want 10", len(tr.Ops))
	}
	a := func(i int) *OpArgs { return tr.Ops[i].Args }
	if a(0) != a(1) || a(0) != a(2) {
		t.Errorf("ops 0-2, recorded alike, do not share their arguments")
	}
	for i := 3; i < 8; i++ {
		for j := range i {
			if a(i) == a(j) {
				t.Errorf("ops %d and %d share arguments, recorded differently: %+v", i, j, a(i))
			}
		}
	}
	if a(6) != nil { // types without dims: no shapes
		t.Errorf("op 6: %+v", a(6))
	}
	if a(3).Flops != 1024 || a(4).Flops != 1025 || a(5).Types != nil || a(7).Concrete == nil {
		t.Errorf("arguments: %+v %+v %+v %+v", a(3), a(4), a(5), a(7))
	}
	if a(8) != a(9) || a(8).Types[0] != "f\uFFFDoat" {
		t.Errorf("ops 8, 9: %+v, %+v", a(8), a(9))
	}
	want := "2 " + badUTF8Names
	if len(tr.Warnings) != 1 || tr.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", tr.Warnings, want)
	}
}

// TestShapesReal reads the shapes of every cpu_op of real traces (both
// schemas' spellings, with flops and Concrete Inputs, few and many
// distinct shapes) and checks each op's against encoding/json's reading
// of the same file, as multisets of (name, arguments).
func TestShapesReal(t *testing.T) {
	dir := shared.Traces(t)
	for _, f := range []string{
		"../testdata/gpu/vit-small_default_b1_flops.pt.trace.json.gz",
		filepath.Join(dir, "more/kineto__resnet50_num_workers_0__worker0__d3fb407.pt.trace.json.gz"), // "Input dims", 2021
		filepath.Join(dir, "more/tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
		filepath.Join(dir, "hta/trace_filter/sampled_rank-0.json.gz"), // 36 % distinct
		filepath.Join(dir, "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
	} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, err := Options{Needs: &Needs{Shapes: true}}.Open(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range tr.Ops {
				if o.Kind == CPUOp && o.Args != nil {
					got = append(got, o.Name+" "+argsText(o.Args))
				}
			}
			want := shapesByJSON(t, f)
			slices.Sort(got)
			slices.Sort(want)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("%d ops with shapes, want %d (encoding/json)", len(got), len(want))
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("first difference:\n got %s\nwant %s", got[i], want[i])
					}
				}
			}
		})
	}
}

// argsText writes a's inputs as JSON, as the trace recorded them.
func argsText(a *OpArgs) string {
	dims := make([]any, len(a.Dims))
	for i, d := range a.Dims {
		switch {
		case a.Lists != nil && a.Lists[i] != nil:
			l := make([][]int64, len(a.Lists[i]))
			for j, x := range a.Lists[i] {
				l[j] = append([]int64{}, x...)
			}
			dims[i] = l
		default:
			dims[i] = append([]int64{}, d...)
		}
	}
	var fl any
	if a.HasFlops {
		fl = a.Flops
	}
	b, _ := json.Marshal([]any{dims, a.Types, a.Concrete, fl})
	return string(b)
}

// shapesByJSON reads file's cpu_ops with shapes by encoding/json, each as
// argsText writes them.
func shapesByJSON(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Cat, Name, Ph string
			Args          struct {
				Dims     [][]any `json:"Input Dims"`
				Dims2021 [][]any `json:"Input dims"`
				Types    []any   `json:"Input type"`
				Concrete []any   `json:"Concrete Inputs"`
				Flops    *int64  `json:"flops"`
			}
		} `json:"traceEvents"`
	}
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	strs := func(v []any) []string {
		if len(v) == 0 { // none, as the reader keeps an empty list
			return nil
		}
		out := make([]string, len(v))
		for i, x := range v {
			out[i], _ = x.(string)
		}
		return out
	}
	var out []string
	for _, e := range doc.TraceEvents {
		a := e.Args
		if a.Dims == nil {
			a.Dims = a.Dims2021
		}
		if e.Ph != "X" || !strings.EqualFold(e.Cat, "cpu_op") && !strings.EqualFold(e.Cat, "operator") || a.Dims == nil && a.Flops == nil {
			continue
		}
		dims := make([]any, len(a.Dims))
		for i, d := range a.Dims {
			if _, list := firstOf(d).([]any); list {
				l := make([][]int64, len(d))
				for j, x := range d {
					l[j] = ints(x.([]any))
				}
				dims[i] = l
			} else {
				dims[i] = ints(d)
			}
		}
		var fl any
		if a.Flops != nil {
			fl = *a.Flops
		}
		b, _ := json.Marshal([]any{dims, strs(a.Types), strs(a.Concrete), fl})
		out = append(out, e.Name+" "+string(b))
	}
	return out
}

func firstOf(v []any) any {
	if len(v) == 0 {
		return nil
	}
	return v[0]
}

func ints(v []any) []int64 {
	out := []int64{}
	for _, x := range v {
		out = append(out, int64(x.(float64)))
	}
	return out
}
