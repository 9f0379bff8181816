package trace

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/traceql/traceql/internal/pages"
	"github.com/traceql/traceql/trace/internal/jsonlex"
)

// The events array, nearly all of a Kineto file, is read in blocks of a megabyte
// that workers decode in parallel. A block's first event is not
// known until the block before it is decoded, so each worker guesses it:
// the first '{' after `},` (an element boundary in any JSON writer's
// layout). The stitcher, walking the blocks in order, decodes the bytes
// between one block's last complete event and the next block's guess. When
// they end exactly on a ',' of the array, the guess was right and the
// worker's records are kept; otherwise (a guess inside a string or a
// nested object) the block is decoded again, sequentially, from where the
// stitcher stands. Records are therefore always those of a sequential read.

// defaultMaxEventBytes bounds one event when Options.MaxEventBytes does
// not, so that a file with no event boundary does not take unbounded
// memory.
const defaultMaxEventBytes = 1 << 30

// blockBytes is the size of a block; smaller inputs get smaller ones. A
// variable so that tests can lower it.
var blockBytes int64 = 1 << 20

// A block is a run of the file's bytes and a worker's guessed decoding.
type block struct {
	off  int64 // file offset of buf[0]
	buf  []byte
	spec int      // index of the guessed first event, or -1
	stop int      // where the worker's decoding stopped
	st   arrState // and in which state
	part *part
	done chan struct{} // closed when the worker is finished
}

// guessEventStart returns the index of the first '{' that follows '}' and
// ',' (with optional whitespace), or -1.
func guessEventStart(b []byte) int {
	for j := 0; ; {
		k := bytes.IndexByte(b[j:], ',')
		if k < 0 {
			return -1
		}
		c := j + k
		l := c - 1
		for l >= 0 && jsonlex.IsSpace(b[l]) {
			l--
		}
		if r := jsonlex.SkipSpace(b, c+1); l >= 0 && b[l] == '}' && r < len(b) && b[r] == '{' {
			return r
		}
		j = c + 1
	}
}

// A blockReader reads blocks from r and hands them to workers.
type blockReader struct {
	order chan *block   // every block, in file order
	work  chan *block   // to the workers
	free  chan []byte   // buffers to reuse (nil: allocate one)
	quit  chan struct{} // closed to stop reading
	wg    sync.WaitGroup
	err   error // a read error, or the context's; valid once order is closed
	errAt int64
}

// workersBusy counts the block workers of all files being read. Files read
// at once (a folder of ranks) share GOMAXPROCS workers instead of taking
// GOMAXPROCS each, whose blocks in flight and decoders grew as its square:
// 3.1 GB for 64 ranks of 50 MB at GOMAXPROCS=32, 0.9 GB shared.
var workersBusy atomic.Int64

// takeWorkers reserves up to most of the workers free now, and at least
// least; each is given back with workersBusy.Add(-1).
func takeWorkers(most, least int) int {
	for {
		busy := workersBusy.Load()
		n := min(int64(most), max(int64(least), int64(runtime.GOMAXPROCS(0))-busy))
		if n <= 0 {
			return 0
		}
		if workersBusy.CompareAndSwap(busy, busy+n) {
			return int(n)
		}
	}
}

