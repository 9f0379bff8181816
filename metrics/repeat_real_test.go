package metrics_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestRepeatedLayouts checks the inputs that bench/run.sh prices: each
// real Kineto layout in ../shared/traces, repeated by synth.Repeat (what
// `tracegen -repeat` writes), must read and summarize to exactly N times
// the original's counts and times, N the copies written. A copy is shifted
// in time past the one before, so nothing of it overlaps another: busy
// time, a union, adds up like the counts. Two copies show it as well as
// the hundreds of a 1 GB input, at a fraction of the cost.
func TestRepeatedLayouts(t *testing.T) {
	dir := shared.Traces(t)
	var layouts []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		// The layouts bench/run.sh repeats: Kineto traces, less the HTA
		// execution traces and the CPU-only and MTIA ones.
		name := e.Name()
		if (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz")) &&
			!strings.Contains(path, "execution_details") && !strings.Contains(path, "cpu_only") && !strings.Contains(path, "mtia") {
			layouts = append(layouts, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(layouts) < 10 {
		t.Fatalf("%d Kineto layouts in %s", len(layouts), dir)
	}
	tmp := t.TempDir()
	repeated := 0
	for _, path := range layouts {
		rel, _ := filepath.Rel(dir, path)
		t.Run(rel, func(t *testing.T) {
			src := readPlain(t, path)
			var out bytes.Buffer
			n, err := synth.Repeat(&out, src, 2*int64(len(src)))
			if err != nil {
				t.Skipf("not repeatable: %v", err) // a bare array: bench/run.sh skips it too
			}
			big := filepath.Join(tmp, "repeated.json")
			if err := os.WriteFile(big, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			repeated++
			one, many := readLean(t, path), readLean(t, big)
			if n < 2 {
				t.Fatalf("%d copies", n)
			}
			tables := func(tr *trace.Trace) []int {
				return []int{tr.Meta.Events, len(tr.Kernels), len(tr.Memcpys), len(tr.Memsets), len(tr.Syncs), len(tr.APICalls), len(tr.Ops)}
			}
			if got, want := tables(many), tables(one); !scaled(got, want, n) {
				t.Errorf("events, kernels, copies, memsets, syncs, API calls, ops: %v, want %d × %v", got, n, want)
			}
			s1 := metrics.Summarize(one, metrics.Options{})
			sn := metrics.Summarize(many, metrics.Options{})
			if len(sn.Devices) != len(s1.Devices) {
				t.Fatalf("%d devices, want %d", len(sn.Devices), len(s1.Devices))
			}
			for i, d := range sn.Devices {
				o := s1.Devices[i]
				if d.Device != o.Device || d.Streams != o.Streams {
					t.Errorf("device %d with %d streams, want device %d with %d", d.Device, d.Streams, o.Device, o.Streams)
				}
				got := []int64{int64(d.Kernels), d.KernelNS, d.KernelBusyNS, d.BusyNS, int64(d.Memsets), d.MemsetBytes, d.MemsetNS,
					int64(d.H2D.Copies), d.H2D.Bytes, d.H2D.NS, int64(d.D2H.Copies), d.D2H.Bytes, d.D2H.NS, int64(len(d.Copies))}
				want := []int64{int64(o.Kernels), o.KernelNS, o.KernelBusyNS, o.BusyNS, int64(o.Memsets), o.MemsetBytes, o.MemsetNS,
					int64(o.H2D.Copies), o.H2D.Bytes, o.H2D.NS, int64(o.D2H.Copies), o.D2H.Bytes, o.D2H.NS, int64(len(o.Copies))}
				// The last, the kinds of copies, is the same in the copies.
				if !scaled(got[:len(got)-1], want[:len(want)-1], n) || got[len(got)-1] != want[len(want)-1] {
					t.Errorf("device %d: kernels, kernel ns, kernel busy ns, busy ns, memsets, bytes, ns, H2D copies, bytes, ns, D2H copies, bytes, ns, copy kinds: %v, want %d × %v",
						d.Device, got, n, want)
				}
				for k, c := range d.Copies {
					if w := o.Copies[k]; c.Kind != w.Kind || c.Src != w.Src || c.Dst != w.Dst || !scaled([]int64{int64(c.Copies), c.Bytes, c.NS}, []int64{int64(w.Copies), w.Bytes, w.NS}, n) {
						t.Errorf("device %d copies %+v, want %d × %+v", d.Device, c, n, w)
					}
				}
			}
		})
	}
	if repeated == 0 {
		t.Error("no layout was repeated")
	}
}

// scaled says whether got is n times want, element by element.
func scaled[T int | int64](got, want []T, n int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != T(n)*want[i] {
			return false
		}
	}
	return true
}

// readPlain returns the bytes of the trace at path, inflated when gzipped.
func readPlain(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if data, err = io.ReadAll(zr); err != nil {
		t.Fatal(err)
	}
	return data
}

// readLean reads the trace at path as summarize does, without the host
// events no summary metric reads.
func readLean(t *testing.T, path string) *trace.Trace {
	t.Helper()
	tr, err := trace.Options{Needs: &trace.Needs{}}.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
