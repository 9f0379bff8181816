package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

// annotateCases are traces annotate is tested on: the sample (two GPUs,
// steps, copies) and the eager and default runs of tracegen -mode (warm-up
// steps, launch-bound gaps).
func annotateCases(t *testing.T) map[string]string {
	runs := modeRuns(t, t.TempDir())
	return map[string]string{"sample": sample, "eager": runs[0], "default": runs[1]}
}

// readJSON reads a JSON file, gunzipping it when it is gzipped.
func readJSON(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// usToNS converts a Kineto time (decimal µs) to ns exactly.
func usToNS(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		t.Fatalf("time %s: finer than 1 ns", s)
	}
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || f < 0 {
		t.Fatalf("time %s: not a decimal", s)
	}
	if strings.HasPrefix(whole, "-") {
		return w*1000 - f
	}
	return w*1000 + f
}

type addedEvent struct {
	Ph   string                     `json:"ph"`
	Cat  string                     `json:"cat"`
	Name string                     `json:"name"`
	PID  json.Number                `json:"pid"`
	TID  json.Number                `json:"tid"`
	TS   *json.Number               `json:"ts"`
	Dur  *json.Number               `json:"dur"`
	Args map[string]json.RawMessage `json:"args"`
}

// TestAnnotate checks annotate's output: the original events unchanged and
// in order, each added event valid Trace Event Format, the gaps track equal
// to export --table gaps, a slice per step, and the annotated trace read
// back by traceql summarizing byte for byte as the original.
func TestAnnotate(t *testing.T) {
	for name, in := range annotateCases(t) {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "annotated.json.gz")
			if _, errOut, code := traceql("annotate", in, "-o", out, "--bins", "100"); code != 0 {
				t.Fatalf("annotate: exit %d: %s", code, errOut)
			}

			// Round trip: the same summary, the same gaps, the same steps,
			// under one label (by default each file's name).
			for _, args := range [][]string{{"summarize", "-f", "csv", "--label", "run"}, {"export", "--table", "gaps", "--label", "run"},
				{"export", "--table", "steps", "--label", "run"}} {
				a, _, c1 := traceql(append(args, in)...)
				b, _, c2 := traceql(append(args, out)...)
				if c1 != 0 || c2 != 0 {
					t.Fatalf("%v: exit %d and %d", args, c1, c2)
				}
				if b = strings.ReplaceAll(b, out, in); a != b || len(a) < 100 {
					t.Errorf("%v of the annotated trace differs from the original's:\n%s\nwant\n%s", args, b, a)
				}
			}

			var orig, ann struct {
				TraceEvents []json.RawMessage `json:"traceEvents"`
				Traceql     struct {
					Devices []struct {
						Device  int
						PID     int
						Bound   string
						Verdict string
					}
				} `json:"traceql"`
			}
			if err := json.Unmarshal(readJSON(t, in), &orig); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(readJSON(t, out), &ann); err != nil {
				t.Fatalf("the annotated trace is not JSON: %v", err)
			}
			var kept []json.RawMessage
			var added []addedEvent
			for _, raw := range ann.TraceEvents {
				var c struct{ Cat any }
				if err := json.Unmarshal(raw, &c); err != nil {
					t.Fatal(err)
				}
				if c.Cat != report.AnnotationCategory {
					kept = append(kept, raw)
					continue
				}
				var e addedEvent
				d := json.NewDecoder(bytes.NewReader(raw))
				d.UseNumber()
				d.DisallowUnknownFields()
				if err := d.Decode(&e); err != nil {
					t.Fatalf("added event %s: %v", raw, err)
				}
				added = append(added, e)
			}
			if !slices.EqualFunc(kept, orig.TraceEvents, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
				t.Fatalf("the original events changed: %d kept of %d", len(kept), len(orig.TraceEvents))
			}
			if len(ann.Traceql.Devices) == 0 || ann.Traceql.Devices[0].Verdict == "" || ann.Traceql.Devices[0].PID != report.AnnotationPID {
				t.Errorf("traceql metadata: %+v", ann.Traceql)
			}

			// Every added event per the Trace Event Format.
			named := map[int64]bool{} // pids with a process_name
			var gaps [][]string
			steps := 0
			for _, e := range added {
				pid, err1 := e.PID.Int64()
				_, err2 := e.TID.Int64()
				if err1 != nil || err2 != nil || e.Name == "" {
					t.Fatalf("event %+v: pid and tid are integers, and the name is set", e)
				}
				switch e.Ph {
				case "M":
					want := map[string]string{"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index", "thread_name": "name"}[e.Name]
					if want == "" || e.Args[want] == nil {
						t.Errorf("metadata event %+v: unknown, or its args lack %q", e, want)
					}
					if e.Name == "process_name" {
						named[pid] = true
					}
				case "X":
					if e.TS == nil || e.Dur == nil || usToNS(t, *e.Dur) < 0 {
						t.Fatalf("complete event %+v: needs ts and a dur of 0 or more", e)
					}
					if tid, _ := e.TID.Int64(); tid == 1 {
						var a map[string]int64
						if err := json.Unmarshal(mustJSON(t, e.Args), &a); err != nil {
							t.Fatal(err)
						}
						start := usToNS(t, *e.TS)
						gaps = append(gaps, []string{strconv.FormatInt(pid-report.AnnotationPID, 10), strconv.FormatInt(start, 10),
							strconv.FormatInt(start+usToNS(t, *e.Dur), 10), strconv.FormatInt(a["dur_ns"], 10), strconv.FormatInt(a["sync_ns"], 10),
							strconv.FormatInt(a["launch_ns"], 10), strconv.FormatInt(a["other_ns"], 10), e.Name})
					} else {
						steps++
					}
				case "C":
					if e.TS == nil || len(e.Args) == 0 {
						t.Fatalf("counter event %+v: needs ts and args", e)
					}
					for k, v := range e.Args {
						if _, err := strconv.ParseFloat(string(v), 64); err != nil {
							t.Errorf("counter %s = %s: not a number", k, v)
						}
					}
				default:
					t.Errorf("event %+v: phase %q", e, e.Ph)
				}
			}
			for _, e := range added {
				if pid, _ := e.PID.Int64(); !named[pid] {
					t.Fatalf("event %+v: its process has no process_name", e)
				}
			}

			// The gaps track: export --table gaps, row for row.
			exp, _, _ := traceql("export", "--table", "gaps", in)
			rows, err := csv.NewReader(strings.NewReader(exp)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var want [][]string
			for _, r := range rows[1:] {
				want = append(want, r[1:len(r)-2]) // without the file, the stream (none for a device's gaps) and label
			}
			if len(want) == 0 {
				t.Fatal("no gaps to compare")
			}
			if !slices.EqualFunc(gaps, want, slices.Equal) {
				t.Errorf("gaps track differs from export --table gaps:\n got %q\nwant %q", gaps, want)
			}
			stepRows := strings.Count(mustRun(t, "export", "--table", "steps", in), "\n") - 1
			if steps != stepRows {
				t.Errorf("%d step slices, export --table steps has %d rows", steps, stepRows)
			}
			t.Logf("%d events kept, %d added (%d gaps, %d steps)", len(kept), len(added), len(gaps), steps)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := traceql(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	return out
}

// TestAnnotateRefuses: what annotate cannot add to fails, and leaves no file.
func TestAnnotateRefuses(t *testing.T) {
	dir := t.TempDir()
	noEvents := writeTrace(t, "plain.json", `{"schemaVersion": 1, "other": [1, 2]}`)
	out := filepath.Join(dir, "out.json")
	_, errOut, code := traceql("annotate", noEvents, "-o", out)
	if code == 0 {
		t.Fatalf("annotate of a trace without traceEvents: exit 0")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed annotate left %s", out)
	}
	t.Logf("stderr: %s", errOut)
	if _, _, code := traceql("annotate", sample); code != 2 {
		t.Errorf("annotate without -o: exit %d, want 2", code)
	}
}

// TestAnnotateRealTraces: each real Kineto trace, annotated, summarizes
// byte for byte as the original.
func TestAnnotateRealTraces(t *testing.T) {
	dir := filepath.Join(realTraces(t), "kineto")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	checked := 0
	for _, in := range paths {
		out := filepath.Join(t.TempDir(), filepath.Base(in))
		if _, errOut, code := traceql("annotate", "-q", in, "-o", out); code != 0 {
			t.Errorf("annotate %s: exit %d: %s", in, code, errOut)
			continue
		}
		a := mustRun(t, "summarize", "-q", "-f", "csv", in)
		b := strings.ReplaceAll(mustRun(t, "summarize", "-q", "-f", "csv", out), out, in)
		if a != b {
			t.Errorf("%s: the annotated trace summarizes differently:\n%s\nwant\n%s", in, b, a)
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("no Kineto trace in %s", dir)
	}
	t.Logf("%d real traces annotated", checked)
}

// TestAnnotateNsys: each shared Nsight export, annotated, is a Chrome
// trace that holds every record of the export — kernels, copies,
// memsets, syncs, runtime and driver calls, NVTX ranges, each an event of
// the Trace Event Format on a process and thread that metadata events
// name — plus traceql's tracks, and that traceql reads back to the same
// summary and tables as the export.
func TestAnnotateNsys(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(realTraces(t), "nsys", "*.sqlite"))
	checked := 0
	for i, in := range paths {
		name := "annotated.json.gz"
		if i == 0 {
			name = "annotated.json" // one written plain
		}
		out := filepath.Join(t.TempDir(), name)
		if _, errOut, code := traceql("annotate", "-q", in, "-o", out); code != 0 {
			t.Errorf("annotate %s: exit %d: %s", in, code, errOut)
			continue
		}
		for _, args := range [][]string{{"summarize", "-f", "csv"}, {"export", "--table", "gaps"}, {"export", "--table", "steps"},
			{"export", "--table", "kernels"}, {"export", "--table", "memcpy"}, {"export", "--table", "streams"},
			{"export", "--table", "api"}, {"export", "--table", "ranges"}} {
			// One label for both, or each would carry its own file name's.
			a := mustRun(t, append(append([]string{}, args...), "-q", "--label", "run", in)...)
			b := strings.ReplaceAll(mustRun(t, append(append([]string{}, args...), "-q", "--label", "run", out)...), out, in)
			if a != b {
				t.Errorf("%s: %v of the annotated trace differs:\n%s\nwant\n%s", in, args, b, a)
			}
		}

		tr, err := trace.Options{}.Open(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []addedEvent `json:"traceEvents"`
		}
		d := json.NewDecoder(bytes.NewReader(readJSON(t, out)))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			t.Fatalf("%s: the annotated trace is not JSON: %v", in, err)
		}
		type thread struct{ pid, tid string }
		procs, threads := map[string]bool{}, map[thread]bool{}
		count := map[string]int{}
		var used []thread
		for _, e := range doc.TraceEvents {
			if _, err := e.PID.Int64(); err != nil || e.Name == "" {
				t.Fatalf("%s: event %+v: pid an integer, the name set", in, e)
			}
			if _, err := e.TID.Int64(); err != nil {
				t.Fatalf("%s: event %+v: tid an integer", in, e)
			}
			switch e.Ph {
			case "M":
				key := map[string]string{"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index", "thread_name": "name"}[e.Name]
				if key == "" || e.Args[key] == nil {
					t.Fatalf("%s: metadata event %+v: unknown, or its args lack %q", in, e, key)
				}
				switch e.Name {
				case "process_name":
					procs[e.PID.String()] = true
				case "thread_name":
					threads[thread{e.PID.String(), e.TID.String()}] = true
				}
			case "X":
				if e.TS == nil || e.Dur == nil || usToNS(t, *e.Dur) < 0 {
					t.Fatalf("%s: complete event %+v: needs ts and a dur of 0 or more", in, e)
				}
				usToNS(t, *e.TS)
				used = append(used, thread{e.PID.String(), e.TID.String()})
				count[e.Cat]++
			case "C":
				if e.TS == nil || len(e.Args) == 0 {
					t.Fatalf("%s: counter event %+v: needs ts and args", in, e)
				}
				used = append(used, thread{e.PID.String(), ""})
			default:
				t.Fatalf("%s: event %+v: phase %q", in, e, e.Ph)
			}
		}
		for _, th := range used {
			if !procs[th.pid] || th.tid != "" && !threads[th] {
				t.Fatalf("%s: events on pid %s tid %s, which no metadata event names", in, th.pid, th.tid)
			}
		}
		want := map[string]int{"kernel": len(tr.Kernels), "gpu_memcpy": len(tr.Memcpys), "gpu_memset": len(tr.Memsets),
			"cuda_sync": len(tr.Syncs), "user_annotation": 0, "cpu_op": 0, "cuda_runtime": 0, "cuda_driver": 0}
		for _, c := range tr.APICalls {
			want[map[trace.APIKind]string{trace.Runtime: "cuda_runtime", trace.Driver: "cuda_driver"}[c.Kind]]++
		}
		for _, o := range tr.Ops {
			want[map[trace.OpKind]string{trace.CPUOp: "cpu_op", trace.NVTXRange: "user_annotation", trace.UserAnnotation: "user_annotation"}[o.Kind]]++
		}
		for cat, n := range want {
			if count[cat] != n {
				t.Errorf("%s: %d %s events, the export has %d", in, count[cat], cat, n)
			}
		}
		gaps := strings.Count(mustRun(t, "export", "-q", "--table", "gaps", in), "\n") - 1
		if count[report.AnnotationCategory] < gaps || gaps == 0 {
			t.Errorf("%s: %d traceql slices for %d gaps", in, count[report.AnnotationCategory], gaps)
		}
		t.Logf("%s: %v", filepath.Base(in), count)
		checked++
	}
	if checked == 0 {
		t.Fatal("no Nsight export in ../shared/traces/nsys")
	}
}

// TestAnnotateNsysSharedCorrelation: two processes of an export number
// their correlation ids alike (CUPTI counts from 1 in each); the annotated
// trace, whose ids are one space, still joins each kernel to its own
// process's launch, so its launch numbers and gaps equal the export's.
func TestAnnotateNsysSharedCorrelation(t *testing.T) {
	var spec nsysgen.Spec
	spec.Version = "2026.1.1.204"
	spec.GPUs = []nsysgen.GPU{{ID: 0, Name: "generated GPU", SMs: 132}}
	// Process 100 launches early and its kernels queue; process 200
	// launches late, just before its kernels: mis-joined, the queue
	// delays and the gaps' classes would change.
	for i := int64(0); i < 20; i++ {
		for _, p := range []struct{ pid, call, kernel int64 }{{100, 1000 + 10*i, 5000 + 400*i}, {200, 5190 + 400*i, 5200 + 400*i}} {
			spec.Runtime = append(spec.Runtime, nsysgen.API{Start: p.call, End: p.call + 5, PID: p.pid, TID: p.pid + 1, Correlation: i + 1, Name: "cudaLaunchKernel_v7000"})
			spec.Kernels = append(spec.Kernels, nsysgen.Kernel{Activity: nsysgen.Activity{Start: p.kernel, End: p.kernel + 100, Stream: 7,
				Correlation: i + 1, PID: p.pid}, Name: fmt.Sprintf("k%d", p.pid)})
		}
	}
	in := filepath.Join(t.TempDir(), "two.sqlite")
	if err := nsysgen.Write(in, spec); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "two.json")
	mustRun(t, "annotate", "-q", in, "-o", out)
	// The kernels table would differ in its correlation column: process
	// 200's ids are renumbered.
	for _, args := range [][]string{{"summarize", "-f", "csv"}, {"export", "--table", "gaps"}} {
		a := mustRun(t, append(append([]string{}, args...), "-q", "--label", "run", in)...)
		b := strings.ReplaceAll(mustRun(t, append(append([]string{}, args...), "-q", "--label", "run", out)...), out, in)
		if a != b {
			t.Errorf("%v of the annotated trace differs:\n%s\nwant\n%s", args, b, a)
		}
	}
}