// startBlocks reads blocks from r and decodes them with the workers free,
// at least one, and more as other files' reads end and give theirs back,
// up to GOMAXPROCS; each worker adds two blocks in flight.
func (d *kinetoDecoder) startBlocks(r io.Reader, off int64) *blockReader {
	most := max(1, runtime.GOMAXPROCS(0))
	inflight := 2*most + 2
	size := min(max(d.in.contentSize(), 64<<10), blockBytes)
	br := &blockReader{
		order: make(chan *block, inflight),
		work:  make(chan *block, inflight),
		free:  make(chan []byte, inflight),
		quit:  make(chan struct{}),
	}
	br.free <- nil
	br.free <- nil
	workers := 0
	addWorkers := func(n int) {
		workers += n
		for range n {
			br.free <- nil
			br.free <- nil
			br.wg.Add(1)
			go func() {
				defer br.wg.Done()
				defer workersBusy.Add(-1)
				dec := newEventDecoder(d.in)
				for b := range br.work {
					if b.spec = guessEventStart(b.buf); b.spec >= 0 {
						b.stop, b.st, b.part = dec.events(b.buf[b.spec:], b.off+int64(b.spec), stElem)
						b.stop += b.spec
					}
					close(b.done)
				}
			}()
		}
	}
	addWorkers(takeWorkers(most, 1))
	go func() {
		defer close(br.order)
		defer close(br.work)
		for {
			if workers < most {
				addWorkers(takeWorkers(most-workers, 0))
			}
			var buf []byte
			select {
			case buf = <-br.free:
			case <-br.quit:
				return
			case <-d.ctx.Done():
				br.err, br.errAt = d.ctx.Err(), off
				return
			}
			if buf == nil {
				buf = newBlockBuf(int(size))
			}
			n, err := readFull(r, buf[:size])
			if n > 0 {
				b := &block{off: off, buf: buf[:n], done: make(chan struct{})}
				off += int64(n)
				br.work <- b
				br.order <- b
			}
			if err != nil {
				if err != io.EOF {
					br.err, br.errAt = err, off
				}
				return
			}
		}
	}()
	return br
}

