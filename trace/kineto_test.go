package trace

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
)

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

const events = `[
 {"ph":"X","cat":"Kernel","name":"k0","pid":0,"tid":"stream 7","ts":1623142623460111,"dur":5,"args":{"device":0,"stream":7,"correlation":11,"external id":3,"registers per thread":38,"shared memory":1024,"grid":[50,1,1],"block":[256,2,1]}},
 {"ph":"X","cat":"kernel","name":"k1","pid":1,"tid":20,"ts":1623142623460112.5,"dur":0.25,"args":{"correlation":12,"graph id":4,"graph node id":9}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":1623142623460100,"dur":2,"args":{"device":0,"stream":7,"bytes":4096}},
 {"ph":"X","cat":"Memcpy","name":"Memcpy DtoH (Device -> Host)","pid":0,"tid":7,"ts":1623142623460200,"dur":2,"args":{"bytes":8}},
 {"ph":"X","cat":"GPU_MEMSET","name":"Memset (Device)","pid":0,"tid":7,"ts":1623142623460300,"dur":1,"args":{"bytes":64}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":"25738","tid":"25739","ts":1623142623460050,"dur":3,"args":{"correlation":11,"External id":3}},
 {"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":25738,"tid":25739,"ts":1623142623460060,"dur":3,"args":{"correlation":12}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":25738,"tid":25739,"ts":1623142623460040,"dur":30,"args":{"External id":3}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":25738,"tid":25739,"ts":1623142623460000,"dur":400},
 {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#2","pid":0,"tid":7,"ts":1623142623460099,"dur":300},
 {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":1623142623460350,"dur":4,"args":{"device":0,"stream":7}},
 {"ph":"X","cat":"python_function","name":"<built-in>","pid":25738,"tid":25739,"ts":1,"dur":1},
 {"ph":"i","name":"[memory]","pid":25738,"tid":25739,"ts":1623142623460121,"args":{"Bytes":4}},
 {"ph":"f","id":34417,"pid":0,"tid":"stream 7","ts":1623142623529248,"cat":"async","name":"launch","bp":"e"},
 {"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":1623142624633484}
]`

const deviceProps = `"deviceProperties":[{"id":0,"name":"Tesla V100","totalGlobalMem":34084028416,"computeMajor":7,"computeMinor":0,"numSms":80}]`

func TestKinetoShapes(t *testing.T) {
	containers := map[string]string{
		"object, metadata first": `{"schemaVersion":1,` + deviceProps + `,"traceEvents":` + events + `}`,
		"object, metadata after": `{"schemaVersion":1,"traceEvents":` + events + `,` + deviceProps + `,"distributedInfo":{"rank":3,"world_size":8},"baseTimeNanoseconds":1751410836000000000,"traceName":"x"}`,
		"bare array":             events,
		"bare array, no ]":       strings.TrimSuffix(strings.TrimSpace(events), "]"),
	}
	for name, text := range containers {
		for _, zip := range []bool{false, true} {
			data := []byte(text)
			fname := "t.json"
			if zip {
				data, fname = gz(data), "no-gz-suffix.json"
				name += ", gzip"
			}
			t.Run(name, func(t *testing.T) {
				tr, err := Open(context.Background(), writeTemp(t, fname, data))
				if err != nil {
					t.Fatal(err)
				}
				checkEventsFixture(t, tr, strings.HasPrefix(name, "object"))
				if strings.Contains(name, "after") && (tr.Meta.Rank != 3 || tr.Meta.WorldSize != 8 || tr.Meta.BaseTimeNS != 1751410836000000000) {
					t.Errorf("meta after traceEvents not read: %+v", tr.Meta)
				}
			})
		}
	}
}

