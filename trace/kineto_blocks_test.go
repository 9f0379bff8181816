package trace

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace/internal/blocks"
)

// readBlocks reads data as a Kineto file cut into blocks of the given size.
func readBlocks(t testing.TB, data []byte, size int64) (*Trace, error) {
	t.Helper()
	return readWith(Options{blockBytesOpt: size}, data)
}

// readWith reads data as a Kineto file with options o.
func readWith(o Options, data []byte) (*Trace, error) {
	return o.read(context.Background(), "in.json", bytes.NewReader(data), int64(len(data)))
}

// sameTrace reports the first part in which two reads differ.
func sameTrace(t testing.TB, what string, want, got *Trace, withWarnings bool) {
	t.Helper()
	for _, f := range []struct {
		name      string
		want, got any
	}{
		{"meta", want.Meta, got.Meta}, {"devices", want.Devices, got.Devices}, {"streams", want.Streams, got.Streams},
		{"kernels", want.Kernels, got.Kernels}, {"memcpys", want.Memcpys, got.Memcpys}, {"memsets", want.Memsets, got.Memsets},
		{"syncs", want.Syncs, got.Syncs}, {"api calls", want.APICalls, got.APICalls}, {"ops", want.Ops, got.Ops},
	} {
		if !reflect.DeepEqual(f.want, f.got) {
			t.Fatalf("%s: %s differ", what, f.name)
		}
	}
	if withWarnings && !reflect.DeepEqual(want.Warnings, got.Warnings) {
		t.Fatalf("%s: warnings %q, want %q", what, got.Warnings, want.Warnings)
	}
}

// TestBlockSplitsAgree: the parallel reader's records do not depend on
// where blocks are cut. Real traces are read in one block, in blocks small
// enough that most events cross a boundary and many guesses of where an
// event starts are wrong, and again after json.Compact has put them on
// one line (so the guess cannot lean on Kineto's layout).
func TestBlockSplitsAgree(t *testing.T) {
	t.Run("sample", func(t *testing.T) { checkBlockSplits(t, "../testdata/sample.pt.trace.json.gz") })
	t.Run("shared", func(t *testing.T) {
		dir := shared.Traces(t)
		for _, sub := range []string{"kineto", "hta"} {
			filepath.WalkDir(filepath.Join(dir, sub), func(p string, e os.DirEntry, err error) error {
				if err == nil && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")) {
					checkBlockSplits(t, p)
				}
				return nil
			})
		}
	})
}

func checkBlockSplits(t *testing.T, f string) {
	t.Helper()
	data := gunzipFile(t, f)
	whole, err := readBlocks(t, data, 1<<40)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	sizes := []int64{4093, 65536}
	if len(data) < 1<<20 {
		sizes = append(sizes, 61, 1000)
	}
	for _, size := range sizes {
		got, err := readBlocks(t, data, size)
		if err != nil {
			t.Fatalf("%s in blocks of %d: %v", f, size, err)
		}
		sameTrace(t, f, whole, got, true)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, data) == nil {
		got, err := readBlocks(t, compact.Bytes(), 4093)
		if err != nil {
			t.Fatalf("%s compacted: %v", f, err)
		}
		sameTrace(t, f+" compacted", whole, got, false)
	}
}

func gunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBlockSplitsGenerated: the same for generated traces of both eras,
// against the generator's truth.
func TestBlockSplitsGenerated(t *testing.T) {
	for _, era := range []synth.Era{synth.Era2021, synth.Modern} {
		var buf bytes.Buffer
		truth, err := synth.Write(&buf, synth.Config{Seed: 3, Era: era, Devices: 2, Streams: 3, Steps: 2, KernelsPerStep: 300, PythonEvents: 3})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := readBlocks(t, buf.Bytes(), 1<<40)
		if err != nil {
			t.Fatal(err)
		}
		if len(whole.Kernels) != truth.Kernels || whole.Meta.Events != truth.Events {
			t.Fatalf("era %v: %d kernels and %d events, want %d and %d", era, len(whole.Kernels), whole.Meta.Events, truth.Kernels, truth.Events)
		}
		for _, size := range []int64{61, 777, 4093} {
			got, err := readBlocks(t, buf.Bytes(), size)
			if err != nil {
				t.Fatal(err)
			}
			sameTrace(t, "generated", whole, got, true)
		}
	}
}

