package trace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
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
	path    string
	r       *bufio.Reader // positioned at the first byte of the (decompressed) content
	src     io.Reader     // what r buffers, for reads big enough not to need r's buffer
	head    []byte        // up to headLen bytes of the content, not consumed from r
	lead    int64         // bytes of whitespace consumed before head
	gzipped bool
	gz      *gzipEnd // the gzip stream, when gzipped
	size    int64    // on-disk size
	isize   int64    // a gzip file's last four bytes: its content's size modulo 4 GiB
	opts    Options
}

const headLen = 512

// contentSize guesses the size of the content: the file's, or for gzip
// the size its trailer gives, exact below 4 GiB. Where the trailer must
// have wrapped around, it is eight times the file's (Kineto JSON
// compresses 7 to 20 times).
func (in *input) contentSize() int64 {
	if !in.gzipped {
		return in.size
	}
	if in.isize >= in.size {
		return in.isize
	}
	return 8 * in.size
}

// ContentSize estimates, without reading it, how many bytes a read of
// path decodes: the file's size, or for a gzip file what its trailer
// records (see contentSize). It is for deciding whether a read is long.
func ContentSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	in := input{size: st.Size()}
	var b [4]byte
	if _, err := f.ReadAt(b[:2], 0); err == nil && b[0] == 0x1f && b[1] == 0x8b {
		in.gzipped = true
		if _, err := f.ReadAt(b[:], in.size-4); err == nil {
			in.isize = int64(binary.LittleEndian.Uint32(b[:]))
		}
	}
	return in.contentSize(), nil
}

// Options tune how a trace is read.
type Options struct {
	// Strict turns every recoverable problem (skipped events, a truncated
	// file) into an error.
	Strict bool
	// PythonStacks keeps Kineto python_function events (Ops of kind
	// PythonFunction), which are skipped by default: they are most of a big
	// trace and only the pprof export needs them.
	PythonStacks bool
	// Progress, when set, is called with the number of bytes of the file
	// read since the last call, possibly from several goroutines at once.
	// SQLite reads an Nsight export itself: for those, the bytes are the
	// share of the file that the rows read since the last call stand for.
	Progress func(n int)
}

// progressReader reports the bytes read through it. Reads at an offset
// (the gzip trailer) are not reported.
type progressReader struct {
	*os.File
	fn func(int)
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.File.Read(b)
	if n > 0 {
		p.fn(n)
	}
	return n, err
}

// Open reads the trace at path in whichever supported format it is.
func Open(ctx context.Context, path string) (*Trace, error) {
	return Options{}.Open(ctx, path)
}

// Open reads the trace at path with these options. The file is opened
// read-only; its format is told by its first bytes, never by its name.
func (o Options) Open(ctx context.Context, path string) (*Trace, error) {
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
	var r io.Reader = f
	if o.Progress != nil {
		r = progressReader{f, o.Progress}
	}
	return o.read(ctx, path, r, st.Size())
}

// read decodes the content of r, which is the file at path.
func (o Options) read(ctx context.Context, path string, r io.Reader, size int64) (*Trace, error) {
	in := &input{path: path, size: size, opts: o}
	if ra, ok := r.(io.ReaderAt); ok {
		var tail [4]byte
		if _, err := ra.ReadAt(tail[:], size-4); err == nil {
			in.isize = int64(binary.LittleEndian.Uint32(tail[:]))
		}
	}
	in.r, in.src = bufio.NewReaderSize(r, bufSize(size)), r
	if err := in.peek(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(in.head) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	if bytes.HasPrefix(in.head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(in.r)
		if err != nil {
			return nil, fmt.Errorf("%s: bad gzip header: %w", path, err)
		}
		defer zr.Close()
		in.gzipped, in.gz = true, &gzipEnd{r: zr}
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

// peek sets in.head to the first headLen bytes of in.r, after any run of
// whitespace longer than that (JSON allows any amount before its text),
// which is consumed and counted in in.lead.
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
		in.lead += int64(len(head))
	}
}

// gzipEnd reads a gzip stream and reports one cut short as its end: the
// JSON in it ends early too, which the decoder reports as truncation. cut
// records it, for a stream cut in its trailer, after a complete JSON text.
type gzipEnd struct {
	r   io.Reader
	cut bool
}

func (g *gzipEnd) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		g.cut, err = true, io.EOF
	}
	return n, err
}

// bufSize picks a read buffer for content of about n bytes: small files
// (and the fuzzer) should not pay for a megabyte.
func bufSize(n int64) int {
	return int(min(max(n, headLen), 1<<20))
}

func unknownFormat(path string, head []byte) error {
	hint := "expected a PyTorch profiler/Kineto JSON trace (.json, .json.gz) or an Nsight Systems SQLite export (.sqlite)"
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".nsys-rep", ".qdrep":
		hint = fmt.Sprintf("%s is an Nsight Systems report: run `nsys export --type sqlite %s` and pass the .sqlite file", ext, path)
	}
	return fmt.Errorf("%s: %w: %s", path, ErrUnknownFormat, hint)
}