func checkEventsFixture(t *testing.T, tr *Trace, props bool) {
	t.Helper()
	if len(tr.Kernels) != 2 || len(tr.Memcpys) != 2 || len(tr.Memsets) != 1 || len(tr.APICalls) != 2 || len(tr.Ops) != 3 || len(tr.Syncs) != 1 {
		t.Fatalf("counts: %d kernels, %d memcpys, %d memsets, %d calls, %d ops, %d syncs",
			len(tr.Kernels), len(tr.Memcpys), len(tr.Memsets), len(tr.APICalls), len(tr.Ops), len(tr.Syncs))
	}
	k0 := tr.Kernels[0]
	want := Kernel{Activity: Activity{Device: 0, Stream: 7, Start: 1623142623460111000, End: 1623142623460116000, Correlation: 11},
		Name: "k0", ExternalID: 3, Grid: [3]int32{50, 1, 1}, Block: [3]int32{256, 2, 1}, Registers: 38, SharedMem: 1024}
	if k0 != want {
		t.Errorf("kernel 0:\n got %+v\nwant %+v", k0, want)
	}
	k1 := tr.Kernels[1]
	if k1.Device != 1 || k1.Stream != 20 || k1.Start != 1623142623460112500 || k1.Dur() != 250 || k1.GraphID != 4 || k1.GraphNode != 9 {
		t.Errorf("kernel 1 (device from pid, stream from tid, fractional µs): %+v", k1)
	}
	if m := tr.Memcpys[0]; m.Kind != HtoD || m.Src != Pinned || m.Dst != DeviceMem || m.Bytes != 4096 {
		t.Errorf("memcpy 0: %+v", m)
	}
	if m := tr.Memcpys[1]; m.Kind != DtoH || m.Dst != HostMem || m.Bytes != 8 {
		t.Errorf("memcpy 1 (ROCm host): %+v", m)
	}
	if m := tr.Memsets[0]; m.Mem != DeviceMem || m.Bytes != 64 {
		t.Errorf("memset: %+v", m)
	}
	if c := tr.APICalls[0]; c.Name != "cudaLaunchKernel" || c.Kind != Runtime || c.PID != 25738 || c.TID != 25739 || c.Correlation != 11 || c.ExternalID != 3 {
		t.Errorf("runtime call (string pid/tid): %+v", c)
	}
	if c := tr.APICalls[1]; c.Kind != Driver {
		t.Errorf("driver call: %+v", c)
	}
	kinds := map[OpKind]string{}
	for _, o := range tr.Ops {
		kinds[o.Kind] = o.Name
	}
	if kinds[CPUOp] != "aten::mm" || kinds[UserAnnotation] != "ProfilerStep#2" || kinds[GPUAnnotation] != "ProfilerStep#2" {
		t.Errorf("ops: %+v", tr.Ops)
	}
	if s := tr.Syncs[0]; s.Kind != "Stream Sync" || s.Stream != 7 {
		t.Errorf("sync: %+v", s)
	}
	if props {
		if d, ok := tr.Device(0); !ok || d.Name != "Tesla V100" || d.SMs != 80 || d.ComputeMajor != 7 {
			t.Errorf("device 0: %+v", d)
		}
	}
	if len(tr.Warnings) != 0 {
		t.Errorf("warnings: %v", tr.Warnings)
	}
}

func TestKinetoWarnings(t *testing.T) {
	text := `{"traceEvents":[
 {"ph":"X","cat":"kernel","name":"ok","pid":0,"tid":7,"ts":10,"dur":1},
 {"ph":"X","cat":"kernel","name":"nodur","pid":0,"tid":7,"ts":10},
 {"ph":"X","cat":"kernel","name":"nodur","pid":0,"tid":7,"ts":11},
 {"ph":"X","cat":"kernel","name":"neg","pid":0,"tid":7,"ts":10,"dur":-1},
 {"ph":"X","cat":"kernel","name":"big","pid":0,"tid":7,"ts":1e400,"dur":1},
 {"ph":"X","cat":"kernel","name":"str","pid":0,"tid":7,"ts":"12.5","dur":"1"},
 {"ph":"B","cat":"kernel","name":"begin","pid":0,"tid":7,"ts":10},
 {"ph":"X","cat":"kernel","name":"nodev","pid":"GPU","tid":7,"ts":10,"dur":1}
]}`
	p := writeTemp(t, "w.json", []byte(text))
	tr, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Kernels) != 2 || tr.Kernels[1].Start != 12500 {
		t.Errorf("kept %d kernels: %+v", len(tr.Kernels), tr.Kernels)
	}
	got := strings.Join(tr.Warnings, "\n")
	for _, w := range []string{`2 kernel events without "ts" or "dur" skipped`, "1 kernel events with negative dur skipped",
		"1 kernel events with a bad ts skipped", `1 kernel events with ph "B"`, "1 kernel events without a numeric device skipped"} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings lack %q:\n%s", w, got)
		}
	}
	if _, err := (Options{Strict: true}).Open(context.Background(), p); err == nil || !strings.Contains(err.Error(), "--strict") {
		t.Errorf("--strict: %v", err)
	}
}

