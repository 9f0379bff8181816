package trace

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/traceql/traceql/internal/nsysgen"
)

// nsysTraces is where the real exports live, beside the project.
const nsysTraces = "../../shared/traces/nsys"

func nsysExport(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(nsysTraces, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: ../shared absent", path)
	}
	return path
}

// deviceRef is one row of shared/traces/reference.csv.
type deviceRef struct {
	kernels, kernelNS          int64
	h2dCopies, h2dBytes, h2dNS int64
	d2hCopies, d2hBytes, d2hNS int64
	device                     int
}

// readReference returns reference.csv's rows for file (relative to
// shared/traces), by device.
func readReference(t *testing.T, file string) map[int]deviceRef {
	t.Helper()
	f, err := os.Open(filepath.Join(nsysTraces, "..", "reference.csv"))
	if err != nil {
		t.Skipf("reference.csv: ../shared absent: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	out := map[int]deviceRef{}
	for _, rec := range recs[1:] {
		if rec[col["file"]] != file {
			continue
		}
		n := func(name string) int64 {
			v, err := strconv.ParseInt(rec[col[name]], 10, 64)
			if err != nil {
				t.Fatalf("reference.csv %s %s: %v", file, name, err)
			}
			return v
		}
		r := deviceRef{
			device:  int(n("device")),
			kernels: n("kernels"), kernelNS: n("kernel_ns"),
			h2dCopies: n("h2d_copies"), h2dBytes: n("h2d_bytes"), h2dNS: n("h2d_ns"),
			d2hCopies: n("d2h_copies"), d2hBytes: n("d2h_bytes"), d2hNS: n("d2h_ns"),
		}
		out[r.device] = r
	}
	if len(out) == 0 {
		t.Fatalf("reference.csv has no row for %s", file)
	}
	return out
}

// sumByDevice computes reference.csv's columns from a trace.
func sumByDevice(tr *Trace) map[int]deviceRef {
	out := map[int]deviceRef{}
	get := func(dev int) deviceRef {
		r, ok := out[dev]
		if !ok {
			r.device = dev
		}
		return r
	}
	for _, k := range tr.Kernels {
		r := get(k.Device)
		r.kernels++
		r.kernelNS += k.Dur()
		out[k.Device] = r
	}
	for _, m := range tr.Memcpys {
		r := get(m.Device)
		switch m.Kind {
		case HtoD:
			r.h2dCopies++
			r.h2dBytes += m.Bytes
			r.h2dNS += m.Dur()
		case DtoH:
			r.d2hCopies++
			r.d2hBytes += m.Bytes
			r.d2hNS += m.Dur()
		}
		out[m.Device] = r
	}
	for _, m := range tr.Memsets {
		out[m.Device] = get(m.Device)
	}
	return out
}

// apiVersionRE matches the CUPTI version suffix the reader strips.
var apiVersionRE = regexp.MustCompile(`_v[0-9]{4,5}$`)

func TestNsysRealExports(t *testing.T) {
	tests := []struct {
		file      string
		version   string
		devices   []string // names by device id, as TARGET_INFO_GPU lists them
		kernels   int
		memcpys   map[CopyKind]int
		memsets   int
		nvtx      int
		streams   []int64 // of device 0
		hasDriver bool    // driver calls in the RUNTIME table
	}{
		{
			file: "nsys2021.2_mordred_cuda.sqlite", version: "",
			devices: []string{"Quadro RTX 6000"},
			kernels: 12, memcpys: map[CopyKind]int{HtoD: 164, DtoH: 24}, memsets: 16,
		},
		{
			file: "nsys2022.1.3_dlprof_pytorch.sqlite", version: "2022.1.3.3",
			devices: []string{"NVIDIA GeForce RTX 2070 SUPER"},
			kernels: 46, memcpys: map[CopyKind]int{HtoD: 12}, memsets: 4, nvtx: 82,
		},
		{
			file: "nsys2024.2.1_mmagic_pytorch.sqlite", version: "2024.2.1.106",
			devices: []string{"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"},
			kernels: 328, memcpys: map[CopyKind]int{HtoD: 10, DtoD: 30}, memsets: 7, nvtx: 1956,
			streams: []int64{7, 16}, hasDriver: true,
		},
		{
			file: "nsys2026.1.1_testcuda_streams.sqlite", version: "2026.1.1.204",
			devices: []string{"NVIDIA GeForce RTX 4060 Ti"},
			kernels: 4, memcpys: map[CopyKind]int{HtoD: 8, DtoH: 4},
			streams: []int64{13, 14, 15, 16}, hasDriver: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := nsysExport(t, tt.file)
			tr, err := Options{Strict: true}.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			if tr.Meta.Format != Nsys || tr.Meta.Version != tt.version || tr.Meta.Rank != -1 {
				t.Errorf("Meta = %+v, want format nsys, version %q, rank -1", tr.Meta, tt.version)
			}
			if len(tr.Warnings) > 0 {
				t.Errorf("warnings: %q", tr.Warnings)
			}
			var names []string
			for _, d := range tr.Devices {
				names = append(names, d.Name)
				if d.SMs == 0 || d.TotalMemBytes == 0 || d.MemBandwidthBs == 0 || d.ComputeMajor == 0 {
					t.Errorf("device %+v: properties missing", d)
				}
			}
			if !slices.Equal(names, tt.devices) {
				t.Errorf("device names %q, want %q", names, tt.devices)
			}

			if got := len(tr.Kernels); got != tt.kernels {
				t.Errorf("%d kernels, want %d", got, tt.kernels)
			}
			kinds := map[CopyKind]int{}
			for _, m := range tr.Memcpys {
				kinds[m.Kind]++
			}
			if diff := cmp.Diff(tt.memcpys, kinds); diff != "" {
				t.Errorf("memcpys by kind (-want +got):\n%s", diff)
			}
			if got := len(tr.Memsets); got != tt.memsets {
				t.Errorf("%d memsets, want %d", got, tt.memsets)
			}
			nvtx := 0
			for _, o := range tr.Ops {
				if o.Kind == NVTXRange {
					nvtx++
				}
			}
			if nvtx != tt.nvtx {
				t.Errorf("%d NVTX ranges, want %d", nvtx, tt.nvtx)
			}
			if tt.streams != nil {
				var got []int64
				for _, k := range tr.Kernels {
					if k.Device == 0 && !slices.Contains(got, k.Stream) {
						got = append(got, k.Stream)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tt.streams) {
					t.Errorf("kernel streams of device 0: %v, want %v", got, tt.streams)
				}
			}
			for _, s := range tr.Syncs {
				if s.Stream == 0xFFFFFFFF || s.Kind == "Unknown" {
					t.Errorf("sync %+v", s)
				}
			}

			want := readReference(t, "nsys/"+tt.file)
			if diff := cmp.Diff(want, sumByDevice(tr), cmp.AllowUnexported(deviceRef{})); diff != "" {
				t.Errorf("per-device sums differ from reference.csv (-want +got):\n%s", diff)
			}

			// Every kernel is named and was launched by an API call of its
			// process (nsys.md: the join matches 100 % of kernels).
			launches := map[[2]int64]bool{}
			driver := false
			for _, c := range tr.APICalls {
				if c.Name == "" || apiVersionRE.MatchString(c.Name) {
					t.Errorf("API name %q", c.Name)
				}
				if c.PID == 0 || c.TID == 0 {
					t.Errorf("API call %s without PID/TID: %+v", c.Name, c)
				}
				if c.Kind == Driver {
					driver = true
					if !strings.HasPrefix(c.Name, "cu") || strings.HasPrefix(c.Name, "cuda") {
						t.Errorf("driver call %q", c.Name)
					}
				}
				launches[[2]int64{c.PID, c.Correlation}] = true
			}
			if driver != tt.hasDriver {
				t.Errorf("driver calls: %v, want %v", driver, tt.hasDriver)
			}
			for _, k := range tr.Kernels {
				if k.Name == "" {
					t.Errorf("kernel without name: %+v", k)
				}
				if k.PID == 0 || !launches[[2]int64{k.PID, k.Correlation}] {
					t.Errorf("kernel %.40s: no API call with PID %d, correlation %d", k.Name, k.PID, k.Correlation)
				}
				if k.Grid[0] == 0 || k.Block[0] == 0 || k.Registers == 0 {
					t.Errorf("kernel %.40s: launch shape missing: %+v", k.Name, k)
				}
			}
			for _, o := range tr.Ops {
				if o.Name == "" {
					t.Errorf("NVTX range without name at %d", o.Start)
				}
			}
			if tr.Meta.Events < len(tr.Kernels)+len(tr.Memcpys)+len(tr.Memsets)+len(tr.APICalls)+len(tr.Ops) {
				t.Errorf("Meta.Events = %d, fewer than the events kept", tr.Meta.Events)
			}
		})
	}
}

// TestNsysReadOnly checks that reading an export leaves its bytes and
// modification time alone.
func TestNsysReadOnly(t *testing.T) {
	path := nsysExport(t, "nsys2024.2.1_mmagic_pytorch.sqlite")
	stat := func() ([32]byte, int64) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(data), fi.ModTime().UnixNano()
	}
	sum, mtime := stat()
	if _, err := Open(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	sum2, mtime2 := stat()
	if sum != sum2 || mtime != mtime2 {
		t.Errorf("reading %s changed it: sha256 %x → %x, mtime %d → %d", path, sum, sum2, mtime, mtime2)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "-journal") || strings.HasSuffix(e.Name(), "-wal") || strings.HasSuffix(e.Name(), "-shm") {
			t.Errorf("reading left %s behind", e.Name())
		}
	}
}

func writeExport(t *testing.T, name string, spec nsysgen.Spec) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := nsysgen.Write(path, spec); err != nil {
		t.Fatal(err)
	}
	return path
}