// TestEventBound: one event larger than the limit is an error, not
// unbounded memory.
func TestEventBound(t *testing.T) {
	in := []byte(`{"traceEvents":[{"name":"` + strings.Repeat("x", 3<<20) + `"}]}`)
	_, err := Options{MaxEventBytes: 1 << 20, blockBytesOpt: 4096}.read(context.Background(), "in.json", bytes.NewReader(in), int64(len(in)))
	if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("err = %v", err)
	}
	if tr, err := readBlocks(t, in, 4096); err != nil || tr.Meta.Events != 1 {
		t.Errorf("within the limit: %v", err)
	}
}

// FuzzBlockSplits: on any input, reading in small blocks, with the tables
// sized from samples first, gives the same outcome as reading in one: the
// same records and warnings, or the same error at the same byte.
func FuzzBlockSplits(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":1,`+deviceProps+`,"traceEvents":`+events+`}`), uint8(7))
	f.Add([]byte(events), uint8(1))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"a},{b","pid":0,"tid":7,"ts":1,"dur":2},{"ph":"X","cat":"cpu_op","args":{"x":[{"a":1},{"b":"},{"}]}}]}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		whole, werr := readBlocks(t, data, 1<<40)
		bs := 8 + int64(size)%120
		got, err := readWith(Options{blockBytesOpt: bs, reserveFrom: 1}, data) // and the tables sized from samples
		if (werr == nil) != (err == nil) {
			t.Fatalf("one block: %v; blocks of %d: %v", werr, bs, err)
		}
		if err != nil {
			if werr.Error() != err.Error() {
				t.Fatalf("one block: %v; blocks of %d: %v", werr, bs, err)
			}
			return
		}
		sameTrace(t, "fuzz", whole, got, true)
	})
}

// TestContentSize checks the guess of a gzip file's content size from its
// trailer, which holds the size modulo 4 GiB.
func TestContentSize(t *testing.T) {
	for _, c := range []struct {
		in   input
		want int64
	}{
		{input{size: 1000}, 1000},
		{input{gzipped: true, size: 1000, isize: 18_000}, 18_000},
		{input{gzipped: true, size: 1000, isize: 999}, 8000}, // wrapped around
		{input{gzipped: true, size: 1000}, 8000},             // no trailer read
	} {
		if got := c.in.contentSize(); got != c.want {
			t.Errorf("%+v: contentSize %d, want %d", c.in, got, c.want)
		}
	}
}

// TestGzipContentSize checks the guess once part of a gzip file is read:
// the trailer's value plus the multiple of 4 GiB nearest the projection,
// unless that is more than four times the projection.
func TestGzipContentSize(t *testing.T) {
	const ten = 10_005_703_558 // a generated 10 GB trace (tracegen -size 10GB); gzip -1 makes 1,144,426,270 bytes of it
	for _, c := range []struct {
		name                        string
		size, isize, read, inflated int64
		want                        int64
	}{
		{"too little read", 1_144_426_270, ten % (1 << 32), 1 << 20, 9 << 20, ten % (1 << 32)},
		{"wrapped twice", 1_144_426_270, ten % (1 << 32), 100 << 20, 874 << 20, ten},
		{"projection 35 % high", 54_000_000, 1_013_590_834, 8 << 20, 200 << 20, 1_013_590_834},
		{"trailer below what was inflated", 10 << 20, 5, 5 << 20, 100 << 20, 200 << 20},
		// Cut files, whose last four bytes are compressed data.
		{"cut, before 128 KiB read", 124_111, 1<<32 - 128, 65_536, 200_000, gzipMaxRatio * 124_111},
		{"cut, from 128 KiB read", 10_000_000, 4_066_927_124, 2 << 20, 20 << 20, 100_000_000},
		{"cut, from 4 MiB read", 28_000_000, 2_000_000_000, 8 << 20, 80 << 20, 280_000_000},
		{"projection 3.5 times low", 1_000_000, 20_000_000, 1 << 20, 6 << 20, 20_000_000},
	} {
		if got := gzipContentSize(c.size, c.isize, c.read, c.inflated); got != c.want {
			t.Errorf("%s: gzipContentSize(%d, %d, %d, %d) = %d, want %d", c.name, c.size, c.isize, c.read, c.inflated, got, c.want)
		}
	}
}