// readFull fills buf unless the input ends first: io.EOF then.
func readFull(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (br *blockReader) recycle(b *block) {
	br.free <- b.buf[:cap(b.buf)]
}

// blockBufs keeps block buffers from one file's read to the next: a folder
// of 1 MB ranks otherwise allocated and zeroed a megabyte a file, most of
// what it allocated after the read buffer.
var blockBufs sync.Pool // of *[]byte

// newBlockBuf returns a buffer of size bytes, one kept if it is big enough.
func newBlockBuf(size int) []byte {
	if p, ok := blockBufs.Get().(*[]byte); ok && cap(*p) >= size {
		return (*p)[:size]
	}
	return make([]byte, size)
}

// release keeps the buffers of a read that has ended (order closed), those
// of rest (blocks returned by stop, whose bytes were copied out) among them.
func (br *blockReader) release(rest []*block) {
	for _, b := range rest {
		blockBufs.Put(&b.buf)
	}
	for {
		select {
		case buf := <-br.free:
			if buf != nil {
				blockBufs.Put(&buf)
			}
		default:
			return
		}
	}
}

// stop ends reading and returns the blocks read but not yet taken, in
// order, once their workers are done with them.
func (br *blockReader) stop() []*block {
	close(br.quit)
	var rest []*block
	for b := range br.order {
		<-b.done
		rest = append(rest, b)
	}
	br.wg.Wait()
	return rest
}

// A stitcher decodes, in order, what the workers could not: the events
// that cross block boundaries, and blocks whose guess was wrong.
type stitcher struct {
	d        *kinetoDecoder
	dec      *eventDecoder
	carry    []byte // bytes not decoded yet, starting at file offset carryOff
	carryOff int64
	st       arrState
	retryAt  int      // decode when the carry reaches this length
	since    [6]int64 // per table, the offset where its records began (see grow)
	solo     [6]bool  // per table, whether it had a part to itself
}

// take adds a decoded part's records to the trace, or returns its error,
// with the event numbered in the whole file. Parts come in file order.
func (s *stitcher) take(p *part) error {
	t := s.d.t
	if p.err != nil {
		return &SyntaxError{File: s.d.in.path, Offset: p.err.off, Msg: p.err.msg(t.Meta.Events + p.err.index)}
	}
	if p.n == 0 {
		return nil
	}
	s.grow(p)
	t.Kernels = append(t.Kernels, p.t.Kernels...)
	t.Memcpys = append(t.Memcpys, p.t.Memcpys...)
	t.Memsets = append(t.Memsets, p.t.Memsets...)
	t.Syncs = append(t.Syncs, p.t.Syncs...)
	t.APICalls = append(t.APICalls, p.t.APICalls...)
	t.Ops = append(t.Ops, p.t.Ops...)
	for _, m := range p.warn.order {
		s.d.warn.addN(m, p.warn.n[m])
	}
	t.Meta.Events += p.n
	s.d.leanSkipped += p.leanSkipped
	p.recycle()
	return nil
}

// grow makes room in the trace's tables for the records of p.
//
// Growing a table by copying costs time, and room to spare costs memory. A
// table is grown to the size its density since its first record projects
// for the rest of the file, a quarter over, so that a file whose kinds of
// records are mixed throughout needs about one allocation a table. But Kineto
// writes all CPU ops of a trace before its runtime calls and GPU
// activities: the density of a table that had a part to itself may stop at
// any point, and such a table (or one seen only in small parts so far)
// grows at most fourfold at a time. Big plain files have their tables
// sized from samples first (reserve), and grow here only when a sample
// guessed short.
func (s *stitcher) grow(p *part) {
	t := s.d.t
	counts, held := tableLens(&p.t), tableLens(t)
	kinds := 0
	for _, n := range counts {
		if n > 0 {
			kinds++
		}
	}
	big := p.size >= 64<<10
	var trust [len(counts)]bool
	for i, n := range counts {
		if n > 0 && held[i] == 0 {
			s.since[i] = p.end - int64(p.size)
		}
		if n > 0 && big && kinds == 1 {
			s.solo[i] = true
		}
		trust[i] = big && !s.solo[i]
	}
	size := s.d.in.contentSize()
	t.Kernels = growTable(t.Kernels, counts[0], s.since[0], p.end, size, trust[0])
	t.Memcpys = growTable(t.Memcpys, counts[1], s.since[1], p.end, size, trust[1])
	t.Memsets = growTable(t.Memsets, counts[2], s.since[2], p.end, size, trust[2])
	t.Syncs = growTable(t.Syncs, counts[3], s.since[3], p.end, size, trust[3])
	t.APICalls = growTable(t.APICalls, counts[4], s.since[4], p.end, size, trust[4])
	t.Ops = growTable(t.Ops, counts[5], s.since[5], p.end, size, trust[5])
}

// growTable makes room in table t for n more records, read up to file offset
// end of a file of about size bytes; the table's records began at offset
// since. It grows by at least a quarter, so that growth stays geometric
// when the size was guessed low (gzip), and by at most fourfold unless the
// projection is trusted.
func growTable[T any](t []T, n int, since, end, size int64, trust bool) []T {
	need := len(t) + n
	if need <= cap(t) {
		return t
	}
	more := float64(need) / float64(max(end-since, 1)) * float64(max(size-end, 0)) * 1.25
	more = max(more, float64(need)/4)
	if !trust {
		more = min(more, 3*float64(need))
	}
	// The pages are touched before the copy: copying into them first
	// spent 7 % of all CPU time on the generated 1 GB trace in
	// copy-on-write faults and TLB flushes (see package pages).
	return append(pages.Make[T](0, need+int(more)), t...)
}

// tableLens returns the lengths of t's record tables, in the order of the
// stitcher's since and solo.
func tableLens(t *Trace) [6]int {
	return [...]int{len(t.Kernels), len(t.Memcpys), len(t.Memsets), len(t.Syncs), len(t.APICalls), len(t.Ops)}
}

// Sampling, for reserve. reserveFrom is a variable so that tests can lower
// it.
var reserveFrom int64 = 256 << 20 // the smallest events array sampled

const (
	reserveBytes      = 64 << 10 // a sample
	reserveEvery      = 4 << 20  // a sample for every reserveEvery bytes of events,
	reserveMinSamples = 64       // but at least reserveMinSamples
	reserveMaxSamples = 1024     // and at most reserveMaxSamples
	reserveMargin     = 1.1      // room reserved per record estimated
	reserveMinRecords = 4096     // the fewest records estimated that are reserved
)

// reserve sizes the trace's tables for the events in bytes [from, end) of
// a plain file, before they are read. Growing a table as it fills makes a
// fresh one and copies the records over: each time, the new table's pages
// are faulted in, at 0.3 to 2.6 GB/s on the project's virtual machine, and
// the old one is left to the collector. The sizes are estimated from
// samples of the events (sampleTables); a table estimated at fewer than
// reserveMinRecords records is left to grow. All that is reserved takes no
// more memory than the events' bytes, so that a file dense only where it
// was sampled cannot make the reader take more.
func (s *stitcher) reserve(ra io.ReaderAt, from, end int64) {
	if end-from < reserveFrom {
		return
	}
	est := sampleTables(ra, from, end, s.d.in)
	recordBytes := [len(est)]uintptr{unsafe.Sizeof(Kernel{}), unsafe.Sizeof(Memcpy{}), unsafe.Sizeof(Memset{}),
		unsafe.Sizeof(Sync{}), unsafe.Sizeof(APICall{}), unsafe.Sizeof(Op{})}
	var total float64
	for i, n := range est {
		total += n * reserveMargin * float64(recordBytes[i])
	}
	if over := total / float64(end-from); over > 1 {
		for i := range est {
			est[i] /= over
		}
	}
	// The tables are made at once, their pages written by all cores.
	t := s.d.t
	var wg sync.WaitGroup
	wg.Go(func() { t.Kernels = reserveTable(t.Kernels, est[0]) })
	wg.Go(func() { t.Memcpys = reserveTable(t.Memcpys, est[1]) })
	wg.Go(func() { t.Memsets = reserveTable(t.Memsets, est[2]) })
	wg.Go(func() { t.Syncs = reserveTable(t.Syncs, est[3]) })
	wg.Go(func() { t.APICalls = reserveTable(t.APICalls, est[4]) })
	wg.Go(func() { t.Ops = reserveTable(t.Ops, est[5]) })
	wg.Wait()
}

// sampleTables estimates how many records each table gets from the events
// in bytes [from, end) of ra, a file read with in. The bytes are cut into
// equal stretches, one for every reserveEvery bytes (reserveMinSamples to
// reserveMaxSamples of them), and a sample of reserveBytes (or the whole
// stretch, if shorter) is decoded at a random place in each: its records
// per byte stand for its stretch. Samples at the same place in every
// stretch could all fall in one section of a file that repeats with a
// period near the stretch's length (a profile of several steps written
// one after another): on the README's 10 GB real layout they estimated
// twice the CPU ops it held and 39 % too few API calls. A sample's first
// event is guessed as a block's is; a wrong guess costs accuracy, never
// records, for the samples' records are dropped. Cutting samples short
// favours short events, by about one event a sample, hence samples of
// 64 KB.
func sampleTables(ra io.ReaderAt, from, end int64, in *input) [6]float64 {
	samples := min(max((end-from)/reserveEvery, reserveMinSamples), reserveMaxSamples)
	stride := (end - from) / samples
	size := min(reserveBytes, stride)
	offs := make([]int64, samples)
	rnd := rand.New(rand.NewPCG(1, 2)) // the same samples every run
	for k := range offs {
		offs[k] = from + int64(k)*stride + rnd.Int64N(stride-size+1)
	}
	// The samples are decoded by the workers free, as blocks are.
	workers := takeWorkers(runtime.GOMAXPROCS(0), 1)
	ests := make([][6]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			defer workersBusy.Add(-1)
			dec, buf := newEventDecoder(in), make([]byte, size)
			for k := w; k < len(offs); k += workers {
				n, _ := ra.ReadAt(buf, offs[k])
				spec := guessEventStart(buf[:n])
				if spec < 0 {
					continue
				}
				stop, _, p := dec.events(buf[spec:n], offs[k]+int64(spec), stElem)
				for i, c := range tableLens(&p.t) {
					ests[w][i] += float64(c) / float64(max(stop, 1)) * float64(stride)
				}
				p.recycle()
			}
		})
	}
	wg.Wait()
	var est [6]float64
	for _, e := range ests {
		for i := range est {
			est[i] += e[i]
		}
	}
	return est
}

