package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/annotate"
	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/internal/usns"
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
				if c.Cat != annotate.Category {
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
			if len(ann.Traceql.Devices) == 0 || ann.Traceql.Devices[0].Verdict == "" || ann.Traceql.Devices[0].PID != annotate.BasePID {
				t.Errorf("traceql metadata: %+v", ann.Traceql)
			}

			// Every added event as Perfetto reads it, on processes of
			// its own.
			ours := checkPerfetto(t, name, added)
			for _, raw := range kept {
				var e struct{ PID any }
				if err := json.Unmarshal(raw, &e); err != nil {
					t.Fatal(err)
				}
				if f, ok := e.PID.(float64); ok && ours[int64(f)] {
					t.Fatalf("the trace's own event %s is on a traceql process", raw)
				}
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
						// Perfetto shows no process_labels: the bound is in the name.
						var n string
						json.Unmarshal(e.Args["name"], &n)
						for _, d := range ann.Traceql.Devices {
							want := "traceql GPU " + strconv.Itoa(d.Device)
							if d.Bound != "none" {
								want += " (" + d.Bound + "-bound)"
							}
							if d.PID == int(pid) && n != want {
								t.Errorf("process %d named %q, want %q", pid, n, want)
							}
						}
					}
				case "X":
					if e.TS == nil || e.Dur == nil || usns.Parse(t, e.Dur.String()) < 0 {
						t.Fatalf("complete event %+v: needs ts and a dur of 0 or more", e)
					}
					var a map[string]json.Number
					if err := json.Unmarshal(mustJSON(t, e.Args), &a); err != nil {
						t.Fatal(err)
					}
					start := usns.Parse(t, e.TS.String())
					length, _ := cmp.Or(a["dur_ns"], a["time_ns"]).Int64()
					// The dur is the length between the ends as Perfetto
					// reads them, which keeps their order; args hold the
					// exact length.
					end := start + length
					if got, want := perfettoTime(t, *e.TS)+perfettoTime(t, *e.Dur), perfettoTime(t, json.Number(usString(end))); got != want {
						t.Errorf("slice %+v ends at %d ns in Perfetto, not at %d where it ends, %s, is read", e, got, want, usString(end))
					}
					if tid, _ := e.TID.Int64(); tid == 1 {
						gaps = append(gaps, []string{strconv.FormatInt(pid-annotate.BasePID, 10), strconv.FormatInt(start, 10),
							strconv.FormatInt(end, 10), string(a["dur_ns"]), string(a["sync_ns"]),
							string(a["launch_ns"]), string(a["other_ns"]), e.Name})
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
			threads := map[string]bool{} // "pid tid" with a thread_name
			for _, e := range added {
				if e.Ph == "M" && e.Name == "thread_name" {
					threads[e.PID.String()+" "+e.TID.String()] = true
				}
			}
			for _, e := range added {
				if pid, _ := e.PID.Int64(); !named[pid] {
					t.Fatalf("event %+v: its process has no process_name", e)
				}
				if e.Ph == "X" && !threads[e.PID.String()+" "+e.TID.String()] {
					t.Fatalf("slice %+v: its thread has no thread_name", e)
				}
			}

			// The gaps track: export --table gaps, row for row.
			exp, _, _ := traceql("export", "--table", "gaps", in)
			rows := csvRecords(t, exp)
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

// TestAnnotateInputErrors: an input that fails while annotate copies it
// is named in the error, not the output; a trace that starts with a
// UTF-8 byte order mark, which every command reads, is annotated too.
func TestAnnotateInputErrors(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "trunc.json.gz")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.json.gz")
	_, errOut, code := traceql("annotate", "-q", cut, "-o", out)
	last := errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:]
	if code != 1 || !strings.HasPrefix(last, "traceql: "+cut+": ") || strings.Contains(errOut, out) {
		t.Errorf("truncated input: exit %d, stderr %q; want 1, the input named and not the output", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed annotate left %s", out)
	}

	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	bom := filepath.Join(dir, "bom.json")
	if err := os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), plain...), 0o644); err != nil {
		t.Fatal(err)
	}
	annotated := filepath.Join(dir, "bom.annotated.json")
	mustRun(t, "annotate", "-q", bom, "-o", annotated)
	if !json.Valid(readJSON(t, annotated)) {
		t.Errorf("the annotated trace is not JSON")
	}
	want := mustRun(t, "summarize", "-f", "csv", bom)
	got := mustRun(t, "summarize", "-f", "csv", annotated)
	if strings.ReplaceAll(got, "bom.annotated", "bom") != want {
		t.Errorf("the annotated trace summarizes as\n%s\nwant\n%s", got, want)
	}
}

