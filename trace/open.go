package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"

	"github.com/traceql/traceql/internal/pages"
	"github.com/traceql/traceql/trace/internal/blocks"
)

// A format is one input format: it recognises its files by their first
// bytes and decodes them into a Trace.
type format interface {
	sniff(head []byte) bool
	decode(ctx context.Context, in *input) (*Trace, error)
}

// formats lists the supported formats in the order they are tried.
func formats() []format {
	return []format{kinetoFormat{}, nsysFormat{}}
}

// An input is an opened trace file, decompressed when it was gzipped.
type input struct {
	path         string
	r            *bufio.Reader // positioned at the first byte of the (decompressed) content
	src          io.Reader     // what r buffers, for reads big enough not to need r's buffer
	head         []byte        // up to headLen bytes of the content, not consumed from r
	leadingSpace int64         // bytes of whitespace consumed before head
	gzipped      bool
	gz           *gzipReader // the gzip stream, when gzipped
	size         int64       // on-disk size
	isize        int64       // a gzip file's last four bytes: its content's size modulo 4 GiB
	file         *fileReader // the file, counting the bytes read
	opts         Options
	workers      *Workers // opts.Workers, or the read's own
}

// newDecoder returns an event decoder for a block worker.
func (in *input) newDecoder() blocks.Decoder[*part] { return newEventDecoder(in) }

const headLen = 512

// contentSize guesses the size of the content: the file's, or for gzip
// what gzipContentSize makes of the trailer and of the part inflated so far.
// alloc says how the tables of the read are made: the collector held as
// Options.HoldGC says, their pages written by the read's workers.
func (in *input) alloc() pages.Options {
	return pages.Options{Hold: in.opts.HoldGC, Workers: in.workers.b.Size()}
}

func (in *input) contentSize() int64 {
	if !in.gzipped {
		return in.size
	}
	var read, inflated int64
	if in.file != nil && in.gz != nil {
		read, inflated = in.file.n.Load(), in.gz.n.Load()
	}
	return gzipContentSize(in.size, in.isize, read, inflated)
}

// gzipContentSize guesses the content size of a gzip file of size bytes
// whose trailer says isize, the size modulo 4 GiB, and of which read bytes
// inflated to inflated bytes so far. It is isize, or eight times the
// file's size where isize must have wrapped around (Kineto JSON compresses
// 7 to 30 times). From 4 MiB read it is isize plus the multiple of 4 GiB
// nearest to what the ratio so far projects for the whole file: exact
// wherever the projection is within 2 GiB. The trailer alone is not, above
// 4 GiB: a 10 GB trace compressed 8.7 times looked like 1.4 GB, and its
// tables, projected for that, grew a quarter at a time.
//
// A file cut short (a profiler killed while writing, a copy stopped) has
// compressed data where its trailer should be, which may claim anything up
// to 4 GiB: a cut 2 MB file made tables for gigabytes. So the trailer is
// believed up to gzipMaxRatio times the file's size, and from 128 KiB read
// (twice the read buffer, so that what was read ahead of the inflater is
// at most half), up to four times the projection, which is taken instead.
// On the real traces in ../shared, the projection from 256 KiB is 0.61 to
// 1.46 times the content size.
func gzipContentSize(size, isize, read, inflated int64) int64 {
	c := isize
	if isize < size {
		c = 8 * size
	}
	if read < 128<<10 {
		return min(c, gzipMaxRatio*size)
	}
	proj := float64(inflated) / float64(read) * float64(size)
	if read >= 4<<20 {
		c = isize + int64(math.Round((proj-float64(isize))/(1<<32)))<<32
	}
	if c < inflated || float64(c) > 4*proj {
		return int64(proj)
	}
	return c
}

// gzipMaxRatio is the most a gzip trailer is believed to say before the
// projection, as a multiple of the file's size: twice the ratio of the
// most compressible trace in ../shared (30). A file that compresses more
// has its tables grown more often.
const gzipMaxRatio = 64

