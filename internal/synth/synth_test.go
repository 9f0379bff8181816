package synth

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests check each Truth against a brute-force reading of the written
// JSON that shares no code with the generator: encoding/json with
// json.Number, exact decimal µs → ns conversion, and per-ns bitmaps for
// busy time and gaps.

var testConfigs = []struct {
	name string
	cfg  Config
}{
	{"modern/object", Config{Seed: 1, Devices: 2, Streams: 3, Steps: 3, KernelsPerStep: 24, GraphLaunches: 2, PythonEvents: 2}},
	{"modern/object-after", Config{Seed: 2, Devices: 1, Streams: 4, Steps: 2, KernelsPerStep: 40, GraphLaunches: 1, PythonEvents: 1, Container: ObjectAfter}},
	{"modern/array", Config{Seed: 3, Devices: 3, Streams: 2, Steps: 2, KernelsPerStep: 16, Container: Array}},
	{"modern/one-stream", Config{Seed: 4, Devices: 1, Streams: 1, Steps: 3, KernelsPerStep: 30, GraphLaunches: 2, PythonEvents: 3}},
	{"2021/object", Config{Seed: 5, Devices: 2, Streams: 3, Steps: 3, KernelsPerStep: 24, GraphLaunches: 1, PythonEvents: 2, Era: Era2021}},
	{"2021/object-after", Config{Seed: 6, Devices: 1, Streams: 2, Steps: 2, KernelsPerStep: 20, Era: Era2021, Container: ObjectAfter}},
	{"2021/array", Config{Seed: 7, Devices: 2, Streams: 1, Steps: 2, KernelsPerStep: 20, GraphLaunches: 1, Era: Era2021, Container: Array}},
	{"defaults", Config{}},
}

// TestTruth checks the truth of every test configuration, and that
// together they exercise the shapes readers and metrics must get right.
func TestTruth(t *testing.T) {
	var cov coverage
	for _, tt := range testConfigs {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			truth, err := Write(&buf, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _ := tt.cfg.normalize()
			check(t, cfg, buf.Bytes(), truth, &cov)
			for _, d := range truth.Devices {
				cov.touches += d.Touches
				cov.copyOnly = cov.copyOnly || d.KernelBusyNS < d.BusyNS
			}
		})
	}
	t.Logf("coverage %+v", cov)
	if cov.touches == 0 || cov.zeroKernels == 0 || cov.gaps == 0 || !cov.copyOnly || !cov.touching || !cov.partial {
		t.Errorf("coverage %+v: want every shape", cov)
	}
}

// TestSeeds checks the truth of many small random configurations.
func TestSeeds(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 10
	}
	var cov coverage
	for seed := range int64(n) {
		cfg := Config{
			Seed: 1000 + seed, Devices: 1 + int(seed%3), Streams: 1 + int(seed*7%5), Steps: 1 + int(seed%2),
			KernelsPerStep: 1 + int(seed*13%29), GraphLaunches: int(seed % 3), PythonEvents: int(seed % 4),
			Era: Era(seed % 2), Container: Container(seed / 2 % 3),
		}
		var buf bytes.Buffer
		truth, err := Write(&buf, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) { check(t, cfg, buf.Bytes(), truth, &cov) })
	}
	t.Logf("coverage %+v", cov)
}

// coverage records which shapes the test traces contain.
type coverage struct {
	touches     int  // clusters joined with a zero gap
	zeroKernels int  // kernels with dur 0
	gaps        int  // idle gaps
	copyOnly    bool // busy time with no kernel
	touching    bool // two kernels on one stream, end to start
	partial     bool // two kernels on different streams overlapping partially
}