// reserveTable gives t room for est records and reserveMargin more.
func reserveTable[T any](t []T, est float64) []T {
	c := int(est * reserveMargin)
	if est < reserveMinRecords || c <= cap(t) {
		return t
	}
	return append(pages.Make[T](0, c), t...)
}

// decode decodes the carry with b appended. An event that did not fit is
// decoded again from its start, so when a big one (64 KB or more) is cut
// short the next try waits until the carry has doubled: reading stays
// linear.
func (s *stitcher) decode(b []byte) error {
	s.carry = append(s.carry, b...)
	if len(s.carry) < s.retryAt {
		return nil
	}
	return s.flush()
}

// flush decodes what the carry holds.
func (s *stitcher) flush() error {
	n, st, p := s.dec.events(s.carry, s.carryOff, s.st)
	if err := s.take(p); err != nil {
		return err
	}
	s.consume(n, st)
	limit := cmp.Or(s.d.in.opts.MaxEventBytes, defaultMaxEventBytes)
	if len(s.carry) > limit && st != stEnd {
		return &SyntaxError{File: s.d.in.path, Offset: s.carryOff,
			Msg: fmt.Sprintf("an event larger than %s, the most the memory available allows reading (a huge string or deep nesting: a decompression bomb?)", mib(limit))}
	}
	s.retryAt = 0
	if len(s.carry) >= 64<<10 {
		s.retryAt = min(2*len(s.carry), limit+1)
	}
	return nil
}

