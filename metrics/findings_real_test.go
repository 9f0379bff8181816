package metrics

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/trace"
)

// readLean reads a shared trace as summarize does: host events the
// summary does not read left out, which must keep what the findings read.
func readLean(tb testing.TB, path string) *trace.Trace {
	tb.Helper()
	tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// TestFindingsRealPinned: findings of real traces against numbers computed
// apart from traceql (Python over the JSON, decimal µs to integer ns;
// SQL over the Nsight export), and rules that must stay quiet on them.
func TestFindingsRealPinned(t *testing.T) {
	dir := shared.Traces(t)
	type want struct {
		rule   string
		count  int
		timeNS int64
		bytes  int64
		absent bool
	}
	for file, wants := range map[string][]want{
		// num_workers=0: the GPU idles 286,877,000 ns inside 5 of the 6
		// DataLoader ranges; the SGD steps launch 2,898 kernels of
		// 7,883,000 ns, none multi-tensor; 12 pageable H2D copies.
		"kineto/resnet50_v100_workers0.pt.trace.json.gz": {{rule: "dataloader-wait", count: 5, timeNS: 286_877_000},
			{rule: "single-tensor-optimizer", count: 2898, timeNS: 7_883_000}, {rule: "pageable-copy", count: 12, bytes: 115_607_040}},
		// num_workers=4: the loader keeps up.
		"kineto/resnet50_v100_workers4.pt.trace.json.gz": {{rule: "dataloader-wait", absent: true}, {rule: "slow-launch", absent: true}},
		// 708 kernels, 35,145 µs, before the first launch call recorded.
		"more/kineto__resnet50_num_workers_0__worker0__d3fb407.pt.trace.json.gz": {{rule: "lost-activity", count: 708, timeNS: 35_145_000}},
		// SELECT over CUPTI_ACTIVITY_KIND_RUNTIME: 11 cudaLaunchKernel
		// calls of 1 ms or more, 959,909,400 ns, all launching kernels.
		"nsys/nsys2024.2.1_mmagic_pytorch.sqlite": {{rule: "slow-launch", count: 11, timeNS: 959_909_400}},
		// bf16 inference on H100: its GEMMs are tensor-op kernels.
		"more/tracelens__h100__Falconsai_nsfw_image_detection__1016002.json.gz": {{rule: "fp32-gemm", absent: true}, {rule: "slow-launch", absent: true}},
	} {
		t.Run(file, func(t *testing.T) {
			tr := readLean(t, filepath.Join(dir, file))
			s := Summarize(tr, Options{})
			checkBounds(t, file, s)
			got := map[string]Finding{}
			for _, f := range s.Devices[0].Findings {
				got[f.Rule] = f
			}
			for _, w := range wants {
				f, ok := got[w.rule]
				switch {
				case w.absent && ok:
					t.Errorf("%s fired: %+v", w.rule, f)
				case w.absent:
				case !ok:
					t.Errorf("%s did not fire", w.rule)
				case f.Count != w.count || w.timeNS != 0 && f.TimeNS != w.timeNS || w.bytes != 0 && f.Bytes != w.bytes:
					t.Errorf("%s: count %d, time %d, bytes %d; want %d, %d, %d", w.rule, f.Count, f.TimeNS, f.Bytes, w.count, w.timeNS, w.bytes)
				}
			}
		})
	}
}

// TestFindingsRealBounds: on every shared trace, every finding keeps its
// bounds (savings ≤ time, ≤ span), and the copy rules' numbers are those
// of the copies themselves, counted here from the model's records.
func TestFindingsRealBounds(t *testing.T) {
	dir := shared.Traces(t)
	var files []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".sqlite") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return nil
	})
	for _, file := range files {
		tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), file)
		if err != nil {
			continue // not a trace (manifests' JSON, TraceLens outputs)
		}
		s := Summarize(tr, Options{})
		checkBounds(t, file, s)
		for _, d := range s.Devices {
			var n int
			var ns, bytes int64
			for _, m := range tr.Memcpys {
				if m.Device == d.Device && (m.Src == trace.Pageable || m.Dst == trace.Pageable) {
					n, ns, bytes = n+1, ns+m.End-m.Start, bytes+m.Bytes
				}
			}
			var f Finding
			for _, x := range d.Findings {
				if x.Rule == "pageable-copy" {
					f = x
				}
			}
			if f.Count != n || f.TimeNS != ns || f.Bytes != bytes {
				t.Errorf("%s GPU %d: pageable-copy %d/%d/%d, records say %d/%d/%d", file, d.Device, f.Count, f.TimeNS, f.Bytes, n, ns, bytes)
			}
		}
	}
}

// TestFindingsGPUPairs: the controlled pairs recorded on an H200
// (testdata/gpu/README.md), each the same run before and after one fix.
// The rule of the fix fires before, at a higher severity and cost than
// after, where the fix leaves it quiet or smaller; the copy rule's
// numbers are the copies' own, counted here from the records.
func TestFindingsGPUPairs(t *testing.T) {
	for pair, rule := range map[string]string{
		"pageable-copy": "pageable-copy", "fp32-matmul": "fp32-gemm", "dataloader": "dataloader-wait",
		"item-sync": "host-sync", "item-sync-b32": "host-sync",
	} {
		t.Run(pair, func(t *testing.T) {
			var fs [2]Finding
			for i, side := range []string{"before", "after"} {
				tr := readLean(t, filepath.Join("../testdata/gpu", "pair-"+pair+"_"+side+".pt.trace.json.gz"))
				s := Summarize(tr, Options{})
				checkBounds(t, pair+" "+side, s)
				for _, f := range s.Devices[0].Findings {
					if f.Rule == rule {
						fs[i] = f
					}
				}
				if rule == "pageable-copy" {
					var n int
					var bytes int64
					for _, m := range tr.Memcpys {
						if m.Src == trace.Pageable || m.Dst == trace.Pageable {
							n, bytes = n+1, bytes+m.Bytes
						}
					}
					if fs[i].Count != n || fs[i].Bytes != bytes {
						t.Errorf("%s: pageable-copy %d copies, %d B; records say %d, %d", side, fs[i].Count, fs[i].Bytes, n, bytes)
					}
				}
			}
			before, after := fs[0], fs[1]
			if before.Rule == "" || before.Severity < Warn {
				t.Fatalf("before: %s %+v, want it at warn or high", rule, before)
			}
			if after.Rule != "" && (after.TimeNS >= before.TimeNS || after.Severity >= before.Severity) {
				t.Errorf("after: %s %+v, not less than before %+v", rule, after, before)
			}
		})
	}
}
