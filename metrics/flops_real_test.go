package metrics_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// gemmTruth is the independent check of the FLOP model on real traces:
// the file read with encoding/json, not traceql's reader, and for each
// GEMM cpu_op whose External id a kernel carries (the op that launched
// it, by Kineto's own link rather than traceql's launch-call nesting),
// 2·M·N·K from its Input Dims, written out here per op: mm [M,K]×[K,N],
// addmm (bias, [M,K], [K,N]), bmm [B,M,K]×[B,K,N], baddbmm (self,
// [B,M,K], [B,K,N]). It returns the sums by (device, op name) of the
// ops that launched kernels (nil when no kernel names its op: the HTA
// samples number kernels' External id as their correlation), and of
// every instance, launching or not, by op name.
func gemmTruth(t *testing.T, path string) (launchedSums map[int]map[string]int64, all map[string]int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	var doc struct {
		TraceEvents []struct {
			Cat  string `json:"cat"`
			Name string `json:"name"`
			Ph   string `json:"ph"`
			Args struct {
				External *int64   `json:"External id"`
				Ext2021  *int64   `json:"external id"`
				Device   *int     `json:"device"`
				Dims     [][]any  `json:"Input Dims"`
				Types    []string `json:"Input type"`
			} `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	launched := map[int64]int{} // External id → device of a kernel carrying it
	for _, e := range doc.TraceEvents {
		ext := e.Args.External
		if ext == nil {
			ext = e.Args.Ext2021
		}
		if strings.EqualFold(e.Cat, "kernel") && e.Ph == "X" && ext != nil && e.Args.Device != nil {
			launched[*ext] = *e.Args.Device
		}
	}
	dim := func(d [][]any, i int) []int64 {
		if i >= len(d) {
			return nil
		}
		var out []int64
		for _, x := range d[i] {
			v, ok := x.(float64)
			if !ok {
				return nil
			}
			out = append(out, int64(v))
		}
		return out
	}
	all = map[string]int64{}
	for _, e := range doc.TraceEvents {
		if !strings.EqualFold(e.Cat, "cpu_op") && !strings.EqualFold(e.Cat, "operator") || e.Ph != "X" || e.Args.Dims == nil {
			continue
		}
		var flops int64
		switch e.Name {
		case "aten::mm":
			a, b := dim(e.Args.Dims, 0), dim(e.Args.Dims, 1)
			flops = 2 * a[0] * a[1] * b[1]
		case "aten::addmm":
			a, b := dim(e.Args.Dims, 1), dim(e.Args.Dims, 2)
			flops = 2 * a[0] * a[1] * b[1]
		case "aten::bmm":
			a, b := dim(e.Args.Dims, 0), dim(e.Args.Dims, 1)
			flops = 2 * a[0] * a[1] * a[2] * b[2]
		case "aten::baddbmm":
			a, b := dim(e.Args.Dims, 1), dim(e.Args.Dims, 2)
			flops = 2 * a[0] * a[1] * a[2] * b[2]
		default:
			continue
		}
		all[e.Name] += flops
		if e.Args.External == nil {
			continue
		}
		dev, ok := launched[*e.Args.External]
		if !ok {
			continue
		}
		if launchedSums == nil {
			launchedSums = map[int]map[string]int64{}
		}
		if launchedSums[dev] == nil {
			launchedSums[dev] = map[string]int64{}
		}
		launchedSums[dev][e.Name] += flops
	}
	return launchedSums, all
}

// TestGEMMFlopsReal checks, on every real trace with shapes, each GEMM
// op's FLOPs as traceql attributes them (the reader's shapes, the model,
// Scopes) against gemmTruth.
func TestGEMMFlopsReal(t *testing.T) {
	dir := shared.Traces(t)
	files := []string{
		"hta/trace_filter/sampled_rank-0.json.gz", "hta/trace_filter/sampled_rank-1.json.gz",
		"hta/trace_diff/control/control.json.gz", "hta/trace_diff/test/test.json.gz",
		"kineto/resnet50_v100_workers0.pt.trace.json.gz", "kineto/resnet50_v100_workers4.pt.trace.json.gz",
		"more/kineto__resnet50_num_workers_0__worker0__d3fb407.pt.trace.json.gz",
		"more/tracelens__h100__Falconsai_nsfw_image_detection__1016002.json.gz",
		"more/tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
		"more/tracelens__mi300__Falconsai_nsfw_image_detection__1016002.json.gz",
		"more/tracelens__mi300__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
		"more/tracelens__inference__xdit_flux.1__split_iteration_1.json.gz",
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join(dir, f))
	}
	for _, f := range []string{"vit-small_default_b1_flops", "vit-medium_default_b1_flops", "pair-fp32-matmul_before", "pair-fp32-matmul_after"} {
		paths = append(paths, filepath.Join(gpuTraces, f+".pt.trace.json.gz"))
	}
	checked := 0
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s absent", path)
			}
			truth, all := gemmTruth(t, path)
			tr, err := trace.Options{Needs: &trace.Needs{Ops: true, Shapes: true, ShapesOf: metrics.ModelledOps()}}.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			// Every instance: the reader's shapes and the model.
			model := map[string]int64{}
			for i := range tr.Ops {
				o := &tr.Ops[i]
				if _, ok := all[o.Name]; !ok {
					continue
				}
				c, ok := metrics.OpCost(o.Name, o.Args)
				if !ok {
					t.Errorf("%s at %d: no cost (args %+v)", o.Name, o.Start, o.Args)
				}
				model[o.Name] += c.Flops
			}
			for name, w := range all {
				if model[name] != w {
					t.Errorf("every %s: %d FLOPs, independently %d", name, model[name], w)
				}
				checked++
			}
			if truth == nil {
				t.Logf("no kernel names its op: the attribution is not checked")
				return
			}
			s := metrics.Summarize(tr, metrics.Options{Scopes: true})
			for _, d := range s.Devices {
				got := map[string]int64{}
				for _, o := range d.Ops {
					switch o.Name {
					case "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm":
						got[o.Name] = o.Work.Flops
					}
				}
				want := truth[d.Device]
				for name, w := range want {
					if got[name] != w {
						t.Errorf("GPU %d %s: %d FLOPs, independently %d", d.Device, name, got[name], w)
					}
					checked++
				}
				for name, g := range got {
					if _, ok := want[name]; !ok && g != 0 {
						t.Errorf("GPU %d %s: %d FLOPs, independently none", d.Device, name, g)
					}
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no GEMM op checked")
	}
	t.Logf("%d (trace, device, GEMM op) sums checked", checked)
}