func act(start, end int64, dev int, stream, corr, pid int64) nsysgen.Activity {
	return nsysgen.Activity{Start: start, End: end, Device: dev, Stream: stream, Correlation: corr, PID: pid}
}

// multiSpec has what no real export has: several devices, several
// processes, unified-memory copies, driver calls, both kinds of NVTX
// names.
func multiSpec(shape nsysgen.Shape) nsysgen.Spec {
	gpus := []nsysgen.GPU{
		{ID: 0, Name: "GPU-A", TotalMemory: 80 << 30, MemoryBandwidth: 2e12, SMs: 132, ComputeMajor: 9},
		{ID: 1, Name: "GPU-B", TotalMemory: 80 << 30, MemoryBandwidth: 2e12, SMs: 132, ComputeMajor: 9},
		{ID: 2, Name: "GPU-C", TotalMemory: 40 << 30, MemoryBandwidth: 1e12, SMs: 108, ComputeMajor: 8},
		{ID: 3, Name: "GPU-D", TotalMemory: 40 << 30, MemoryBandwidth: 1e12, SMs: 108, ComputeMajor: 8},
	}
	spec := nsysgen.Spec{
		Shape:   shape,
		Version: "2026.1.1.204",
		GPUs:    gpus,
		Kernels: []nsysgen.Kernel{
			{Activity: act(300, 400, 2, 21, 5, 200), Name: "void gemm<float>(float*)", Grid: [3]int32{8, 4, 2}, Block: [3]int32{256, 1, 1}, Registers: 64, StaticShared: 1024, DynamicShared: 2048},
			{Activity: act(100, 250, 0, 7, 3, 100), Name: "void relu<half>(half*)", Grid: [3]int32{1, 1, 1}, Block: [3]int32{128, 1, 1}, Registers: 16},
			{Activity: act(120, 180, 0, 8, 4, 100), Name: "void relu<half>(half*)", Grid: [3]int32{2, 1, 1}, Block: [3]int32{128, 1, 1}, Registers: 16},
		},
		Memcpys: []nsysgen.Memcpy{
			{Activity: act(10, 20, 0, 7, 1, 100), Bytes: 1000, Kind: 1, Src: 1, Dst: 2},
			{Activity: act(30, 60, 2, 21, 2, 200), Bytes: 2000, Kind: 2, Src: 2, Dst: 0},
			{Activity: act(500, 510, 0, 7, 0, 100), Bytes: 4096, Kind: 11, Src: 4, Dst: 4},
			{Activity: act(520, 530, 0, 7, 0, 100), Bytes: 8192, Kind: 12, Src: 4, Dst: 4},
			{Activity: act(540, 550, 2, 21, 0, 200), Bytes: 65536, Kind: 13, Src: 4, Dst: 4},
			{Activity: act(560, 570, 2, 21, 9, 200), Bytes: 7, Kind: 20, Src: 2, Dst: 2},
		},
		Memsets: []nsysgen.Memset{
			{Activity: act(40, 45, 0, 8, 6, 100), Bytes: 512, MemKind: 2},
		},
		Syncs: []nsysgen.Sync{
			{Activity: act(260, 290, 0, 7, 7, 100), Type: 3},
			{Activity: act(410, 420, 2, 21, 8, 200), Type: 1},
			{Activity: act(430, 440, 2, 21, 10, 200), Type: 9},
			{Activity: act(450, 460, 2, 0xFFFFFFFF, 13, 200), Type: 4},
		},
		Runtime: []nsysgen.API{
			{Start: 5, End: 9, PID: 100, TID: 101, Correlation: 1, Name: "cudaMemcpyAsync_v3020"},
			{Start: 25, End: 29, PID: 200, TID: 201, Correlation: 2, Name: "cudaMemcpy_v3020"},
			{Start: 90, End: 95, PID: 100, TID: 101, Correlation: 3, Name: "cudaLaunchKernel_v7000"},
			{Start: 96, End: 99, PID: 100, TID: 102, Correlation: 4, Name: "cudaLaunchKernelExC_v11060"},
			{Start: 290, End: 299, PID: 200, TID: 201, Correlation: 5, Name: "cuLaunchKernel", Class: 1},
			{Start: 2, End: 3, PID: 100, TID: 101, Correlation: 11, Name: "cuGetProcAddress_v2", Class: 1},
		},
		Driver: []nsysgen.API{
			{Start: 1, End: 2, PID: 200, TID: 201, Correlation: 12, Name: "cuInit"},
		},
	}
	if shape == nsysgen.Shape2026 {
		spec.NVTX = []nsysgen.NVTX{
			{Start: 80, End: 300, Type: 59, Text: "forward", PID: 100, TID: 101},
			{Start: 85, End: 200, Type: 59, Text: "conv1", ByID: true, PID: 100, TID: 101},
			{Start: 280, End: 600, Type: 60, Text: "step", ByID: true, PID: 200, TID: 201},
			{Start: 90, Type: 34, Text: "mark", PID: 100, TID: 101, Open: true},
			{Start: 95, Type: 59, Text: "unterminated", PID: 100, TID: 101, Open: true},
			{Start: 1, Type: 75, Text: "domain", PID: 100, TID: 101, Open: true},
		}
	}
	return spec
}