// TestLeanHost: a read for Options.Needs drops a GPU trace's cpu_ops and polling
// API calls, whether cat or name comes first, but for its profiler steps,
// the ops the findings read (isFindingOp: DataLoader and optimizer ranges,
// .item() and the like),
// however escaped, torch.compile's ops, and the ops named Needs.Op;
// a trace without GPU activity keeps them all.
func TestLeanHost(t *testing.T) {
	const host = `
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":10,"dur":5,"args":{"Input Dims":[[2,3]]}},
 {"ph":"X","name":"aten::add","cat":"cpu_op","pid":1,"tid":2,"ts":20,"dur":5},
 {"ph":"X","cat":"Operator","name":"ProfilerStep#1","pid":1,"tid":2,"ts":0,"dur":30},
 {"ph":"X","name":"Profiler\u0053tep#2","cat":"cpu_op","pid":1,"tid":2,"ts":30,"dur":30},
 {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":2,"ts":31,"dur":3},
 {"ph":"X","cat":"cpu_op","name":"Torch-Compiled Region: 0/1","pid":1,"tid":2,"ts":40,"dur":9},
 {"ph":"X","name":"TorchDynamo Cache Lookup","cat":"cpu_op","pid":1,"tid":2,"ts":39,"dur":1},
 {"ph":"X","cat":"cpu_op","name":"CompiledFunction","pid":1,"tid":2,"ts":41,"dur":7},
 {"ph":"X","cat":"cpu_op","name":"CompiledFunctionBackward","pid":1,"tid":3,"ts":50,"dur":7},
 {"ph":"X","cat":"cpu_op","name":"Torch-Compiled","pid":1,"tid":2,"ts":42,"dur":1},
 {"ph":"X","cat":"cuda_runtime","name":"cudaEventQuery","pid":1,"tid":2,"ts":11,"dur":1,"args":{"correlation":7}},
 {"ph":"X","name":"hipStreamQuery","cat":"cuda_runtime","pid":1,"tid":2,"ts":12,"dur":1,"args":{"correlation":8}},
 {"ph":"X","cat":"cuda_driver","name":"cuEventQuery","pid":1,"tid":2,"ts":13,"dur":1},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":14,"dur":1,"args":{"correlation":9}}`
	const kernel = `,
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":16,"dur":1,"args":{"device":0,"stream":7,"correlation":9}}`
	const (
		compiled    = " TorchDynamo Cache Lookup Torch-Compiled Region: 0/1 CompiledFunction CompiledFunctionBackward"
		allCompiled = " TorchDynamo Cache Lookup Torch-Compiled Region: 0/1 CompiledFunction Torch-Compiled CompiledFunctionBackward"
	)
	names := func(tr *Trace) string {
		var out []string
		for _, o := range tr.Ops {
			out = append(out, o.Name)
		}
		for _, c := range tr.APICalls {
			out = append(out, c.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		name, text string
		stacks     bool
		keep       string
		want       string
	}{
		{"GPU trace", host + kernel, false, "", "ProfilerStep#1 ProfilerStep#2 fwd" + compiled + " cudaLaunchKernel"},
		// pprof's stacks keep the ops, not the polls.
		{"with stacks", host + kernel, true, "", "ProfilerStep#1 aten::mm aten::add ProfilerStep#2 fwd" + allCompiled + " cudaLaunchKernel"},
		// --range keeps the ops it names.
		{"keep an op", host + kernel, false, "aten::add", "ProfilerStep#1 aten::add ProfilerStep#2 fwd" + compiled + " cudaLaunchKernel"},
		{"no GPU activity", host, false, "", "ProfilerStep#1 aten::mm aten::add ProfilerStep#2 fwd" + allCompiled + " cudaEventQuery hipStreamQuery cuEventQuery cudaLaunchKernel"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, data := range [][]byte{[]byte("[" + tt.text + "]"), gz([]byte("[" + tt.text + "]"))} {
				tr, err := Options{Needs: &Needs{Stacks: tt.stacks, Op: tt.keep}}.Open(context.Background(), writeTemp(t, "t.json", data))
				if err != nil {
					t.Fatal(err)
				}
				if got := names(tr); got != tt.want {
					t.Errorf("ops and calls %q, want %q", got, tt.want)
				}
			}
		})
	}
	t.Run("shared", func(t *testing.T) {
		dir := shared.Traces(t)
		var lean, reread int
		for _, sub := range []string{"kineto", "hta"} {
			filepath.WalkDir(filepath.Join(dir, sub), func(p string, e os.DirEntry, err error) error {
				if err == nil && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")) {
					checkLeanHost(t, p, true)
					switch full, got := checkLeanHost(t, p, false); {
					case len(got.Ops) < len(full.Ops) && len(got.APICalls) < len(full.APICalls):
						lean++
					case !full.HasGPUActivity() && len(full.Ops) > 0:
						reread++
					}
				}
				return nil
			})
		}
		if lean == 0 || reread == 0 {
			t.Errorf("ops and calls skipped in %d traces, read again in %d: want some of each", lean, reread)
		}
	})
}

