package metrics

import (
	"strings"
	"testing"

	"github.com/traceql/traceql/trace"
)

// bruteExposedCopies walks device 0's span of t a nanosecond at a time:
// the nanoseconds in which a copy runs and no kernel does, and the copies
// running in at least one of them, with their bytes. Written apart from
// the time split's unions.
func bruteExposedCopies(t *trace.Trace) (ns int64, copies int, bytes int64) {
	lo, hi := int64(1<<62), int64(0)
	t.EachGPUActivity(func(a *trace.Activity) { lo, hi = min(lo, a.Start), max(hi, a.End) })
	exposed := make([]bool, len(t.Memcpys))
	for x := lo; x < hi; x++ {
		kernel := false
		for _, k := range t.Kernels {
			kernel = kernel || k.Start <= x && x < k.End
		}
		if kernel {
			continue
		}
		any := false
		for i, m := range t.Memcpys {
			if m.Start <= x && x < m.End {
				any, exposed[i] = true, true
			}
		}
		if any {
			ns++
		}
	}
	for i, e := range exposed {
		if e {
			copies, bytes = copies+1, bytes+t.Memcpys[i].Bytes
		}
	}
	return ns, copies, bytes
}

// copyTrace is a device computing on stream 7 while copies run on stream
// 8: one H2D copy hidden under a kernel, one half under it, one alone, a
// D2H copy under the lone H2D one, and a D2H copy alone; from pageable
// memory when pageable, else pinned.
func copyTrace(tb testing.TB, pageable bool) *trace.Trace {
	b := newBuilder(9)
	b.t.Streams = append(b.t.Streams, trace.Stream{Device: 0, ID: 8})
	host := trace.Pinned
	if pageable {
		host = trace.Pageable
	}
	for i := range int64(5) {
		at := 1000 + i*20_000
		b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", at, at+10_000, b.call("cudaLaunchKernel", at-100, at-90))
	}
	cp := func(kind trace.CopyKind, start, end, bytes int64) {
		src, dst := host, trace.DeviceMem
		if kind == trace.DtoH {
			src, dst = dst, src
		}
		m := trace.Memcpy{Activity: b.act(start, end, b.call("cudaMemcpyAsync", start-50, start-40)), Kind: kind, Src: src, Dst: dst, Bytes: bytes}
		m.Stream = 8
		b.t.Memcpys = append(b.t.Memcpys, m)
	}
	cp(trace.HtoD, 2000, 8000, 1<<20)     // under the first kernel
	cp(trace.HtoD, 26_000, 36_000, 2<<20) // 5,000 ns past the second
	cp(trace.HtoD, 51_500, 60_500, 3<<20) // alone: 9,000 ns
	cp(trace.DtoH, 53_000, 58_000, 1<<10) // under the lone H2D copy
	cp(trace.DtoH, 71_500, 79_000, 4<<20) // after the fourth kernel: 7,500 ns
	return b.done(tb)
}

// TestFindingsExposedCopy: the exposed-copy rule's time, count and bytes
// against the walk, its savings bounded by its time, and its fix naming
// the direction and memory kind; copies all under kernels fire nothing.
func TestFindingsExposedCopy(t *testing.T) {
	for _, pageable := range []bool{false, true} {
		tr := copyTrace(t, pageable)
		s := Summarize(tr, Options{})
		checkBounds(t, "exposed-copy", s)
		ns, n, bytes := bruteExposedCopies(tr)
		if ns != 5000+9000+7500 || n != 4 {
			t.Fatalf("brute force: %d ns, %d copies; the case wants 21,500 ns in 4", ns, n)
		}
		f, ok := findingsOf(tr)["exposed-copy"]
		if !ok {
			t.Fatalf("pageable %v: exposed-copy did not fire", pageable)
		}
		if f.TimeNS != ns || f.Count != n || f.Bytes != bytes || !f.HasSavings || f.SavingsNS != ns {
			t.Errorf("pageable %v: %+v; want %d ns, %d copies, %d B, savings %d", pageable, f, ns, n, bytes, ns)
		}
		if f.TimeNS != s.Devices[0].Classes.CopyNS() {
			t.Errorf("time %d, copy_exposed_ns %d", f.TimeNS, s.Devices[0].Classes.CopyNS())
		}
		if !strings.Contains(f.Evidence, "H2D 14.0 µs in 2 copies") || !strings.Contains(f.Evidence, "D2H 7.5 µs in 2 copies") {
			t.Errorf("evidence %q: want the directions with their exposed time and copies", f.Evidence)
		}
		if pin := strings.Contains(f.Fix, "pin the host memory"); pin != pageable {
			t.Errorf("pageable %v: fix %q", pageable, f.Fix)
		}
		if !strings.Contains(f.Fix, "side stream") {
			t.Errorf("fix %q names no side stream", f.Fix)
		}
	}

	// Every copy under a kernel: nothing exposed, nothing found.
	b := newBuilder(9)
	b.t.Streams = append(b.t.Streams, trace.Stream{Device: 0, ID: 8})
	b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 1000, 100_000, b.call("cudaLaunchKernel", 900, 910))
	m := trace.Memcpy{Activity: b.act(2000, 90_000, b.call("cudaMemcpyAsync", 1900, 1910)), Kind: trace.HtoD, Src: trace.Pinned,
		Dst: trace.DeviceMem, Bytes: 1 << 30}
	m.Stream = 8
	b.t.Memcpys = append(b.t.Memcpys, m)
	tr := b.done(t)
	if ns, _, _ := bruteExposedCopies(tr); ns != 0 {
		t.Fatalf("brute force: %d ns exposed, the case wants none", ns)
	}
	if f, ok := findingsOf(tr)["exposed-copy"]; ok {
		t.Errorf("exposed-copy fired with every copy under a kernel: %+v", f)
	}
}

// TestLinkOf: the table's links and their one-way peaks, computed again
// from the PCIe rates (GT/s a lane, 128b/130b), and names the table
// does not hold.
func TestLinkOf(t *testing.T) {
	for _, c := range []struct {
		name string
		link string
		gbps float64
	}{
		{"NVIDIA GeForce RTX 4060 Ti", "PCIe 4.0 x8", 16e9 * 8 * 128 / 130 / 8 / 1e9},
		{"NVIDIA H200", "PCIe 5.0 x16", 32e9 * 16 * 128 / 130 / 8 / 1e9},
		{"NVIDIA H100 80GB HBM3", "PCIe 5.0 x16", 63.015},
		{"NVIDIA A100-SXM4-80GB", "PCIe 4.0 x16", 31.508},
		{"Tesla T4", "PCIe 3.0 x16", 15.754},
		{"NVIDIA GH200 480GB", "NVLink-C2C", 450},
		{"NVIDIA L4", "PCIe 4.0 x16", 31.508},
	} {
		l, why := linkOf(c.name)
		if why != "" || l.Name != c.link || l.GBps < c.gbps-0.001 || l.GBps > c.gbps+0.001 || !strings.HasPrefix(l.Source, "https://") {
			t.Errorf("%s: %+v %q; want %s at %.3f GB/s, sourced", c.name, l, why, c.link, c.gbps)
		}
	}
	for _, name := range []string{"", "NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-16GB", "AMD Instinct MI250X"} {
		if l, why := linkOf(name); why == "" {
			t.Errorf("%q: link %+v, want none", name, l)
		}
	}
}