// mib writes n bytes in MiB, or KiB below one.
func mib(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// consume drops the first n bytes of the carry, now decoded.
func (s *stitcher) consume(n int, st arrState) {
	s.carry = s.carry[:copy(s.carry, s.carry[n:])]
	s.carryOff += int64(n)
	s.st = st
}

// block adds the next block: the bytes up to the worker's guess are
// decoded here; when they end where the guess begins, the worker's part is
// taken, else the whole block is decoded here.
func (s *stitcher) block(b *block) error {
	if b.spec >= 0 && len(s.carry)+b.spec >= s.retryAt {
		mark := len(s.carry)
		s.carry = append(s.carry, b.buf[:b.spec]...)
		n, st, p := s.dec.events(s.carry, s.carryOff, s.st)
		switch {
		case p.err != nil || st == stEnd:
			if err := s.take(p); err != nil {
				return err
			}
			s.consume(n, st)
			s.carry = append(s.carry, b.buf[b.spec:]...)
			return nil
		case n == len(s.carry) && st == stElem:
			if err := s.take(p); err != nil {
				return err
			}
			if err := s.take(b.part); err != nil {
				return err
			}
			s.carry = append(s.carry[:0], b.buf[b.stop:]...)
			s.carryOff = b.off + int64(b.stop)
			s.st = b.st
			s.retryAt = 0
			return nil
		}
		s.carry = s.carry[:mark]
	}
	return s.decode(b.buf)
}

// events reads the elements of the traceEvents array; '[' is consumed.
// Afterwards the scanner holds the bytes after the closing ']'.
func (d *kinetoDecoder) events(bare bool) error {
	sc := d.sc
	s := &stitcher{d: d, dec: newEventDecoder(d.in), carryOff: sc.Offset(), st: stFirst}
	if err := s.decode(sc.Buffered()); err != nil {
		return err
	}
	var readErr error
	var readErrAt int64
	if sc.Err() == nil && s.st != stEnd {
		// Blocks are read past the buffer of the scanner's reader, which
		// would copy every byte once more.
		r := io.MultiReader(io.LimitReader(d.in.r, int64(d.in.r.Buffered())), d.in.src)
		if ra, ok := d.in.file.r.(io.ReaderAt); ok && !d.in.gzipped {
			s.reserve(ra, sc.BufferedEnd(), d.in.size)
		}
		br := d.startBlocks(r, sc.BufferedEnd())
		var rest []*block
		defer func() { br.release(rest) }()
		for b := range br.order {
			<-b.done
			err := s.block(b)
			br.recycle(b)
			if err == nil && s.st != stEnd {
				continue
			}
			rest = br.stop()
			for _, b := range rest {
				s.carry = append(s.carry, b.buf...)
			}
			if err != nil {
				return err
			}
			break
		}
		br.wg.Wait()
		readErr, readErrAt = br.err, br.errAt
	} else if sc.Err() != io.EOF {
		readErr, readErrAt = sc.Err(), sc.BufferedEnd()
	}
	if s.st != stEnd {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if s.st == stEnd {
		sc.Resume(s.carry, s.carryOff, readErr)
		return nil
	}
	if readErr != nil {
		if readErr == d.ctx.Err() {
			return readErr
		}
		return &SyntaxError{File: d.in.path, Offset: readErrAt, Msg: "read", Err: readErr}
	}
	rest := bytes.TrimLeft(s.carry, " \t\r\n")
	if bare && len(rest) == 0 {
		// The Chrome array format may omit the closing ']'. Nothing is
		// left to read.
		sc.Resume(nil, s.carryOff+int64(len(s.carry)), io.EOF)
		return nil
	}
	return d.truncated(s.carryOff + int64(len(s.carry)-len(rest)))
}