// TestWorkersShared: files read at once with one Workers share its
// workers (a file takes those free, at least one, and more as they are
// given back), and every read gives its workers back, whether it succeeds,
// fails or is cancelled.
func TestWorkersShared(t *testing.T) {
	p := runtime.GOMAXPROCS(0)
	workers := NewWorkers(p)
	budget := workers.b
	var buf bytes.Buffer
	if _, err := synth.Write(&buf, synth.Config{Seed: 5, Devices: 1, Streams: 2, Steps: 2, KernelsPerStep: 200}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	bad := slices.Clone(good)
	bad[len(bad)/2] = '\x00'
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	want, err := Options{blockBytesOpt: 4096}.read(context.Background(), "good.json", bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}

	// A file started while every worker is busy gets one, and the others
	// once they are given back (here, after its first blocks are read).
	budget.Take(p, p)
	held, calls := true, 0
	var most int
	grow := Options{Workers: workers, blockBytesOpt: 4096, Progress: func(int) {
		if calls++; calls == 4 && held {
			budget.Give(p)
			held = false
		} else if !held {
			most = max(most, budget.Busy())
		}
	}}
	got, err := grow.read(context.Background(), "grow.json", chunks{bytes.NewReader(good)}, int64(len(good)))
	if held {
		budget.Give(p)
		t.Fatalf("%d reads of %d bytes: too few to give the workers back", calls, len(good))
	}
	if err != nil {
		t.Fatal(err)
	}
	sameTrace(t, "growing workers", want, got, true)
	if most != p {
		t.Errorf("a file started with every worker busy had at most %d, want GOMAXPROCS = %d once they were free", most, p)
	}
	reads := []struct {
		ctx  context.Context
		data []byte
		ok   bool // a cut file is read, with a warning
	}{
		{context.Background(), good, true}, {context.Background(), bad, false},
		{context.Background(), good[:len(good)/3], true}, {cancelled, good, false},
	}
	const copies = 4
	var peak atomic.Int64
	var wg sync.WaitGroup
	for i := range copies * len(reads) {
		r := reads[i%len(reads)]
		wg.Go(func() {
			peak.Store(max(peak.Load(), int64(budget.Busy())))
			o := Options{Workers: workers, blockBytesOpt: 4096}
			got, err := o.read(r.ctx, "in.json", bytes.NewReader(r.data), int64(len(r.data)))
			if (err == nil) != r.ok {
				t.Errorf("read %d: err = %v, want ok = %v", i, err, r.ok)
			}
			if err == nil && len(r.data) == len(good) {
				sameTrace(t, "shared workers", want, got, true)
			}
		})
	}
	wg.Wait()
	if n := budget.Busy(); n != 0 {
		t.Errorf("%d workers still busy after every read ended", n)
	}
	if n := peak.Load(); n > int64(p+copies*len(reads)) {
		t.Errorf("%d workers busy at once for %d files, GOMAXPROCS %d", n, copies*len(reads), p)
	}
}

// chunks reads at most 4 kB at a time.
type chunks struct{ r io.Reader }

func (c chunks) Read(b []byte) (int, error) { return c.r.Read(b[:min(len(b), 4096)]) }

// TestReserve: the sizes of the tables reserve sizes (blocks.ReserveMinRecords
// records or more) are estimated from samples within 10 %, for generated
// traces in Kineto's order and mixed and for the real trace the README's
// real-layout row repeats; and a read whose tables were reserved holds the
// same records as one whose tables grew.
func TestReserve(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		t.Run(fmt.Sprintf("generated, interleave=%v", interleave), func(t *testing.T) {
			var buf bytes.Buffer
			if _, err := synth.Write(&buf, synth.Config{Seed: 5, Streams: 4, Steps: 4, KernelsPerStep: 2000,
				GraphLaunches: 10, PythonEvents: 4, Interleave: interleave}); err != nil {
				t.Fatal(err)
			}
			checkReserve(t, buf.Bytes())
		})
	}
	t.Run("HTA rank 0", func(t *testing.T) {
		checkReserve(t, gunzipFile(t, filepath.Join(shared.Traces(t), "hta/negative_queue_length_values_check/rank0.json.gz")))
	})
}