// checkLeanHost reads the trace at path with and without
// Options.Needs, with or without Needs.Stacks: the records
// must be the same but for the polling calls, and the cpu_ops unless
// stacks are kept, skipped in a GPU trace.
func checkLeanHost(t *testing.T, path string, stacks bool) (full, lean *Trace) {
	t.Helper()
	full, err := Options{Needs: &Needs{Stacks: stacks, Ops: true, Polls: true}}.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	lean, err = Options{Needs: &Needs{Stacks: stacks}}.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("%s for Needs: %v", path, err)
	}
	want := *full
	if full.HasGPUActivity() {
		want.Ops, want.APICalls = nil, nil
		for _, o := range full.Ops {
			if stacks || o.Kind != CPUOp || strings.HasPrefix(o.Name, StepPrefix) || isCompileOp(o.Name) || isFindingOp(o.Name) {
				want.Ops = append(want.Ops, o)
			}
		}
		for _, c := range full.APICalls {
			if !isPoll(c.Name) {
				want.APICalls = append(want.APICalls, c)
			}
		}
	}
	sameTrace(t, path+" for Needs", &want, lean, false)
	return full, lean
}

func TestKinetoErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"not an object event", `{"traceEvents":[1]}`, "byte 16: event #0 is not a JSON object"},
		{"bad event", `{"traceEvents":[{"ph":"X" "cat":"kernel"}]}`, "byte 26: event #0: invalid JSON"},
		{"missing comma", `{"traceEvents":[{"a":1} {"b":2}]}`, "expected ',' or ']' after event #0"},
		{"garbage after", `{"traceEvents":[]} x`, `unexpected 'x' after the end`},
		{"bad key", `{1:2}`, "expected a member name"},
		{"truncated metadata", `{"schemaVersion": 1, "deviceProp`, "unexpected end of input"},
		{"bad gzip", "\x1f\x8b\x08\x00garbage", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, "e.json", []byte(tt.text))
			_, err := Open(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v; want it to name the file and say %q", err, tt.want)
			}
		})
	}
}

// FuzzKineto: the reader never panics, and what it accepts is valid.
func FuzzKineto(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":1,` + deviceProps + `,"traceEvents":` + events + `}`))
	f.Add([]byte(events))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","ts":"1","dur":1e2,"pid":0,"tid":"stream x"}`))
	f.Add(gz([]byte(events)))
	if b, err := os.ReadFile("../testdata/sample.pt.trace.json.gz"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(o Options) (*Trace, error) {
			return o.read(context.Background(), "fuzz.json", bytes.NewReader(data), int64(len(data)))
		}
		for _, stacks := range []bool{false, true} {
			tr, err := read(Options{Needs: &Needs{Stacks: stacks, Ops: true, Polls: true}})
			if err != nil {
				continue
			}
			if err := tr.Validate(); err != nil {
				t.Fatalf("stacks %v: accepted trace fails Validate: %v", stacks, err)
			}
			// A lean read reads less and checks less: it accepts what a
			// full read accepts.
			lean, err := read(Options{Needs: &Needs{Stacks: stacks}})
			if err == errNotLean {
				continue
			}
			if err != nil {
				t.Fatalf("stacks %v: accepted in full, but not for Needs: %v", stacks, err)
			}
			if err := lean.Validate(); err != nil {
				t.Fatalf("stacks %v: accepted trace fails Validate for Needs: %v", stacks, err)
			}
		}
	})
}

// TestNeedsSelect: a read for Options.Needs leaves a GPU trace's cpu_ops
// out, unless the part Options.Select selects has no GPU activity: that
// part is summarized by its host side, so the file is read again with
// every host event, and selected again.
func TestNeedsSelect(t *testing.T) {
	path := writeTemp(t, "t.json", []byte(`{"traceEvents":[
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":500,"dur":5},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamQuery","pid":1,"tid":2,"ts":520,"dur":1}
]}`))
	selects := 0
	window := func(start, end int64) func(*Trace) (*Trace, error) {
		return func(tr *Trace) (*Trace, error) {
			selects++
			return tr.Clip(Window{Start: start, End: end, Label: "w"}), nil
		}
	}
	for _, tt := range []struct {
		name          string
		select_       func(*Trace) (*Trace, error)
		ops, calls    int
		wantSelects   int
		wantGPUActive bool
	}{
		{"no selection", nil, 0, 0, 0, true},
		{"a window with GPU activity", window(0, 200_000), 0, 0, 1, true},
		{"a window without", window(400_000, 600_000), 1, 1, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			selects = 0
			tr, err := Options{Needs: &Needs{}, Select: tt.select_}.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Ops) != tt.ops || len(tr.APICalls) != tt.calls || selects != tt.wantSelects || tr.HasGPUActivity() != tt.wantGPUActive {
				t.Errorf("%d ops, %d API calls, %d selections, GPU activity %v; want %d, %d, %d, %v", len(tr.Ops), len(tr.APICalls),
					selects, tr.HasGPUActivity(), tt.ops, tt.calls, tt.wantSelects, tt.wantGPUActive)
			}
		})
	}
}
