package trace

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"sync"

	"github.com/traceql/traceql/trace/internal/blocks"
)

// defaultMaxEventBytes bounds one event when Options.MaxEventBytes does
// not, so that a file with no event boundary does not take unbounded
// memory.
const defaultMaxEventBytes = 1 << 30

// A tableSink adds the parts that the block stitcher hands over, in file
// order, to the trace's tables, growing them as it goes.
type tableSink struct {
	d     *kinetoDecoder
	since [tableCount]int64 // per table, the offset where its records began (see grow)
	alone [tableCount]bool  // per table, whether it had a part to itself
}

// take adds a decoded part's records to the trace, or returns its error,
// with the event numbered in the whole file. Parts come in file order.
func (s *tableSink) take(p *part) error {
	t := s.d.t
	if p.err != nil {
		return &SyntaxError{File: s.d.in.path, Offset: p.err.off, Msg: p.err.msg(t.Meta.Events + p.err.index)}
	}
	if p.n == 0 {
		return nil
	}
	s.grow(p)
	for _, tab := range recordTables {
		tab.move(t, &p.t)
	}
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
func (s *tableSink) grow(p *part) {
	t := s.d.t
	counts, held := tableLens(&p.t), tableLens(t)
	kinds := 0
	for _, n := range counts {
		if n > 0 {
			kinds++
		}
	}
	big := p.size >= 64<<10
	size, alloc := s.d.in.contentSize(), s.d.in.alloc()
	for i, n := range counts {
		if n > 0 && held[i] == 0 {
			s.since[i] = p.end - int64(p.size)
		}
		if n > 0 && big && kinds == 1 {
			s.alone[i] = true
		}
		recordTables[i].grow(t, alloc, n, s.since[i], p.end, size, big && !s.alone[i])
	}
}

// reserveFrom is the smallest events array whose tables are sized from
// samples (Options.reserveFrom).
const reserveFrom = 256 << 20

// reserve sizes the trace's tables for the events in bytes [from, end) of
// a plain file, before they are read. Growing a table as it fills makes a
// fresh one and copies the records over: each time, the new table's pages
// are faulted in, and the old one is left to the collector. The sizes are
// estimated from samples of the events (sampleTables); a table estimated at fewer than
// blocks.ReserveMinRecords records is left to grow. All that is reserved takes no
// more memory than the events' bytes, so that a file dense only where it
// was sampled cannot make the reader take more.
func (s *tableSink) reserve(ra io.ReaderAt, from, end int64) {
	if end-from < cmp.Or(s.d.in.opts.reserveFrom, reserveFrom) {
		return
	}
	est := sampleTables(ra, from, end, s.d.in)
	var total float64
	for i, n := range est {
		total += n * blocks.ReserveMargin * float64(recordTables[i].recordBytes())
	}
	if over := total / float64(end-from); over > 1 {
		for i := range est {
			est[i] /= over
		}
	}
	// The tables are made at once, their pages written by all cores.
	t, alloc := s.d.t, s.d.in.alloc()
	var wg sync.WaitGroup
	for i, tab := range recordTables {
		wg.Go(func() { tab.reserve(t, alloc, est[i]) })
	}
	wg.Wait()
}

// sampleTables estimates how many records each table gets from the events
// in bytes [from, end) of ra, a file read with in (blocks.Sample).
func sampleTables(ra io.ReaderAt, from, end int64, in *input) (est [tableCount]float64) {
	counts := blocks.Sample(ra, from, end, in.workers.b, in.newDecoder, func(p *part) []int {
		n := tableLens(&p.t)
		p.recycle()
		return n[:]
	})
	copy(est[:], counts)
	return est
}

// events reads the elements of the traceEvents array; '[' is consumed.
// Afterwards the scanner holds the bytes after the closing ']'.
func (d *kinetoDecoder) events(bare bool) error {
	sc := d.sc
	sink := &tableSink{d: d}
	limit := cmp.Or(d.in.opts.MaxEventBytes, defaultMaxEventBytes)
	s := blocks.NewStitcher(blocks.Config[*part]{NewDecoder: d.in.newDecoder, Take: sink.take,
		MaxElemBytes: limit, Workers: d.in.workers.b}, sc.Offset(), blocks.First)
	err := s.Decode(sc.Buffered())
	var readErr error
	var readErrAt int64
	if err == nil && sc.Err() == nil && s.State() != blocks.End {
		// Blocks are read past the buffer of the scanner's reader, which
		// would copy every byte once more.
		r := io.MultiReader(io.LimitReader(d.in.r, int64(d.in.r.Buffered())), d.in.src)
		if ra, ok := d.in.file.r.(io.ReaderAt); ok && !d.in.gzipped {
			sink.reserve(ra, sc.BufferedEnd(), d.in.size)
		}
		size := min(max(d.in.contentSize(), 64<<10), d.in.opts.blockBytes())
		readErr, readErrAt, err = s.ReadBlocks(d.ctx, r, size)
	} else if err == nil && sc.Err() != io.EOF {
		readErr, readErrAt = sc.Err(), sc.BufferedEnd()
	}
	if err == nil && s.State() != blocks.End {
		err = s.Flush()
	}
	if tl, ok := err.(*blocks.TooLargeError); ok {
		return &SyntaxError{File: d.in.path, Offset: tl.Off,
			Msg: fmt.Sprintf("an event larger than %s, the most the memory available allows reading (a huge string or deep nesting: a decompression bomb?)", mib(tl.Limit))}
	}
	if err != nil {
		return err
	}
	rest, restOff := s.Rest()
	if s.State() == blocks.End {
		sc.Resume(rest, restOff, readErr)
		return nil
	}
	if readErr != nil {
		if readErr == d.ctx.Err() {
			return readErr
		}
		return &SyntaxError{File: d.in.path, Offset: readErrAt, Msg: "read", Err: readErr}
	}
	trimmed := bytes.TrimLeft(rest, " \t\r\n")
	if bare && len(trimmed) == 0 {
		// The Chrome array format may omit the closing ']'. Nothing is
		// left to read.
		sc.Resume(nil, restOff+int64(len(rest)), io.EOF)
		return nil
	}
	return d.truncated(restOff + int64(len(rest)-len(trimmed)))
}

// mib writes n bytes in MiB, or KiB below one.
func mib(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