// ContentSize estimates, without reading it, how many bytes a read of
// path decodes: the file's size, or for a gzip file what its trailer
// records (see contentSize). It is for deciding whether a read is long.
func ContentSize(path string) (int64, error) {
	in, _, err := probe(path)
	if err != nil {
		return 0, err
	}
	return in.contentSize(), nil
}

// Footprint estimates, without reading it, the most memory a read of path
// and its summary take, for deciding how many files to read at once:
// half the content of a Kineto trace, and three times the size of an
// Nsight export: above the peak RSS of summarize on the generated and
// real-layout Kineto traces and Nsight exports of PERFORMANCE.md, plain or
// gzipped. A gzip file's content is taken as at least eight times its
// size, as traces compress 7 to 30 times and a trailer holds the size
// modulo 4 GiB only.
func Footprint(path string) (int64, error) {
	in, sqlite, err := probe(path)
	switch {
	case err != nil:
		return 0, err
	case sqlite:
		return 3 * in.size, nil
	case in.gzipped:
		return max(in.contentSize(), 8*in.size) / 2, nil
	}
	return in.size / 2, nil
}

// probe reads the first and last bytes of the file at path: its size, and
// whether it is gzipped (with the trailer's size) or an SQLite database.
func probe(path string) (in input, sqlite bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return in, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return in, false, err
	}
	in.size = st.Size()
	head := make([]byte, len(sqliteMagic))
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if isGzip(head) {
		in.gzipped = true
		var b [4]byte
		if _, err := f.ReadAt(b[:], in.size-4); err == nil {
			in.isize = int64(binary.LittleEndian.Uint32(b[:]))
		}
	}
	return in, nsysFormat{}.sniff(head), nil
}

// Options tune how a trace is read.
type Options struct {
	// Strict turns every recoverable problem (skipped events, a truncated
	// file) into an error.
	Strict bool
	// Needs declares the host data the caller reads; nil reads every
	// host event but python_function's. See Needs.
	Needs *Needs
	// Select, when set, is the part of the trace the caller measures (a
	// filter, a window), which Open applies to the trace it read and
	// returns. When the trace has GPU activity and the part selected has
	// none, that part is summarized by its host side: if the read left
	// host events out for Needs, Open reads the file again with all of
	// them and selects again.
	Select func(*Trace) (*Trace, error)
	// MaxEventBytes bounds one event of a Kineto trace, and with it how
	// deep its values nest: a file with no event boundary for longer, as
	// a gzip bomb of one huge string or of arrays nested a billion deep,
	// is refused before reading it takes some five times that in memory.
	// It bounds one string of an Nsight export too, and four times it
	// the names read together.
	// Callers derive it from the memory available; 0 is 1 GiB.
	MaxEventBytes int
	// Workers is the budget of goroutines that decode a Kineto trace in
	// parallel. Files read at once should share one (NewWorkers), so that
	// each takes those free instead of a full set; nil gives each read
	// its own, of GOMAXPROCS. Reads that share Workers reuse each other's
	// buffers too: a program that reads many small files should pass one,
	// even to reads one after another.
	Workers *Workers
	// HoldGC, when set, is called before a table of many megabytes is
	// made and its pages written, and the function it returns after. A
	// program may hold the garbage collector off meanwhile, which would
	// otherwise scan the fresh table on the other cores while it is
	// written, doubling its page faults; the setting is process-wide,
	// so the program decides.
	HoldGC func() (release func())
	// Progress, when set, is called with the number of bytes of the file
	// read since the last call, possibly from several goroutines at once.
	// SQLite reads an Nsight export itself: for those, the bytes are the
	// share of the file that the rows read since the last call stand for.
	Progress func(n int)

	// Sizes that tests lower; 0 is the default.
	blockBytesOpt int64 // the size of a block of the events array (defaultBlockBytes)
	reserveFrom   int64 // the smallest events array whose tables are sized from samples
}

// defaultBlockBytes is the size of the blocks of a Kineto trace's events
// array that are decoded in parallel; smaller inputs get smaller ones.
const defaultBlockBytes = 1 << 20

func (o *Options) blockBytes() int64 { return cmp.Or(o.blockBytesOpt, defaultBlockBytes) }