func checkReserve(t *testing.T, data []byte) {
	t.Helper()
	grown, err := readBlocks(t, data, defaultBlockBytes)
	if err != nil {
		t.Fatal(err)
	}
	from := int64(bytes.Index(data, []byte(`"traceEvents"`)))
	est := sampleTables(bytes.NewReader(data), from, int64(len(data)), &input{workers: NewWorkers(runtime.GOMAXPROCS(0))})
	for i, n := range tableLens(grown) {
		if n >= blocks.ReserveMinRecords && math.Abs(est[i]-float64(n)) > 0.1*float64(n) {
			t.Errorf("table %d: %.0f records estimated, %d read", i, est[i], n)
		}
	}
	reserved, err := readWith(Options{reserveFrom: 1}, data)
	if err != nil {
		t.Fatal(err)
	}
	sameTrace(t, "reserved", grown, reserved, true)
}

// TestReserveBound: what reserve reserves takes no more memory than the
// events' bytes, here a file of kernels only, whose records are larger
// than their events.
func TestReserveBound(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range 100_000 {
		fmt.Fprintf(&b, `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,"args":{"device":0,"stream":7}},`, i)
	}
	b.WriteString(`{}]}`)
	in := &input{opts: Options{reserveFrom: 1}, workers: NewWorkers(runtime.GOMAXPROCS(0))}
	s := &tableSink{d: &kinetoDecoder{in: in, t: &Trace{}}}
	s.reserve(bytes.NewReader(b.Bytes()), 0, int64(b.Len()))
	got := tableBytes(s.d.t)
	if got == 0 || got > b.Len() {
		t.Errorf("%d bytes reserved for %d bytes of events", got, b.Len())
	}
}

// TestCutGzipTables: a gzip file cut short has compressed data where its
// trailer should be, which may claim any size up to 4 GiB; its tables are
// sized from the file, not from that claim (they took 673 and 935 MB of
// these 0.1 and 1.6 MB files before). The events are interleaved, so that
// blocks mix kinds and their projections are trusted.
func TestCutGzipTables(t *testing.T) {
	for _, steps := range []int{2, 32} {
		var buf bytes.Buffer
		cfg := synth.Config{Seed: 3, Devices: 2, Streams: 2, Steps: steps, KernelsPerStep: 200, Interleave: true}
		if _, err := synth.Write(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		whole := gz(buf.Bytes())
		read := func(data []byte) *Trace {
			tr, err := Options{}.read(context.Background(), "in.json.gz", bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%d steps, %d bytes: %v", steps, len(data), err)
			}
			return tr
		}
		// Cut three quarters in, where the last four bytes claim over 2 GiB.
		n := len(whole) * 3 / 4
		for binary.LittleEndian.Uint32(whole[n-4:]) < 1<<31 {
			n++
		}
		cut := read(whole[:n])
		if len(cut.Warnings) == 0 || !strings.Contains(cut.Warnings[0], "truncated") {
			t.Errorf("%d steps: warnings %q, want truncated", steps, cut.Warnings)
		}
		// Until 128 KiB are read, the trailer is believed up to gzipMaxRatio
		// times the file, and the tables take less than that content would;
		// then the projection is, and they take about what the whole
		// file's do.
		most := gzipMaxRatio * n
		if n >= 128<<10 {
			most = tableBytes(read(whole)) * 3 / 2
		}
		if got := tableBytes(cut); got > most {
			t.Errorf("%d steps, cut to %d bytes: tables of %d bytes, want at most %d", steps, n, got, most)
		}
	}
}

// tableBytes is the memory the record tables of t hold, at their capacity.
func tableBytes(t *Trace) int {
	return cap(t.Kernels)*int(unsafe.Sizeof(Kernel{})) + cap(t.Memcpys)*int(unsafe.Sizeof(Memcpy{})) +
		cap(t.Memsets)*int(unsafe.Sizeof(Memset{})) + cap(t.Syncs)*int(unsafe.Sizeof(Sync{})) +
		cap(t.APICalls)*int(unsafe.Sizeof(APICall{})) + cap(t.Ops)*int(unsafe.Sizeof(Op{}))
}