func TestNsysGenerated(t *testing.T) {
	path := writeExport(t, "multi.sqlite", multiSpec(nsysgen.Shape2026))
	tr, err := Options{Strict: true}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) > 0 {
		t.Errorf("warnings: %q", tr.Warnings)
	}
	if tr.Meta.Version != "2026.1.1.204" {
		t.Errorf("version %q", tr.Meta.Version)
	}
	// 3 kernels + 6 memcpys + 1 memset + 4 syncs + 7 API calls + 3 ranges.
	if tr.Meta.Events != 24 {
		t.Errorf("Meta.Events = %d, want 24", tr.Meta.Events)
	}
	wantDevs := []Device{
		{ID: 0, Name: "GPU-A", TotalMemBytes: 80 << 30, MemBandwidthBs: 2e12, SMs: 132, ComputeMajor: 9},
		{ID: 1, Name: "GPU-B", TotalMemBytes: 80 << 30, MemBandwidthBs: 2e12, SMs: 132, ComputeMajor: 9},
		{ID: 2, Name: "GPU-C", TotalMemBytes: 40 << 30, MemBandwidthBs: 1e12, SMs: 108, ComputeMajor: 8},
		{ID: 3, Name: "GPU-D", TotalMemBytes: 40 << 30, MemBandwidthBs: 1e12, SMs: 108, ComputeMajor: 8},
	}
	if diff := cmp.Diff(wantDevs, tr.Devices); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	wantStreams := []Stream{{0, 7}, {0, 8}, {2, -1}, {2, 21}}
	if diff := cmp.Diff(wantStreams, tr.Streams); diff != "" {
		t.Errorf("streams (-want +got):\n%s", diff)
	}
	wantKernels := []Kernel{
		{Activity: Activity{Device: 0, Stream: 7, Start: 100, End: 250, Correlation: 3, PID: 100}, Name: "void relu<half>(half*)", Grid: [3]int32{1, 1, 1}, Block: [3]int32{128, 1, 1}, Registers: 16},
		{Activity: Activity{Device: 0, Stream: 8, Start: 120, End: 180, Correlation: 4, PID: 100}, Name: "void relu<half>(half*)", Grid: [3]int32{2, 1, 1}, Block: [3]int32{128, 1, 1}, Registers: 16},
		{Activity: Activity{Device: 2, Stream: 21, Start: 300, End: 400, Correlation: 5, PID: 200}, Name: "void gemm<float>(float*)", Grid: [3]int32{8, 4, 2}, Block: [3]int32{256, 1, 1}, Registers: 64, SharedMem: 3072},
	}
	if diff := cmp.Diff(wantKernels, tr.Kernels); diff != "" {
		t.Errorf("kernels (-want +got):\n%s", diff)
	}
	if unsafe.StringData(tr.Kernels[0].Name) != unsafe.StringData(tr.Kernels[1].Name) {
		t.Errorf("kernel names with one StringIds id are not one string")
	}
	wantMemcpys := []Memcpy{
		{Activity: Activity{Device: 0, Stream: 7, Start: 10, End: 20, Correlation: 1, PID: 100}, Kind: HtoD, Src: Pinned, Dst: DeviceMem, Bytes: 1000},
		{Activity: Activity{Device: 2, Stream: 21, Start: 30, End: 60, Correlation: 2, PID: 200}, Kind: DtoH, Src: DeviceMem, Dst: Pageable, Bytes: 2000},
		{Activity: Activity{Device: 0, Stream: 7, Start: 500, End: 510, PID: 100}, Kind: UVMHtoD, Src: Managed, Dst: Managed, Bytes: 4096},
		{Activity: Activity{Device: 0, Stream: 7, Start: 520, End: 530, PID: 100}, Kind: UVMDtoH, Src: Managed, Dst: Managed, Bytes: 8192},
		{Activity: Activity{Device: 2, Stream: 21, Start: 540, End: 550, PID: 200}, Kind: UVMDtoD, Src: Managed, Dst: Managed, Bytes: 65536},
		{Activity: Activity{Device: 2, Stream: 21, Start: 560, End: 570, Correlation: 9, PID: 200}, Kind: CopyKind(20), Src: DeviceMem, Dst: DeviceMem, Bytes: 7},
	}
	if diff := cmp.Diff(wantMemcpys, tr.Memcpys); diff != "" {
		t.Errorf("memcpys (-want +got):\n%s", diff)
	}
	if got := tr.Memcpys[5].Kind.String(); got != "Other" {
		t.Errorf("copyKind 20 prints %q, want Other", got)
	}
	wantMemsets := []Memset{{Activity: Activity{Device: 0, Stream: 8, Start: 40, End: 45, Correlation: 6, PID: 100}, Mem: DeviceMem, Bytes: 512}}
	if diff := cmp.Diff(wantMemsets, tr.Memsets); diff != "" {
		t.Errorf("memsets (-want +got):\n%s", diff)
	}
	wantSyncs := []Sync{
		{Activity: Activity{Device: 0, Stream: 7, Start: 260, End: 290, Correlation: 7, PID: 100}, Kind: "Stream Sync"},
		{Activity: Activity{Device: 2, Stream: 21, Start: 410, End: 420, Correlation: 8, PID: 200}, Kind: "Event Sync"},
		{Activity: Activity{Device: 2, Stream: 21, Start: 430, End: 440, Correlation: 10, PID: 200}, Kind: "Unknown"},
		{Activity: Activity{Device: 2, Stream: -1, Start: 450, End: 460, Correlation: 13, PID: 200}, Kind: "Context Sync"},
	}
	if diff := cmp.Diff(wantSyncs, tr.Syncs); diff != "" {
		t.Errorf("syncs (-want +got):\n%s", diff)
	}
	wantAPI := []APICall{
		{Name: "cuInit", Kind: Driver, PID: 200, TID: 201, Start: 1, End: 2, Correlation: 12},
		{Name: "cuGetProcAddress_v2", Kind: Driver, PID: 100, TID: 101, Start: 2, End: 3, Correlation: 11},
		{Name: "cudaMemcpyAsync", Kind: Runtime, PID: 100, TID: 101, Start: 5, End: 9, Correlation: 1},
		{Name: "cudaMemcpy", Kind: Runtime, PID: 200, TID: 201, Start: 25, End: 29, Correlation: 2},
		{Name: "cudaLaunchKernel", Kind: Runtime, PID: 100, TID: 101, Start: 90, End: 95, Correlation: 3},
		{Name: "cudaLaunchKernelExC", Kind: Runtime, PID: 100, TID: 102, Start: 96, End: 99, Correlation: 4},
		{Name: "cuLaunchKernel", Kind: Driver, PID: 200, TID: 201, Start: 290, End: 299, Correlation: 5},
	}
	if diff := cmp.Diff(wantAPI, tr.APICalls); diff != "" {
		t.Errorf("API calls (-want +got):\n%s", diff)
	}
	wantOps := []Op{
		{Name: "forward", Kind: NVTXRange, PID: 100, TID: 101, Start: 80, End: 300},
		{Name: "conv1", Kind: NVTXRange, PID: 100, TID: 101, Start: 85, End: 200},
		{Name: "step", Kind: NVTXRange, PID: 200, TID: 201, Start: 280, End: 600},
	}
	if diff := cmp.Diff(wantOps, tr.Ops); diff != "" {
		t.Errorf("NVTX ranges (-want +got):\n%s", diff)
	}
}