// TestAnnotateOutputNames: -o - writes the annotated trace, as JSON, to
// stdout, as pprof and export do, not to a file named -; a name that is
// neither .json nor .json.gz is a usage error and nothing is written.
func TestAnnotateOutputNames(t *testing.T) {
	in, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	out := mustRun(t, "annotate", "-q", in, "-o", "-")
	if !json.Valid([]byte(out)) || !strings.HasPrefix(out, `{"traceql":`) {
		t.Errorf("annotate -o -: stdout is not the annotated JSON: %.60q", out)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("a file named - was written")
	}
	for _, name := range []string{"p.txt", "p.gz", "p.json.zst", "p"} {
		_, errOut, code := traceql("annotate", "-q", in, "-o", name)
		if code != 2 || errOut != "traceql: -o "+name+": annotate writes a Chrome trace as .json or .json.gz\n" {
			t.Errorf("-o %s: exit %d, %q; want a usage error", name, code, errOut)
		}
		if _, err := os.Stat(name); err == nil {
			t.Errorf("-o %s was written", name)
		}
	}
	mustRun(t, "annotate", "-q", in, "-o", "P.JSON.GZ")
	if b := readJSON(t, "P.JSON.GZ"); !json.Valid(b) {
		t.Error("P.JSON.GZ is not gzipped JSON")
	}
	mustRun(t, "annotate", "-q", in, "-o", os.DevNull)
}

// TestAnnotateRealTraces: each real Kineto trace, annotated, summarizes
// byte for byte as the original, and what annotate added opens in
// Perfetto as meant (checkPerfetto). One of HTA's traces has steps that
// end where the next begins, at 1.7e15 µs, where Perfetto reads times up
// to 250 ns off.
func TestAnnotateRealTraces(t *testing.T) {
	dir := filepath.Join(realTraces(t), "kineto")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	abutting, _ := filepath.Glob(filepath.Join(realTraces(t), "hta", "ns_resolution_trace", "*.json.gz"))
	paths = append(paths, abutting...)
	if len(paths) == 0 {
		t.Fatalf("no Kineto trace in %s", dir)
	}
	for _, in := range paths {
		checkAnnotated(t, in)
	}
	t.Logf("%d real traces annotated", len(paths))
}

// TestAnnotateGPUTraces: the H100 runs of testdata/gpu annotate as the
// shared traces do, the one profiled from its first step (compilation's
// host events, graph capture) among them.
func TestAnnotateGPUTraces(t *testing.T) {
	for _, in := range []string{gpuFile("small", "default", 1), gpuFile("small", "reduce-overhead", 1),
		filepath.Join(gpuDir, "vit-small_reduce-overhead_b1_warmup.pt.trace.json.gz")} {
		checkAnnotated(t, in)
	}
}

// checkAnnotated annotates the Kineto trace in, and checks that the
// output summarizes as in does and that what annotate added opens in
// Perfetto as meant (checkPerfetto).
func checkAnnotated(t *testing.T, in string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(in))
	if _, errOut, code := traceql("annotate", "-q", in, "-o", out); code != 0 {
		t.Errorf("annotate %s: exit %d: %s", in, code, errOut)
		return
	}
	a := mustRun(t, "summarize", "-q", "-f", "csv", in)
	b := strings.ReplaceAll(mustRun(t, "summarize", "-q", "-f", "csv", out), out, in)
	if a != b {
		t.Errorf("%s: the annotated trace summarizes differently:\n%s\nwant\n%s", in, b, a)
	}
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(readJSON(t, out), &doc); err != nil {
		t.Fatal(err)
	}
	var added []addedEvent
	for _, raw := range doc.TraceEvents {
		var c struct{ Cat any }
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if c.Cat != annotate.Category {
			continue // the trace's own: "tid": "stream 7" and the like
		}
		var e addedEvent
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&e); err != nil {
			t.Fatal(err)
		}
		added = append(added, e)
	}
	if len(added) == 0 {
		t.Errorf("%s: nothing added", in)
	}
	checkPerfetto(t, filepath.Base(in), added)
}