// Workers is a budget of goroutines for decoding, shared by the reads
// going on at once: each takes those free, at least one, and more as
// other reads end and give theirs back. Reads that took a full set each
// would hold blocks in flight and decoders growing as the square of the
// number of cores. The reads also share the buffers they decode into.
type Workers struct {
	b     *blocks.Budget
	parts sync.Pool // of *part, emptied (part.recycle)
}

// NewWorkers returns a budget of n workers, at least one: GOMAXPROCS for a
// process that reads traces and does little else.
func NewWorkers(n int) *Workers { return &Workers{b: blocks.NewBudget(n)} }

// A fileReader reads the file, counting the bytes read (atomically: the
// gzip content size is projected from the count while the file is read)
// and reporting them to the progress function, when there is one.
type fileReader struct {
	r        io.Reader
	n        atomic.Int64
	progress func(int)
}

func (f *fileReader) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	if n > 0 {
		f.n.Add(int64(n))
		if f.progress != nil {
			f.progress(n)
		}
	}
	return n, err
}

// Open reads the trace at path in whichever supported format it is.
func Open(ctx context.Context, path string) (*Trace, error) {
	return Options{}.Open(ctx, path)
}

// Needs are the host data of a Kineto trace that a caller reads, besides
// what every GPU metric reads (launches and syncs, the ProfilerStep#N
// ranges, torch.compile's ops: isCompileOp), for Options.Needs. A read
// skips the other host events of a trace with GPU activity: they are a
// third of the time or more that a real trace takes to read. Only a host
// summary reads them all: a trace that turns out to have no GPU activity
// is read again with them, and so is one whose selection (Options.Select)
// has none. Options.Strict, which checks every event, keeps them all.
// The events skipped are checked only as far as their ends are found.
type Needs struct {
	// Stacks keeps python_function events (Ops of kind PythonFunction),
	// and every cpu_op, the frames of the host stacks that pprof writes.
	Stacks bool
	// Ops keeps every cpu_op (Ops of kind CPUOp).
	Ops bool
	// Polls keeps the runtime and driver calls that poll
	// (cudaEventQuery, cudaStreamQuery, and the driver's and HIP's
	// names), which neither launch nor wait for device work.
	Polls bool
	// Op names the cpu_ops kept when Ops does not keep them all: the
	// range that --range measures may be one.
	Op string
	// Shapes keeps every cpu_op and, on those named in ShapesOf (all when
	// nil) or that carry a "flops" argument, their recorded shapes
	// (Op.Args): what a FLOP model reads. Parsing them costs a read of
	// every op's arguments, so only commands that show FLOPs ask.
	Shapes   bool
	ShapesOf map[string]bool
	// LaunchArgs keeps what launch calls record of their kernels
	// (Trace.LaunchArgs): what pairs a graph's capture with its replays.
	LaunchArgs bool
}

// needs returns what a read keeps, and whether it leaves host events out.
func (o *Options) needs() (n Needs, lean bool) {
	if o.Needs == nil {
		return Needs{Ops: true, Polls: true}, false
	}
	return *o.Needs, !o.Strict
}

// readAll returns o reading every host event (and python_function events
// if o did), with no progress to report: the first read reported it all.
func (o Options) readAll() Options {
	n, _ := o.needs()
	o.Needs = &Needs{Stacks: n.Stacks, Ops: true, Polls: true, Shapes: n.Shapes, ShapesOf: n.ShapesOf, LaunchArgs: n.LaunchArgs}
	o.Progress = nil
	return o
}

// Open reads the trace at path with these options, and returns the part
// of it that Select selects. The file is opened read-only; its format is
// told by its first bytes, never by its name.
func (o Options) Open(ctx context.Context, path string) (*Trace, error) {
	t, err := o.open(ctx, path)
	if err != nil || o.Select == nil {
		return t, err
	}
	sel, err := o.Select(t)
	if _, lean := o.needs(); err == nil && lean && t.HasGPUActivity() && !sel.HasGPUActivity() {
		if t, err = o.readAll().open(ctx, path); err != nil {
			return nil, err
		}
		sel, err = o.Select(t)
	}
	return sel, err
}