func TestDeterministic(t *testing.T) {
	for _, tt := range testConfigs[:5] {
		t.Run(tt.name, func(t *testing.T) {
			var a, b bytes.Buffer
			ta, err := Write(&a, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := Write(&b, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("same Config, different bytes")
			}
			ja, _ := json.Marshal(ta)
			jb, _ := json.Marshal(tb)
			if !bytes.Equal(ja, jb) {
				t.Fatal("same Config, different Truth")
			}
			other := tt.cfg
			other.Seed += 100
			var c bytes.Buffer
			if _, err := Write(&c, other); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(a.Bytes(), c.Bytes()) {
				t.Fatal("different seeds, same bytes")
			}
		})
	}
}

// sampleConfig is what testdata/sample.pt.trace.json.gz at the module root
// was written with:
//
//	go run ./internal/cmd/tracegen -o testdata/sample.pt.trace.json.gz -truth testdata/sample.truth.json \
//		-seed 1 -devices 2 -streams 3 -steps 3 -kernels 24 -graphs 2 -python 2
var sampleConfig = Config{Seed: 1, Devices: 2, Streams: 3, Steps: 3, KernelsPerStep: 24, GraphLaunches: 2, PythonEvents: 2}

// TestSample checks that the committed sample and its truth are what the
// generator writes now; regenerate both with the command above when the
// generator changes on purpose.
func TestSample(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata")
	f, err := os.Open(filepath.Join(dir, "sample.pt.trace.json.gz"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var gotTruth Truth
	raw, err := os.ReadFile(filepath.Join(dir, "sample.truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &gotTruth); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	truth, err := Write(&want, sampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("testdata/sample.pt.trace.json.gz differs from what the generator writes: regenerate it")
	}
	gotTruth.FileBytes = 0 // depends on the gzip implementation
	gj, _ := json.Marshal(gotTruth)
	wj, _ := json.Marshal(truth)
	if !bytes.Equal(gj, wj) {
		t.Error("testdata/sample.truth.json differs from the generator's truth: regenerate it")
	}
}

// TestLayout checks the order of the events: Kineto's by default, where
// every CPU-section event comes before the first GPU-section event, and
// mixed with Interleave.
func TestLayout(t *testing.T) {
	for _, c := range testConfigs {
		for _, interleave := range []bool{false, true} {
			cfg := c.cfg
			cfg.Interleave = interleave
			var buf bytes.Buffer
			truth, err := Write(&buf, cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, events := decode(t, buf.Bytes(), cfg.Container)
			if len(events) != truth.Events {
				t.Errorf("%s: %d events, truth says %d", c.name, len(events), truth.Events)
			}
			lastCPU, firstGPU := -1, len(events)
			for i, e := range events {
				switch cat, _ := e["cat"].(string); {
				case cat == "cpu_op" || cat == "user_annotation" || cat == "python_function" || cat == "Operator" ||
					e["name"] == "[memory]":
					lastCPU = i
				case cat == "kernel" || cat == "Kernel" || cat == "cuda_runtime" || cat == "Runtime" || cat == "ac2g" || cat == "async":
					firstGPU = min(firstGPU, i)
				}
			}
			if grouped := lastCPU < firstGPU; grouped == interleave {
				t.Errorf("%s, Interleave %v: last CPU-section event #%d, first GPU-section event #%d", c.name, interleave, lastCPU, firstGPU)
			}
		}
	}
}

func TestTargetBytes(t *testing.T) {
	cfg := Config{Seed: 9, Devices: 2, Streams: 2, Steps: 1, KernelsPerStep: 8, GraphLaunches: 1, PythonEvents: 4, TargetBytes: 3 << 20}
	var buf bytes.Buffer
	truth, err := Write(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if truth.Bytes < cfg.TargetBytes || truth.Bytes != int64(buf.Len()) {
		t.Errorf("Bytes = %d, written %d, want ≥ %d", truth.Bytes, buf.Len(), cfg.TargetBytes)
	}
	if len(truth.Steps) < 2 {
		t.Errorf("%d steps: TargetBytes added none", len(truth.Steps))
	}
	if !json.Valid(buf.Bytes()) {
		t.Fatal("invalid JSON")
	}
}

func TestWriteFileGzip(t *testing.T) {
	cfg := testConfigs[0].cfg
	var want bytes.Buffer
	if _, err := Write(&want, cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, gz := range []bool{true, false} {
		path := filepath.Join(dir, fmt.Sprintf("t%v.json", gz))
		truth, err := WriteFile(path, cfg, gz)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if truth.FileBytes != int64(len(data)) {
			t.Errorf("gzip %v: FileBytes = %d, file has %d", gz, truth.FileBytes, len(data))
		}
		if gz {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(data, want.Bytes()) {
			t.Errorf("gzip %v: file differs from Write's output", gz)
		}
	}
}

func TestWriteFileErrorLeavesNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if _, err := WriteFile(path, Config{Streams: 33}, false); err == nil {
		t.Fatal("Streams 33: no error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after the error, %s: %v; want no file", path, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Devices: -1}, {Devices: 65}, {Streams: 33}, {Steps: -2}, {KernelsPerStep: -1},
		{GraphLaunches: -1}, {PythonEvents: -1}, {TargetBytes: -1}, {Era: 7}, {Container: 9},
		{Rank: -1}, {Rank: 1}, {Rank: 8, WorldSize: 8}, {WorldSize: -2},
	} {
		if _, err := Write(io.Discard, cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestParse(t *testing.T) {
	for _, e := range []Era{Modern, Era2021} {
		if got, err := ParseEra(e.String()); err != nil || got != e {
			t.Errorf("ParseEra(%q) = %v, %v", e, got, err)
		}
	}
	for _, c := range []Container{Object, ObjectAfter, Array} {
		if got, err := ParseContainer(c.String()); err != nil || got != c {
			t.Errorf("ParseContainer(%q) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseEra("1999"); err == nil {
		t.Error("ParseEra(1999): no error")
	}
	if _, err := ParseContainer("tree"); err == nil {
		t.Error("ParseContainer(tree): no error")
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, era := range []Era{Modern, Era2021} {
		b.Run(era.String(), func(b *testing.B) {
			cfg := Config{Seed: 1, Devices: 2, Streams: 3, KernelsPerStep: 64, GraphLaunches: 2, PythonEvents: 8, Era: era, TargetBytes: 64 << 20}
			var truth Truth
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if truth, err = Write(io.Discard, cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(truth.Bytes)
			b.ReportMetric(float64(truth.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// ---- the independent checker ----------------------------------------------

type event = map[string]any

var (
	tsModern = regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`)
	tsOld    = regexp.MustCompile(`^[0-9]+$`)
)

// ns converts a "ts"/"dur" number to ns exactly, checking the era's form.
func ns(t *testing.T, v any, modern bool) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("time %v (%T) is not a number", v, v)
	}
	s := string(n)
	if modern && !tsModern.MatchString(s) || !modern && !tsOld.MatchString(s) {
		t.Fatalf("time %q: wrong form for the era", s)
	}
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	f := int64(0)
	if frac != "" {
		if f, err = strconv.ParseInt(frac, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	return w*1000 + f
}

func num(t *testing.T, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func args(e event) map[string]any {
	a, _ := e["args"].(map[string]any)
	return a
}

type gpuEv struct {
	kind       string // kernel, memcpy, memset
	name       string
	device     int
	stream     int64
	start, end int64
	corr       int64
	ext        int64 // 0: none
	bytes      int64
}

type cpuEv struct {
	cat, name  string
	tid        string
	start, end int64
	ext        int64
}

func decode(t *testing.T, data []byte, c Container) (top map[string]any, events []event) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if c == Array {
		if err := d.Decode(&events); err != nil {
			t.Fatal(err)
		}
	} else {
		var obj struct {
			TraceEvents []event `json:"traceEvents"`
		}
		td := json.NewDecoder(bytes.NewReader(data))
		td.UseNumber()
		if err := td.Decode(&top); err != nil {
			t.Fatal(err)
		}
		if err := d.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		events = obj.TraceEvents
	}
	if _, err := d.Token(); err != io.EOF {
		t.Fatalf("data after the JSON value: %v", err)
	}
	return top, events
}

func check(t *testing.T, cfg Config, data []byte, truth Truth, cov *coverage) {
	modern := cfg.Era == Modern
	top, events := decode(t, data, cfg.Container)
	if truth.Bytes != int64(len(data)) || truth.Events != len(events) {
		t.Errorf("Bytes, Events = %d, %d; the trace has %d, %d", truth.Bytes, truth.Events, len(data), len(events))
	}
	if last := events[len(events)-1]; last["name"] != "Record Window End" || ns(t, last["ts"], modern) != truth.TraceEndNS {
		t.Errorf("last event %v, want Record Window End at %d", last, truth.TraceEndNS)
	}
	checkTop(t, cfg, data, top, truth)

	catKind := map[string]string{"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
	apiCat := map[string]bool{"cuda_runtime": true, "cuda_driver": true}
	opCat, stepCat := "cpu_op", "user_annotation"
	if !modern {
		catKind = map[string]string{"Kernel": "kernel", "Memcpy": "memcpy", "Memset": "memset"}
		apiCat = map[string]bool{"Runtime": true}
		opCat, stepCat = "Operator", "Operator"
	}
	extKey := "External id"
	if !modern {
		extKey = "external id"
	}

	var gpu []gpuEv
	var cpu []cpuEv
	apis := map[int64]cpuEv{}
	opsByExt := map[int64]cpuEv{}
	var (
		apiCalls, driverCalls, kernelLaunches, graphLaunches, syncCalls int
		cpuOps, pyFuncs, memEvents                                      int
	)
	flowS, flowF := map[int64]int64{}, map[string]bool{}
	type stepEv struct{ start, end int64 }
	cpuSteps := map[string]stepEv{}
	gpuSteps := map[string]stepEv{} // key name/device
	for _, e := range events {
		cat, _ := e["cat"].(string)
		name, _ := e["name"].(string)
		ph, _ := e["ph"].(string)
		a := args(e)
		switch {
		case ph == "X" && catKind[cat] != "":
			g := gpuEv{kind: catKind[cat], name: name, device: int(num(t, a["device"])), stream: num(t, a["stream"]), corr: num(t, a["correlation"])}
			g.start = ns(t, e["ts"], modern)
			g.end = g.start + ns(t, e["dur"], modern)
			if v, ok := a[extKey]; ok {
				g.ext = num(t, v)
			}
			if g.kind != "kernel" {
				g.bytes = num(t, a["bytes"])
			}
			if num(t, e["pid"]) != int64(g.device) {
				t.Fatalf("GPU event pid %v, device %d", e["pid"], g.device)
			}
			wantTid := any(json.Number(strconv.FormatInt(g.stream, 10)))
			if !modern {
				wantTid = fmt.Sprintf("stream %d", g.stream)
			}
			if e["tid"] != wantTid {
				t.Fatalf("GPU event tid %#v, want %#v", e["tid"], wantTid)
			}
			gpu = append(gpu, g)
		case ph == "X" && (apiCat[cat] || cat == opCat || cat == "python_function" || cat == stepCat):
			c := cpuEv{cat: cat, name: name, tid: fmt.Sprint(e["tid"])}
			c.start = ns(t, e["ts"], modern)
			c.end = c.start + ns(t, e["dur"], modern)
			key := extKey
			if cat == opCat || cat == stepCat {
				key = "External id"
			}
			if v, ok := a[key]; ok {
				c.ext = num(t, v)
			}
			cpu = append(cpu, c)
			switch {
			case strings.HasPrefix(name, "ProfilerStep#"):
				cpuSteps[name] = stepEv{c.start, c.end}
			case apiCat[cat]:
				apiCalls++
				if cat == "cuda_driver" {
					driverCalls++
				}
				switch name {
				case "cudaLaunchKernel", "cuLaunchKernel":
					kernelLaunches++
				case "cudaGraphLaunch":
					graphLaunches++
				case "cudaStreamSynchronize", "cudaDeviceSynchronize":
					syncCalls++
				}
				apis[num(t, a["correlation"])] = c
			case cat == opCat:
				cpuOps++
				opsByExt[c.ext] = c
			case cat == "python_function":
				pyFuncs++
			}
		case ph == "X" && cat == "gpu_user_annotation":
			start := ns(t, e["ts"], modern)
			gpuSteps[fmt.Sprintf("%s/%d", name, num(t, e["pid"]))] = stepEv{start, start + ns(t, e["dur"], modern)}
		case ph == "i" && name == "[memory]":
			memEvents++
		case ph == "s":
			flowS[num(t, e["id"])] = ns(t, e["ts"], modern)
		case ph == "f":
			flowF[fmt.Sprintf("%d/%v/%v/%d", num(t, e["id"]), e["pid"], e["tid"], ns(t, e["ts"], modern))] = true
		}
		if ph == "s" || ph == "f" {
			wantCat, wantName := "ac2g", "ac2g"
			if !modern {
				wantCat, wantName = "async", "launch"
			}
			if cat != wantCat || name != wantName {
				t.Fatalf("flow cat %q name %q, want %q %q", cat, name, wantCat, wantName)
			}
		}
	}

	// Counters.
	var kernels, memcpys, memsets, graphKernels int
	for _, g := range gpu {
		switch g.kind {
		case "kernel":
			kernels++
			if g.ext == 0 {
				graphKernels++
			}
		case "memcpy":
			memcpys++
		case "memset":
			memsets++
		}
	}
	got := []int{kernels, memcpys, memsets, graphKernels, apiCalls, driverCalls, kernelLaunches, graphLaunches, syncCalls, cpuOps, pyFuncs, memEvents, len(flowS) + len(flowF)}
	want := []int{truth.Kernels, truth.Memcpys, truth.Memsets, truth.GraphKernels, truth.APICalls, truth.DriverCalls, truth.KernelLaunches, truth.GraphLaunches, truth.SyncCalls, truth.CPUOps, truth.PythonFunctions, truth.MemoryEvents, truth.Flows}
	if !slices.Equal(got, want) {
		t.Errorf("kernels, memcpys, memsets, graph kernels, api, driver, launches, graphs, syncs, ops, python, memory, flows:\n got %v\nwant %v", got, want)
	}
	if truth.APICalls != truth.RuntimeCalls+truth.DriverCalls || truth.MemcpyCalls != memcpys || truth.MemsetCalls != memsets {
		t.Errorf("API call totals do not add up: %+v", truth)
	}
	wantKernels := cfg.Devices * len(truth.Steps) * cfg.KernelsPerStep
	if kernels-graphKernels != wantKernels || truth.GraphLaunches != cfg.Devices*len(truth.Steps)*cfg.GraphLaunches {
		t.Errorf("%d non-graph kernels, %d graph launches; Config asks %d, %d", kernels-graphKernels, truth.GraphLaunches, wantKernels, cfg.Devices*len(truth.Steps)*cfg.GraphLaunches)
	}

	// Launch linkage: every GPU event has its API call, started earlier,
	// with the same External id (none for graph replays), an enclosing
	// operator, and a flow from the call to the activity.
	for _, g := range gpu {
		api, ok := apis[g.corr]
		if !ok {
			t.Fatalf("%s %q: no API call with correlation %d", g.kind, g.name, g.corr)
		}
		if api.start >= g.start {
			t.Errorf("%q starts at %d, before its launch at %d", g.name, g.start, api.start)
		}
		wantAPI := map[string]string{"memcpy": "cudaMemcpyAsync", "memset": "cudaMemsetAsync", "kernel": "cudaLaunchKernel"}[g.kind]
		switch {
		case g.kind == "kernel" && g.ext == 0:
			wantAPI = "cudaGraphLaunch"
		case modern && strings.HasPrefix(g.name, "triton_"):
			wantAPI = "cuLaunchKernel"
		}
		if api.name != wantAPI || api.ext != g.ext {
			t.Errorf("%q (External id %d) launched by %q (External id %d), want %q", g.name, g.ext, api.name, api.ext, wantAPI)
		}
		if g.ext != 0 {
			op, ok := opsByExt[g.ext]
			if !ok || op.start > api.start || op.end < api.end || op.tid != api.tid {
				t.Errorf("%q: operator %+v does not enclose its launch %+v", g.name, op, api)
			}
		}
		if flowS[g.corr] != api.start {
			t.Errorf("correlation %d: flow start at %d, API call at %d", g.corr, flowS[g.corr], api.start)
		}
		tid := any(g.stream)
		if !modern {
			tid = fmt.Sprintf("stream %d", g.stream)
		}
		if !flowF[fmt.Sprintf("%d/%d/%v/%d", g.corr, g.device, tid, g.start)] {
			t.Errorf("correlation %d: no flow end at the %s", g.corr, g.kind)
		}
	}

	checkNesting(t, cpu)
	checkStreams(t, gpu)
	checkDevices(t, cfg, gpu, truth, cov)

	// Steps: the CPU ranges, the per-device GPU windows, and in the modern
	// era the gpu_user_annotation 1 ns wider on each side.
	if len(cpuSteps) != len(truth.Steps) {
		t.Errorf("%d ProfilerStep ranges, truth has %d", len(cpuSteps), len(truth.Steps))
	}
	for _, st := range truth.Steps {
		if got := cpuSteps[st.Name]; got.start != st.StartNS || got.end != st.EndNS {
			t.Errorf("%s: CPU range [%d, %d], truth [%d, %d]", st.Name, got.start, got.end, st.StartNS, st.EndNS)
		}
		n := 0
		for _, w := range st.GPU {
			first, last := int64(-1), int64(-1)
			for _, g := range gpu {
				if g.device != w.Device || g.start < st.StartNS || g.end > st.EndNS {
					continue
				}
				if g.kind == "kernel" {
					n++
				}
				if first < 0 || g.start < first {
					first = g.start
				}
				last = max(last, g.end)
			}
			if first != w.StartNS || last != w.EndNS {
				t.Errorf("%s device %d: GPU window [%d, %d], truth [%d, %d]", st.Name, w.Device, first, last, w.StartNS, w.EndNS)
			}
			if ann, ok := gpuSteps[fmt.Sprintf("%s/%d", st.Name, w.Device)]; modern && (!ok || ann.start != w.StartNS-1 || ann.end != w.EndNS+1) {
				t.Errorf("%s device %d: gpu_user_annotation %+v, want [%d, %d]", st.Name, w.Device, ann, w.StartNS-1, w.EndNS+1)
			}
		}
		if n != st.Kernels {
			t.Errorf("%s: %d kernels, truth %d", st.Name, n, st.Kernels)
		}
	}
	if !modern && len(gpuSteps) > 0 {
		t.Error("gpu_user_annotation in the 2021 era")
	}
}

func checkTop(t *testing.T, cfg Config, data []byte, top map[string]any, truth Truth) {
	if cfg.Container == Array {
		if data[0] != '[' {
			t.Error("array container does not start with [")
		}
		return
	}
	props, _ := top["deviceProperties"].([]any)
	if len(props) != cfg.Devices {
		t.Errorf("%d deviceProperties, want %d", len(props), cfg.Devices)
	}
	if num(t, top["schemaVersion"]) != 1 {
		t.Error("schemaVersion != 1")
	}
	if _, ok := top["distributedInfo"].(map[string]any); !ok {
		t.Error("no distributedInfo")
	}
	events := bytes.Index(data, []byte(`"traceEvents"`))
	dist := bytes.Index(data, []byte(`"distributedInfo"`))
	if (cfg.Container == ObjectAfter) != (dist > events) {
		t.Errorf("%v: distributedInfo at byte %d, traceEvents at %d", cfg.Container, dist, events)
	}
	if cfg.Era == Modern {
		if num(t, top["baseTimeNanoseconds"]) != truth.BaseTimeNS || top["displayTimeUnit"] != "ms" {
			t.Errorf("baseTimeNanoseconds %v, displayTimeUnit %v", top["baseTimeNanoseconds"], top["displayTimeUnit"])
		}
		base := bytes.Index(data, []byte(`"baseTimeNanoseconds"`))
		if (cfg.Container == ObjectAfter) != (base > events) {
			t.Errorf("%v: baseTimeNanoseconds at byte %d, traceEvents at %d", cfg.Container, base, events)
		}
	}
}

// checkNesting checks that the CPU events of each thread nest properly.
func checkNesting(t *testing.T, cpu []cpuEv) {
	byTid := map[string][]cpuEv{}
	for _, c := range cpu {
		byTid[c.tid] = append(byTid[c.tid], c)
	}
	for tid, evs := range byTid {
		slices.SortStableFunc(evs, func(a, b cpuEv) int {
			if a.start != b.start {
				return compare(a.start, b.start)
			}
			return compare(b.end, a.end)
		})
		var stack []cpuEv
		for _, e := range evs {
			for len(stack) > 0 && stack[len(stack)-1].end <= e.start {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && stack[len(stack)-1].end < e.end {
				t.Fatalf("thread %s: %q [%d, %d] overlaps %q [%d, %d] without nesting", tid,
					e.name, e.start, e.end, stack[len(stack)-1].name, stack[len(stack)-1].start, stack[len(stack)-1].end)
			}
			stack = append(stack, e)
		}
	}
}

// checkStreams checks that activities on one stream never overlap.
func checkStreams(t *testing.T, gpu []gpuEv) {
	type key struct {
		dev    int
		stream int64
	}
	by := map[key][]gpuEv{}
	for _, g := range gpu {
		k := key{g.device, g.stream}
		by[k] = append(by[k], g)
	}
	for k, evs := range by {
		slices.SortStableFunc(evs, func(a, b gpuEv) int { return compare(a.start, b.start) })
		for i := 1; i < len(evs); i++ {
			if evs[i].start < evs[i-1].end {
				t.Fatalf("device %d stream %d: %q [%d, %d] overlaps %q [%d, %d]", k.dev, k.stream,
					evs[i].name, evs[i].start, evs[i].end, evs[i-1].name, evs[i-1].start, evs[i-1].end)
			}
		}
	}
}

func checkDevices(t *testing.T, cfg Config, gpu []gpuEv, truth Truth, cov *coverage) {
	if len(truth.Devices) != cfg.Devices {
		t.Fatalf("%d devices in the truth, want %d", len(truth.Devices), cfg.Devices)
	}
	for i, dt := range truth.Devices {
		if dt.Device != i {
			t.Fatalf("Devices[%d].Device = %d", i, dt.Device)
		}
		var evs []gpuEv
		for _, g := range gpu {
			if g.device == i {
				evs = append(evs, g)
			}
		}
		var got DeviceTruth
		got.Device, got.Name = i, dt.Name
		var durs []int64
		streams := map[int64]bool{}
		copies := map[string]*CopyTruth{}
		first, last := evs[0].start, evs[0].end
		for _, g := range evs {
			streams[g.stream] = true
			first, last = min(first, g.start), max(last, g.end)
			d := g.end - g.start
			switch g.kind {
			case "kernel":
				durs = append(durs, d)
				got.KernelNS += d
				if d == 0 {
					got.ZeroKernels++
				}
			case "memset":
				if g.name != "Memset (Device)" {
					t.Errorf("memset named %q", g.name)
				}
				got.Memsets++
				got.MemsetBytes += g.bytes
				got.MemsetNS += d
			case "memcpy":
				c := copies[g.name]
				if c == nil {
					m := regexp.MustCompile(`^Memcpy ([A-Za-z]+) \((\w+) -> (\w+)\)$`).FindStringSubmatch(g.name)
					if m == nil {
						t.Fatalf("memcpy named %q", g.name)
					}
					c = &CopyTruth{Name: g.name, Kind: m[1], Src: m[2], Dst: m[3]}
					copies[g.name] = c
				}
				c.Copies++
				c.Bytes += g.bytes
				c.NS += d
				got.Memcpys++
				got.MemcpyBytes += g.bytes
				got.MemcpyNS += d
				var tot *CopyTruth
				switch c.Kind {
				case "HtoD":
					tot = &got.H2D
				case "DtoH":
					tot = &got.D2H
				case "DtoD":
					tot = &got.D2D
				default:
					continue
				}
				tot.Copies++
				tot.Bytes += g.bytes
				tot.NS += d
			}
		}
		got.H2D.Kind, got.D2H.Kind, got.D2D.Kind = "HtoD", "DtoH", "DtoD"
		got.Kernels = len(durs)
		slices.Sort(durs)
		got.KernelMinNS, got.KernelMaxNS = durs[0], durs[len(durs)-1]
		if n := len(durs); n%2 == 1 {
			got.KernelMedianNS = float64(durs[n/2])
		} else {
			got.KernelMedianNS = (float64(durs[n/2-1]) + float64(durs[n/2])) / 2
		}
		for s := range streams {
			got.Streams = append(got.Streams, s)
		}
		slices.Sort(got.Streams)
		got.Copies = []CopyTruth{}
		for _, c := range copies {
			got.Copies = append(got.Copies, *c)
		}
		slices.SortFunc(got.Copies, func(a, b CopyTruth) int { return strings.Compare(a.Name, b.Name) })
		if len(got.Copies) != len(copyKinds) {
			t.Errorf("device %d: %d memcpy kinds, want all %d", i, len(got.Copies), len(copyKinds))
		}

		// Busy time, kernel busy time and gaps from per-ns bitmaps.
		got.FirstNS, got.LastNS, got.SpanNS = first, last, last-first
		all, kern := newBitmap(last-first), newBitmap(last-first)
		for _, g := range evs {
			all.set(g.start-first, g.end-first)
			if g.kind == "kernel" {
				kern.set(g.start-first, g.end-first)
			}
		}
		got.BusyNS = all.ones()
		got.KernelBusyNS = kern.ones()
		got.IdleNS = got.SpanNS - got.BusyNS
		got.IdleGaps, got.LargestGapNS = all.gaps()
		cov.gaps += got.IdleGaps
		cov.zeroKernels += got.ZeroKernels
		got.Touches = dt.Touches // not observable: two touching clusters are one busy interval

		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(dt, "", " ")
		if !bytes.Equal(gj, wj) {
			t.Errorf("device %d:\n got %s\nwant %s", i, gj, wj)
		}

		// Shapes the metrics must handle.
		var kernelsOnly []gpuEv
		for _, g := range evs {
			if g.kind == "kernel" {
				kernelsOnly = append(kernelsOnly, g)
			}
		}
		slices.SortStableFunc(kernelsOnly, func(a, b gpuEv) int { return compare(a.start, b.start) })
		for x, a := range kernelsOnly {
			for _, b := range kernelsOnly[x+1:] {
				if b.start > a.end {
					break
				}
				cov.touching = cov.touching || (a.stream == b.stream && b.start == a.end && a.end > a.start && b.end > b.start)
				cov.partial = cov.partial || (a.stream != b.stream && a.start < b.start && b.start < a.end && a.end < b.end)
			}
		}
	}
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bitmap marks nanoseconds [0, n).
type bitmap struct {
	w []uint64
	n int64
}

func newBitmap(n int64) *bitmap { return &bitmap{w: make([]uint64, n/64+1), n: n} }

// set marks [s, e).
func (b *bitmap) set(s, e int64) {
	for i := s; i < e; {
		if i%64 == 0 && i+64 <= e {
			b.w[i/64] = ^uint64(0)
			i += 64
			continue
		}
		b.w[i/64] |= 1 << (i % 64)
		i++
	}
}

func (b *bitmap) get(i int64) bool { return b.w[i/64]>>(i%64)&1 == 1 }

func (b *bitmap) ones() int64 {
	n := 0
	for _, w := range b.w {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

// gaps counts the runs of unmarked ns in [0, n) and the longest one.
func (b *bitmap) gaps() (count int, largest int64) {
	run := int64(0)
	for i := int64(0); i < b.n; {
		if i%64 == 0 && i+64 <= b.n && (b.w[i/64] == 0 || b.w[i/64] == ^uint64(0)) {
			if b.w[i/64] == 0 {
				run += 64
			} else if run > 0 {
				count++
				largest = max(largest, run)
				run = 0
			}
			i += 64
			continue
		}
		if !b.get(i) {
			run++
		} else if run > 0 {
			count++
			largest = max(largest, run)
			run = 0
		}
		i++
	}
	if run > 0 { // cannot happen: the span ends with activity
		count++
		largest = max(largest, run)
	}
	return count, largest
}

// TestRepeat repeats a generated trace to three times its size and checks
// the copies: the same events, in the same order, with ts, the linking ids
// and the step numbers shifted by one period a copy, and the same metadata.
func TestRepeat(t *testing.T) {
	var src bytes.Buffer
	cfg := testConfigs[0].cfg
	if _, err := Write(&src, cfg); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	copies, err := Repeat(&out, src.Bytes(), 3*int64(src.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if copies < 3 || out.Len() < 3*src.Len() {
		t.Errorf("%d copies, %d bytes: want at least 3 and %d", copies, out.Len(), 3*src.Len())
	}
	top, events := decode(t, src.Bytes(), cfg.Container)
	rtop, revents := decode(t, out.Bytes(), cfg.Container)
	if len(revents) != copies*len(events) {
		t.Fatalf("%d events, want %d × %d", len(revents), copies, len(events))
	}
	delete(top, "traceEvents")
	delete(rtop, "traceEvents")
	if !reflect.DeepEqual(top, rtop) {
		t.Error("metadata changed")
	}
	// Correlation ids are shifted past those of the source, so that the
	// copies share none, and no further: they stay as dense as in a real
	// trace. (Checked first: the loop below sets the numbers back.)
	correlations := func(events []event) (n int, span int64) {
		ids := map[string]bool{}
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, e := range events {
			a, _ := e["args"].(map[string]any)
			for _, v := range []any{e["id"], a["correlation"]} {
				if v, ok := v.(json.Number); ok && num(t, v) > 0 {
					ids[fmt.Sprint(e["cat"], v)] = true
					lo, hi = min(lo, num(t, v)), max(hi, num(t, v))
				}
			}
		}
		return len(ids), hi - lo + 1
	}
	n, span := correlations(events)
	if gotN, gotSpan := correlations(revents); n == 0 || gotN != copies*n || gotSpan != int64(copies)*span {
		t.Errorf("%d distinct (category, correlation) pairs over %d ids, want %d over %d", gotN, gotSpan, copies*n, int64(copies)*span)
	}
	// The shift of each kind of number, learnt from the first event of
	// copy 1 that has one; every copy c must be shifted c times that.
	period := map[string]int64{}
	var seen []string
	for i, e := range revents {
		c := int64(i / len(events))
		orig := events[i%len(events)]
		for _, s := range shiftedNumbers(t, e, orig) {
			if i < len(events) && s.by != 0 || i >= len(events) && s.by <= 0 {
				t.Fatalf("event %d: %s shifted by %d", i, s.what, s.by)
			}
			if c == 1 && period[s.what] == 0 {
				period[s.what] = s.by
				seen = append(seen, s.what)
			}
			if s.by != c*period[s.what] {
				t.Fatalf("event %d (copy %d): %s shifted by %d, want %d", i, c, s.what, s.by, c*period[s.what])
			}
		}
		if !reflect.DeepEqual(e, orig) {
			t.Fatalf("event %d changed beyond its shifted numbers: %v, want %v", i, e, orig)
		}
	}
	if period["id"] != period["correlation"] || period["Python parent id"] != period["Python id"] {
		t.Errorf("linked ids shifted apart: %v", period)
	}
	slices.Sort(seen)
	if want := []string{"External id", "Python id", "Python parent id", "correlation", "id", "step", "ts"}; !slices.Equal(seen, want) {
		t.Errorf("shifted %q, want %q", seen, want)
	}
	if _, err := Repeat(io.Discard, []byte(`[{"ts": 1}]`), 10); err == nil {
		t.Error("a bare array was repeated")
	}
}

type shiftedNumber struct {
	what string
	by   int64
}

// shiftedNumbers returns how the numbers Repeat shifts differ from e's
// original orig, and sets them in e back to orig's.
func shiftedNumbers(t *testing.T, e, orig event) []shiftedNumber {
	t.Helper()
	var out []shiftedNumber
	if ts, ok := orig["ts"].(json.Number); ok {
		out = append(out, shiftedNumber{"ts", ns(t, e["ts"], true) - ns(t, ts, true)})
		e["ts"] = ts
	}
	id := func(what string, e, orig map[string]any) {
		if v, ok := orig[what].(json.Number); ok && num(t, v) > 0 {
			out = append(out, shiftedNumber{what, num(t, e[what]) - num(t, v)})
			e[what] = v
		}
	}
	id("id", e, orig)
	if a, ok := orig["args"].(map[string]any); ok {
		for _, what := range []string{"correlation", "External id", "Python id", "Python parent id"} {
			id(what, e["args"].(map[string]any), a)
		}
	}
	if name, ok := orig["name"].(string); ok && strings.HasPrefix(name, "ProfilerStep#") {
		n := func(s any) int64 {
			v, err := strconv.ParseInt(strings.TrimPrefix(s.(string), "ProfilerStep#"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		out = append(out, shiftedNumber{"step", n(e["name"]) - n(name)})
		e["name"] = name
	}
	return out
}