// TestAnnotateNsys: each shared Nsight export, annotated, is a Chrome
// trace that holds every record of the export — kernels, copies,
// memsets, syncs, runtime and driver calls, NVTX ranges, each an event of
// the Trace Event Format on a process and thread that metadata events
// name — plus traceql's tracks, that opens in Perfetto as meant
// (checkPerfetto: 2022.1's and 2024.2's syncs start inside a copy on
// their stream and end after it, several exports have syncs on no
// stream), and that traceql reads back to the same summary and tables as
// the export.
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
		checkPerfetto(t, filepath.Base(in), doc.TraceEvents)
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
				if e.TS == nil || e.Dur == nil || usns.Parse(t, e.Dur.String()) < 0 {
					t.Fatalf("%s: complete event %+v: needs ts and a dur of 0 or more", in, e)
				}
				usns.Parse(t, e.TS.String())
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
		if count[annotate.Category] < gaps || gaps == 0 {
			t.Errorf("%s: %d traceql slices for %d gaps", in, count[annotate.Category], gaps)
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

// usString writes ns as decimal µs, as Kineto does.
func usString(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	return sign + strconv.FormatInt(ns/1000, 10) + "." + fmt.Sprintf("%03d", ns%1000)
}

// perfettoTime is the time in ns that Perfetto's JSON importer reads for
// a ts or dur written as n, decimal µs: an integer times 1000, else the
// integer part plus the fraction as a double (StringToDouble in
// src/trace_processor/util/json_parser.h), times 1000 and rounded
// half away from 0 (CoerceToTs in
// src/trace_processor/importers/json/json_trace_tokenizer.cc).
func perfettoTime(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || strings.ContainsAny(s, "eE") {
		t.Fatalf("time %s: not a decimal", n)
	}
	var ns int64
	if frac == "" {
		ns = w * 1000
	} else {
		f, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			t.Fatalf("time %s: not a decimal", n)
		}
		v := float64(w) + float64(f)/math.Pow10(len(frac))
		if v == math.Trunc(v) {
			ns = int64(v) * 1000
		} else {
			ns = int64(math.Round(v * 1000))
		}
	}
	if neg {
		return -ns
	}
	return ns
}

// checkPerfetto checks events against what Perfetto's JSON importer
// (src/trace_processor/importers/json/) needs to show each where it was
// meant: pid and tid integers from 0 to 2^32−1 (a negative or larger one
// becomes 0: CoerceToUint32 in json_trace_tokenizer.cc); the complete
// ("X") slices of a thread nested or disjoint at the times Perfetto
// reads, taken in its order (by ts, longest first: trace_sorter.h), or
// Perfetto moves a slice that partially overlaps one still open to an
// overflow track and reports an error, or drops it (MaybeCloseStack in
// importers/common/slice_tracker.cc); counter ("C") args numbers, each
// its own track (json_trace_parser.cc); metadata ("M") events of the
// kinds it reads, with their arg (process_labels is chrome://tracing's:
// Perfetto skips it), sort indexes within int32. It returns the pids
// used.
func checkPerfetto(t *testing.T, name string, events []addedEvent) map[int64]bool {
	t.Helper()
	type thread struct{ pid, tid int64 }
	type slice struct {
		start, end int64
		e          addedEvent
	}
	pids := map[int64]bool{}
	byThread := map[thread][]slice{}
	for _, e := range events {
		pid, err1 := e.PID.Int64()
		tid, err2 := e.TID.Int64()
		if err1 != nil || err2 != nil || pid < 0 || tid < 0 || pid > math.MaxUint32 || tid > math.MaxUint32 {
			t.Fatalf("%s: event %+v: Perfetto reads a pid or tid that is not an integer from 0 to 2^32-1 as 0", name, e)
		}
		pids[pid] = true
		if tid == 0 && pid != 0 {
			tid = pid // as Perfetto does
		}
		switch e.Ph {
		case "X":
			start := perfettoTime(t, *e.TS)
			dur := perfettoTime(t, *e.Dur)
			byThread[thread{pid, tid}] = append(byThread[thread{pid, tid}], slice{start, start + dur, e})
		case "C":
			for k, v := range e.Args {
				if _, err := strconv.ParseFloat(string(v), 64); err != nil {
					t.Errorf("%s: counter %s = %s: Perfetto takes numbers", name, k, v)
				}
			}
		case "M":
			key := map[string]string{"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index",
				"thread_sort_index": "sort_index", "process_labels": "labels"}[e.Name]
			if key == "" || e.Args[key] == nil {
				t.Errorf("%s: metadata event %+v: unknown, or its args lack %q", name, e, key)
			}
			if key == "sort_index" {
				if v, err := strconv.ParseInt(string(e.Args[key]), 10, 32); err != nil {
					t.Errorf("%s: %s %d: Perfetto takes an int32", name, e.Name, v)
				}
			}
		}
	}
	for th, ss := range byThread {
		slices.SortStableFunc(ss, func(a, b slice) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end-b.start, a.end-a.start))
		})
		var open []slice
		for _, s := range ss {
			for len(open) > 0 {
				top := open[len(open)-1]
				if top.end < s.start || top.end == s.start && !(top.start == top.end && s.start == s.end) {
					open = open[:len(open)-1]
					continue
				}
				break
			}
			if len(open) > 0 && s.end > open[len(open)-1].end {
				t.Errorf("%s: pid %d tid %d: as Perfetto reads them, slice %+v [%d, %d] partially overlaps %+v [%d, %d]",
					name, th.pid, th.tid, s.e, s.start, s.end, open[len(open)-1].e, open[len(open)-1].start, open[len(open)-1].end)
				continue
			}
			open = append(open, s)
		}
	}
	return pids
}