// open reads the trace at path.
func (o Options) open(ctx context.Context, path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	t, err := o.read(ctx, path, f, st.Size())
	if err == errNotLean {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		t, err = o.readAll().read(ctx, path, f, st.Size())
	}
	return t, err
}

// errNotLean says that a trace read for Options.Needs has no GPU
// activity, and had events that it skips: Open reads it again with them.
var errNotLean = errors.New("a trace without GPU activity needs all its host events")

// read decodes the content of r, which is the file at path.
func (o Options) read(ctx context.Context, path string, r io.Reader, size int64) (*Trace, error) {
	in := &input{path: path, size: size, opts: o}
	if in.workers = o.Workers; in.workers == nil {
		in.workers = NewWorkers(runtime.GOMAXPROCS(0))
	}
	if ra, ok := r.(io.ReaderAt); ok {
		var tail [4]byte
		if _, err := ra.ReadAt(tail[:], size-4); err == nil {
			in.isize = int64(binary.LittleEndian.Uint32(tail[:]))
		}
	}
	in.file = &fileReader{r: r, progress: o.Progress}
	in.r, in.src = bufio.NewReaderSize(in.file, bufSize(size)), in.file
	if err := in.peek(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(in.head) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	if isGzip(in.head) {
		zr, err := gzip.NewReader(in.r)
		if err != nil {
			return nil, fmt.Errorf("%s: bad gzip header: %w", path, err)
		}
		defer zr.Close()
		in.gzipped, in.gz = true, &gzipReader{r: zr}
		in.r, in.src = bufio.NewReaderSize(in.gz, bufSize(in.contentSize())), in.gz
		if err := in.peek(); err != nil {
			return nil, &SyntaxError{File: path, Offset: -1, Msg: "gzip", Err: err}
		}
		if len(in.head) == 0 && in.gz.cut {
			return nil, fmt.Errorf("%s: the gzip stream is cut short before any content", path)
		}
		if len(in.head) == 0 {
			return nil, fmt.Errorf("%s: empty after gunzip", path)
		}
	}
	for _, f := range formats() {
		if f.sniff(in.head) {
			t, err := f.decode(ctx, in)
			if err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	return nil, unknownFormat(path, in.head)
}

// isGzip reports whether head opens a gzip stream.
func isGzip(head []byte) bool { return bytes.HasPrefix(head, []byte{0x1f, 0x8b}) }

// peek sets in.head to the first headLen bytes of in.r, after any run of
// whitespace longer than that (JSON allows any amount before its text),
// which is consumed and counted in in.leadingSpace.
func (in *input) peek() error {
	for {
		head, err := in.r.Peek(headLen)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return err
		}
		if len(head) < headLen || len(bytes.TrimLeft(head, " \t\r\n")) > 0 {
			in.head = head
			return nil
		}
		in.r.Discard(len(head))
		in.leadingSpace += int64(len(head))
	}
}

// gzipReader reads a gzip stream and reports one cut short as its end: the
// JSON in it ends early too, which the decoder reports as truncation. cut
// records it, for a stream cut in its trailer, after a complete JSON text.
type gzipReader struct {
	r   io.Reader
	n   atomic.Int64 // bytes inflated so far
	cut bool
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.n.Add(int64(n))
	if err == io.ErrUnexpectedEOF {
		g.cut, err = true, io.EOF
	}
	return n, err
}

// bufSize picks a read buffer for content of about n bytes. It serves the
// sniffing and the JSON before the events, which the scanner reads 64 kB at
// a time; the events are read past it, a block at a time. A larger buffer
// would be most of what a folder of small ranks allocates.
func bufSize(n int64) int {
	return int(min(max(n, headLen), 64<<10))
}

func unknownFormat(path string, head []byte) error {
	hint := "expected a PyTorch profiler/Kineto JSON trace (.json, .json.gz) or an Nsight Systems SQLite export (.sqlite)"
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".nsys-rep", ".qdrep":
		hint = fmt.Sprintf("%s is an Nsight Systems report: run `nsys export --type sqlite %s` and pass the .sqlite file", ext, path)
	}
	return fmt.Errorf("%s: %w: %s", path, ErrUnknownFormat, hint)
}
