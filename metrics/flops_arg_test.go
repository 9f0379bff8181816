package metrics_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestFlopsArgWarning reads a generated trace whose aten::mm calls carry
// a "flops" argument (with_flops=True; no shared trace has one): three
// agree with 2·M·N·K of their shapes (one within the 1 % tolerance), one
// is 4 times it. flops is the arguments' sum, and a warning counts the
// one call that disagrees.
func TestFlopsArgWarning(t *testing.T) {
	// 2·8·16·4 = 1024; 2·64·128·32 = 524288 (+0.5 % in the third call).
	mm := func(ts, corr int, dims string, flops int64) string {
		return `{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ` + itoa(ts) + `, "dur": 5,
  "args": {"Input Dims": ` + dims + `, "Input type": ["c10::BFloat16", "c10::BFloat16"], "flops": ` + itoa(int(flops)) + `}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ` + itoa(ts+1) + `, "dur": 2, "args": {"correlation": ` + itoa(corr) + `}},
 {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32", "pid": 0, "tid": 7, "ts": ` + itoa(ts+4) + `, "dur": 3,
  "args": {"device": 0, "stream": 7, "correlation": ` + itoa(corr) + `}}`
	}
	doc := `{"traceEvents": [` + strings.Join([]string{
		mm(10, 1, `[[8, 16], [16, 4]]`, 1024),
		mm(30, 2, `[[64, 128], [128, 32]]`, 524288),
		mm(50, 3, `[[64, 128], [128, 32]]`, 524288+2600),
		mm(70, 4, `[[8, 16], [16, 4]]`, 4096),
	}, ",\n ") + "]}"
	path := filepath.Join(t.TempDir(), "flops.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Options{Needs: &trace.Needs{Ops: true, Shapes: true, ShapesOf: metrics.ModelledOps()}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{Scopes: true, Flops: true})
	if len(s.Devices) != 1 || s.Devices[0].Util == nil {
		t.Fatalf("devices %d, want 1 with its utilization", len(s.Devices))
	}
	w := s.Devices[0].Util.Work
	if want := int64(1024 + 524288 + 524288 + 2600 + 4096); w.Flops != want || w.ProfilerCalls != 4 || w.ArgMismatches != 1 {
		t.Errorf("flops %d, profiler calls %d, mismatches %d; want %d, 4, 1", w.Flops, w.ProfilerCalls, w.ArgMismatches, want)
	}
	var warned []string
	for _, m := range s.Warnings {
		if strings.Contains(m, "flops argument") {
			warned = append(warned, m)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "GPU 0: 1 of 4 op calls") {
		t.Errorf("warnings %q; want one on GPU 0's 1 of 4 calls", s.Warnings)
	}
	// Read without shapes (plain summarize), nothing is counted or said.
	plain, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range metrics.Summarize(plain, metrics.Options{}).Warnings {
		if strings.Contains(m, "flops argument") {
			t.Errorf("a read without shapes warns: %s", m)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