func TestNsysGeneratedShapes(t *testing.T) {
	graph := make([]nsysgen.Kernel, 50)
	for i := range graph {
		graph[i] = nsysgen.Kernel{
			Activity:  act(int64(1000+10*i), int64(1005+10*i), 1, 3, 77, 300),
			Name:      []string{"void a()", "void b()"}[i%2],
			Grid:      [3]int32{1, 1, 1},
			Block:     [3]int32{32, 1, 1},
			Registers: 8,
			GraphID:   5,
			GraphNode: int64(100 + i),
		}
	}
	tests := []struct {
		name  string
		spec  nsysgen.Spec
		check func(t *testing.T, tr *Trace)
	}{
		{
			name: "cuda graph",
			spec: nsysgen.Spec{
				Version: "2025.5.2.266",
				GPUs:    []nsysgen.GPU{{ID: 0, Name: "G0"}, {ID: 1, Name: "G1"}},
				Kernels: graph,
				Runtime: []nsysgen.API{{Start: 900, End: 990, PID: 300, TID: 301, Correlation: 77, Name: "cudaGraphLaunch_v10000"}},
			},
			check: func(t *testing.T, tr *Trace) {
				if len(tr.Kernels) != 50 || len(tr.APICalls) != 1 || tr.APICalls[0].Name != "cudaGraphLaunch" {
					t.Fatalf("%d kernels, API calls %+v", len(tr.Kernels), tr.APICalls)
				}
				for i, k := range tr.Kernels {
					if k.Correlation != 77 || k.PID != 300 || k.GraphID != 5 || k.GraphNode != int64(100+i) || k.Device != 1 {
						t.Errorf("kernel %d: %+v", i, k)
					}
				}
			},
		},
		{
			name: "runtime only",
			spec: nsysgen.Spec{
				Version: "2025.3.2.367",
				Runtime: []nsysgen.API{
					{Start: 1, End: 5, PID: 9, TID: 9, Correlation: 1, Name: "cudaFree_v3020"},
					{Start: 6, End: 8, PID: 9, TID: 9, Correlation: 2, Name: "cudaMalloc_v3020"},
				},
			},
			check: func(t *testing.T, tr *Trace) {
				if tr.HasGPUActivity() || len(tr.Devices) != 0 || len(tr.Streams) != 0 {
					t.Errorf("GPU activity in a runtime-only export: %+v", tr)
				}
				if len(tr.APICalls) != 2 || tr.APICalls[1].Name != "cudaMalloc" || tr.Meta.Events != 2 {
					t.Errorf("API calls %+v, events %d", tr.APICalls, tr.Meta.Events)
				}
			},
		},
		{
			name: "empty",
			spec: nsysgen.Spec{},
			check: func(t *testing.T, tr *Trace) {
				if tr.HasGPUActivity() || len(tr.APICalls) != 0 || tr.Meta.Version != "" || tr.Meta.Events != 0 {
					t.Errorf("empty export read as %+v", tr)
				}
			},
		},
		{
			name: "2021 shape",
			spec: multiSpec(nsysgen.Shape2021),
			check: func(t *testing.T, tr *Trace) {
				if tr.Meta.Version != "" {
					t.Errorf("version %q from an export without metadata", tr.Meta.Version)
				}
				if len(tr.Kernels) != 3 || len(tr.Memcpys) != 6 || len(tr.Memsets) != 1 || len(tr.Syncs) != 4 || len(tr.APICalls) != 7 || len(tr.Ops) != 0 {
					t.Errorf("counts: %d kernels, %d memcpys, %d memsets, %d syncs, %d API calls, %d ops",
						len(tr.Kernels), len(tr.Memcpys), len(tr.Memsets), len(tr.Syncs), len(tr.APICalls), len(tr.Ops))
				}
				if len(tr.Devices) != 4 || tr.Devices[2].Name != "GPU-C" {
					t.Errorf("devices %+v", tr.Devices)
				}
				if k := tr.Kernels[2]; k.Name != "void gemm<float>(float*)" || k.PID != 200 || k.SharedMem != 3072 || k.GraphID != 0 {
					t.Errorf("kernel %+v", k)
				}
			},
		},
		{
			name: "TARGET_INFO_CUDA_DEVICE only",
			spec: nsysgen.Spec{
				CUDADevices: []nsysgen.CUDADevice{{GPUID: 0, CUDAID: 0, PID: 5, SMs: 34}, {GPUID: 0, CUDAID: 0, PID: 6, SMs: 34}, {GPUID: 1, CUDAID: 1, PID: 5, SMs: 80}},
				Kernels:     []nsysgen.Kernel{{Activity: act(1, 2, 1, 7, 1, 5), Name: "k"}},
			},
			check: func(t *testing.T, tr *Trace) {
				want := []Device{{ID: 0, SMs: 34}, {ID: 1, SMs: 80}}
				if diff := cmp.Diff(want, tr.Devices); diff != "" {
					t.Errorf("devices (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "TARGET_INFO_CUDA_GPU",
			spec: nsysgen.Spec{
				Shape:   nsysgen.Shape2021,
				Kernels: []nsysgen.Kernel{{Activity: act(1, 2, 0, 7, 1, 5), Name: "k"}},
				SQL: []string{
					"CREATE TABLE TARGET_INFO_CUDA_GPU (deviceId INTEGER NOT NULL, name TEXT, totalGlobalMem INTEGER, numMultiprocessors INTEGER, computeCapabilityMajor INTEGER, computeCapabilityMinor INTEGER, coreClockRate INTEGER)",
					"INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Old GPU', 1024, 46, 7, 5, 1500000)",
				},
			},
			check: func(t *testing.T, tr *Trace) {
				want := []Device{{ID: 0, Name: "Old GPU", TotalMemBytes: 1024, SMs: 46, ComputeMajor: 7, ComputeMinor: 5}}
				if diff := cmp.Diff(want, tr.Devices); diff != "" {
					t.Errorf("devices (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "EXPORT_META_DATA",
			spec: nsysgen.Spec{
				Shape: nsysgen.Shape2021,
				SQL: []string{
					"CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT)",
					"INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.9.1'), ('EXPORT_PRODUCT_VERSION', '2022.1.3.3')",
				},
			},
			check: func(t *testing.T, tr *Trace) {
				if tr.Meta.Version != "2022.1.3.3" {
					t.Errorf("version %q", tr.Meta.Version)
				}
			},
		},
		{
			name: "name fallbacks",
			spec: nsysgen.Spec{
				Kernels: []nsysgen.Kernel{
					{Activity: act(1, 2, 0, 7, 1, 5), Name: "", ShortName: "shorty"},
					{Activity: act(3, 4, 0, 7, 2, 5), Name: "lost"},
				},
				Runtime: []nsysgen.API{{Start: 1, End: 2, PID: 5, TID: 5, Correlation: 1, Name: "lostAPI_v3020"}},
				SQL: []string{
					"DELETE FROM StringIds WHERE value IN ('lost', 'lostAPI_v3020')",
					"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 999 WHERE correlationId = 2",
				},
			},
			check: func(t *testing.T, tr *Trace) {
				if tr.Kernels[0].Name != "shorty" {
					t.Errorf("kernel with empty demangledName named %q, want its shortName", tr.Kernels[0].Name)
				}
				if n := tr.Kernels[1].Name; !strings.HasPrefix(n, "unknown (StringIds ") {
					t.Errorf("kernel with no name in StringIds named %q", n)
				}
				if n := tr.APICalls[0].Name; !strings.HasPrefix(n, "unknown (StringIds ") {
					t.Errorf("API call with no name in StringIds named %q", n)
				}
				want := []string{"1 CUPTI_ACTIVITY_KIND_KERNEL names not in StringIds", "1 API names not in StringIds"}
				if diff := cmp.Diff(want, tr.Warnings); diff != "" {
					t.Errorf("warnings (-want +got):\n%s", diff)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeExport(t, "x.sqlite", tt.spec)
			tr, err := Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			tt.check(t, tr)
		})
	}
}

// TestNsysBadRows checks that rows ending before they start, or beyond
// ±MaxTime, are skipped with a warning, and are an error under Strict.
func TestNsysBadRows(t *testing.T) {
	spec := nsysgen.Spec{
		Kernels: []nsysgen.Kernel{
			{Activity: act(10, 20, 0, 7, 1, 5), Name: "ok"},
			{Activity: act(30, 25, 0, 7, 2, 5), Name: "backwards"},
			{Activity: act(40, 35, 0, 7, 3, 5), Name: "backwards"},
			{Activity: act(-MaxTime-1, 50, 0, 7, 5, 5), Name: "far"},
			{Activity: act(60, MaxTime+1, 0, 7, 6, 5), Name: "far"},
		},
		Memcpys: []nsysgen.Memcpy{{Activity: act(9, 8, 0, 7, 4, 5), Kind: 1}},
		Runtime: []nsysgen.API{{Start: 5, End: 1, PID: 5, TID: 5, Name: "cudaFree_v3020"}},
		NVTX:    []nsysgen.NVTX{{Start: 5, End: 1, Type: 59, Text: "r", PID: 5, TID: 5}},
	}
	path := writeExport(t, "bad.sqlite", spec)
	tr, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2 CUPTI_ACTIVITY_KIND_KERNEL rows with end before start skipped",
		"2 CUPTI_ACTIVITY_KIND_KERNEL rows beyond ±2^62 ns (146 years) of zero skipped",
		"1 CUPTI_ACTIVITY_KIND_MEMCPY rows with end before start skipped",
		"1 CUPTI_ACTIVITY_KIND_RUNTIME rows with end before start skipped",
		"1 NVTX_EVENTS rows with end before start skipped",
	}
	if diff := cmp.Diff(want, tr.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if len(tr.Kernels) != 1 || tr.Kernels[0].Name != "ok" || len(tr.Memcpys)+len(tr.APICalls)+len(tr.Ops) != 0 {
		t.Errorf("kept %+v", tr)
	}
	if tr.Meta.Events != 8 {
		t.Errorf("Meta.Events = %d, want 8", tr.Meta.Events)
	}

	_, err = Options{Strict: true}.Open(context.Background(), path)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Table != "CUPTI_ACTIVITY_KIND_KERNEL" || !strings.Contains(err.Error(), path) {
		t.Fatalf("strict: got %v, want a SyntaxError in table CUPTI_ACTIVITY_KIND_KERNEL naming %s", err, path)
	}
	if !strings.Contains(err.Error(), "row 2: end 25 before start 30") {
		t.Errorf("strict: %v", err)
	}
}

// TestNsysNullTimes uses a table whose DDL, unlike nsys's, lets start
// and end be NULL.
func TestNsysNullTimes(t *testing.T) {
	path := writeExport(t, "null.sqlite", nsysgen.Spec{SQL: []string{
		"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, bytes INTEGER)",
		"INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 7, 10), (NULL, 2, 0, 7, 10), (1, NULL, 0, 7, 10)",
	}})
	tr, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Memsets) != 1 || tr.Memsets[0].Mem != MemUnknown || tr.Memsets[0].PID != 0 {
		t.Errorf("memsets %+v", tr.Memsets)
	}
	if want := []string{"2 CUPTI_ACTIVITY_KIND_MEMSET rows without start or end skipped"}; !slices.Equal(tr.Warnings, want) {
		t.Errorf("warnings %q, want %q", tr.Warnings, want)
	}
	if _, err := (Options{Strict: true}).Open(context.Background(), path); err == nil || !strings.Contains(err.Error(), "row 2: start or end is NULL") {
		t.Errorf("strict: %v", err)
	}
}

// TestNsysPaddedFile: rows far apart in rowid, in a file padded past what
// its SQLite header says (a sparse file here), are read row by row: sizing
// windows by the padded file's size reserved room for every rowid, 1.5 GB
// for this 12 KB database padded to 200 MB.
func TestNsysPaddedFile(t *testing.T) {
	path := writeExport(t, "padded.sqlite", nsysgen.Spec{
		Shape:   nsysgen.Shape2021,
		Kernels: []nsysgen.Kernel{{Activity: act(1, 2, 0, 7, 1, 5), Name: "k"}},
		SQL: []string{
			"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL",
			"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 12000000, start = 3, end = 4, correlationId = 2 WHERE rowid = 2",
		},
	})
	if err := os.Truncate(path, 200<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr, err := Open(context.Background(), path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Kernels) != 2 {
		t.Errorf("%d kernels, want 2", len(tr.Kernels))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("%d MB allocated to read two rows", alloc>>20)
	}
}

func TestNsysErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sqlitedb := func(name string, stmts ...string) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	export := writeExport(t, "good.sqlite", multiSpec(nsysgen.Shape2026))
	good, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(good)
	zw.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	// The first page is intact; the others, the rest of the schema among
	// them, are noise.
	noisySchema := slices.Clone(good)
	for i := 4096; i < len(noisySchema); i++ {
		noisySchema[i] = byte(rng.Uint32())
	}
	garbage := append([]byte(sqliteMagic), make([]byte, 8192)...)
	for i := len(sqliteMagic); i < len(garbage); i++ {
		garbage[i] = byte(rng.Uint32())
	}
	// The schema is intact; the kernel table's root page is noise.
	many := writeExport(t, "many.sqlite", nsysgen.Spec{Kernels: nsysgen.ManyKernels(5000)})
	noisy, err := os.ReadFile(many)
	if err != nil {
		t.Fatal(err)
	}
	var root int
	db, err := sql.Open("sqlite", "file:"+many+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	err = db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").Scan(&root)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := (root - 1) * 4096; i < root*4096; i++ {
		noisy[i] = byte(rng.Uint32())
	}

	tests := []struct {
		name  string
		path  string
		want  string // in the message
		table bool   // a *SyntaxError naming a table
	}{
		{"nvprof", sqlitedb("nvprof.sqlite", "CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT)", "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INTEGER, name INTEGER)"),
			"an SQLite database but not an Nsight Systems export (no StringIds table; nvprof's format has StringTable, which traceql does not read)", false},
		{"other database", sqlitedb("other.db", "CREATE TABLE users (id INTEGER, name TEXT)"),
			"an SQLite database but not an Nsight Systems export (no StringIds table; expected the output of `nsys export --type sqlite`)", false},
		{"empty database", sqlitedb("empty.sqlite", "CREATE TABLE t (x)", "DROP TABLE t"),
			"not an Nsight Systems export", false},
		{"truncated", file("half.sqlite", good[:len(good)/2]), "truncated SQLite database: the header says", false},
		{"gzipped", file("x.sqlite.gz", gz.Bytes()), "a gzipped SQLite database: gunzip it first", false},
		{"garbage after header", file("garbage.sqlite", garbage), "not a readable SQLite database", false},
		{"header only", file("magic.sqlite", []byte(sqliteMagic)), "not a readable SQLite database", false},
		{"corrupt schema", file("noisy-schema.sqlite", noisySchema), "not a readable SQLite database", false},
		{"corrupt table", file("noisy.sqlite", noisy), "table CUPTI_ACTIVITY_KIND_KERNEL: ", true},
		{"no kernel columns", writeExport(t, "nocol.sqlite", nsysgen.Spec{SQL: []string{"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER)", "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1)"}}),
			"table CUPTI_ACTIVITY_KIND_KERNEL: no column start", true},
		{"text in an integer column", writeExport(t, "text.sqlite", nsysgen.Spec{SQL: []string{"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, bytes INTEGER)", "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 7, 'many')"}}),
			"table CUPTI_ACTIVITY_KIND_MEMSET: row 1: column bytes: \"many\" is not an integer", true},
		{"lines in an integer column", writeExport(t, "lines.sqlite", nsysgen.Spec{SQL: []string{"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, bytes INTEGER)", "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 7, '12' || char(10) || 'goroutine 1 [running]:' || char(10) || '" + strings.Repeat("x", 100) + "')"}}),
			`column bytes: "12\ngoroutine 1 [running]:\nxxxxxxxxxxxxxx" is not an integer`, true},
		{"fraction in an integer column", writeExport(t, "real.sqlite", nsysgen.Spec{SQL: []string{"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, bytes INTEGER)", "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 7, 1.5)"}}),
			"table CUPTI_ACTIVITY_KIND_MEMSET: row 1: column bytes: 1.5 is not an integer", true},
		{"blob in an integer column", writeExport(t, "blob.sqlite", nsysgen.Spec{SQL: []string{"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, bytes INTEGER)", "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 7, x'41')"}}),
			`table CUPTI_ACTIVITY_KIND_MEMSET: row 1: column bytes: "A" is not an integer`, true},
	}
	if real := filepath.Join(nsysTraces, "nsys2021.2_mordred_cuda.sqlite"); fileExists(real) {
		data, err := os.ReadFile(real)
		if err != nil {
			t.Fatal(err)
		}
		half := slices.Clone(data[:len(data)/2])
		tests = append(tests, struct {
			name  string
			path  string
			want  string
			table bool
		}{"truncated real export", file("real-half.sqlite", half), "truncated SQLite database", false})
		// Without a valid page count in the header, SQLite finds the
		// missing pages itself.
		copy(half[92:96], []byte{0xde, 0xad, 0xbe, 0xef})
		tests = append(tests, struct {
			name  string
			path  string
			want  string
			table bool
		}{"truncated real export, stale header", file("real-half-stale.sqlite", half), "malformed", false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Open(context.Background(), tt.path)
			if err == nil {
				t.Fatalf("no error; read %d kernels", len(tr.Kernels))
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, tt.path+":") || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line starting with the path and containing %q", msg, tt.want)
			}
			var se *SyntaxError
			if tt.table && (!errors.As(err, &se) || se.Table == "") {
				t.Errorf("error %q (%T): want a *SyntaxError naming a table", msg, err)
			}
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestNsysPathEscaping opens an export whose name has the characters a
// file: URI gives meaning to.
func TestNsysPathEscaping(t *testing.T) {
	path := writeExport(t, "a b?c#d%e&mode=rw.sqlite", nsysgen.Spec{Kernels: []nsysgen.Kernel{{Activity: act(1, 2, 0, 7, 1, 5), Name: "k"}}})
	tr, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Kernels) != 1 || tr.Source != path {
		t.Errorf("read %+v", tr)
	}
}

func TestStripAPIVersion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cudaLaunchKernel_v7000", "cudaLaunchKernel"},
		{"cudaLaunchKernelExC_v11060", "cudaLaunchKernelExC"},
		{"cudaStreamIsCapturing_v10000", "cudaStreamIsCapturing"},
		{"cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernel_ptsz"},
		{"cuGetProcAddress_v2", "cuGetProcAddress_v2"},
		{"cuLibraryUnload", "cuLibraryUnload"},
		{"_v7000", "_v7000"},
		{"f_v123456", "f_v123456"},
		{"f_vab12", "f_vab12"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := stripAPIVersion(tt.in); got != tt.want {
				t.Errorf("stripAPIVersion(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestNsysParallel reads a table big enough to be split between
// goroutines, with gaps in its rowids and bad rows in both halves.
func TestNsysParallel(t *testing.T) {
	const n = 3 * parallelRows
	path := writeExport(t, "big.sqlite", nsysgen.Spec{
		Kernels: nsysgen.ManyKernels(n),
		SQL: []string{
			// Kernel i has rowid and correlation id i+1.
			"DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid BETWEEN 1000 AND 1999",
			`UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 1 WHERE rowid IN (500, 150000)`,
		},
	})
	tr, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tr.Kernels), n-1000-2; got != want {
		t.Fatalf("%d kernels, want %d", got, want)
	}
	seen := make([]bool, n+1)
	for _, k := range tr.Kernels {
		if seen[k.Correlation] {
			t.Fatalf("kernel %d read twice", k.Correlation)
		}
		seen[k.Correlation] = true
	}
	for c := 1; c <= n; c++ {
		dropped := c >= 1000 && c <= 1999 || c == 500 || c == 150000
		if seen[c] == dropped {
			t.Errorf("kernel %d: read %v", c, seen[c])
		}
	}
	if want := []string{"2 CUPTI_ACTIVITY_KIND_KERNEL rows with end before start skipped"}; !slices.Equal(tr.Warnings, want) {
		t.Errorf("warnings %q, want %q", tr.Warnings, want)
	}
	if tr.Meta.Events != n-1000 {
		t.Errorf("Meta.Events = %d, want %d", tr.Meta.Events, n-1000)
	}
	_, err = Options{Strict: true}.Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "table CUPTI_ACTIVITY_KIND_KERNEL: row 500: end") {
		t.Errorf("strict: %v, want the error of row 500", err)
	}
}

func TestNsysCanceled(t *testing.T) {
	path := writeExport(t, "x.sqlite", multiSpec(nsysgen.Shape2026))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Open(ctx, path)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), path) {
		t.Errorf("got %v, want context.Canceled naming %s", err, path)
	}
}

// TestNsysProgress: an export's progress, counted in rows because SQLite
// reads the file itself, adds up to about the file's size.
func TestNsysProgress(t *testing.T) {
	path := writeExport(t, "progress.sqlite", nsysgen.Spec{Kernels: nsysgen.ManyKernels(200_000)})
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var reported, calls atomic.Int64
	tr, err := Options{Progress: func(n int) { reported.Add(int64(n)); calls.Add(1) }}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	// Rows are reported checkRows at a time, the header as bytes read.
	got, size := reported.Load(), st.Size()
	if len(tr.Kernels) != 200_000 || calls.Load() < 10 || got < size*8/10 || got > size*11/10 {
		t.Errorf("%d kernels; %d bytes reported in %d calls for a file of %d", len(tr.Kernels), got, calls.Load(), size)
	}
}

// TestNsysPipe: SQLite reads a database in place, so an export given as a
// pipe (`<(cat x.sqlite)`) is refused, saying so, rather than called
// truncated.
func TestNsysPipe(t *testing.T) {
	data, err := os.ReadFile(writeExport(t, "x.sqlite", nsysgen.Spec{Kernels: []nsysgen.Kernel{{Activity: act(1, 2, 0, 7, 1, 5), Name: "k"}}}))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(data) // fails once the reader is done: nothing to check
		w.Close()
	}()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /dev/fd here:", err)
	}
	_, err = Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "not a pipe") {
		t.Errorf("got %v, want an error saying to give the file, not a pipe", err)
	}
}
