// Package blocks reads a JSON array of objects — a Kineto trace's events,
// nearly all of its bytes — in blocks of about a megabyte that workers
// decode in parallel, and stitches what they decoded together in file
// order, so that the records are always those of a sequential read.
//
// A block's first element is not known until the block before it is
// decoded, so each worker guesses it: the first '{' after `},` (an element
// boundary in any JSON writer's layout). The Stitcher, walking the blocks
// in order, decodes the bytes between one block's last complete element
// and the next block's guess. When they end exactly on a ',' of the array,
// the guess was right and the worker's part is kept; otherwise (a guess
// inside a string or a nested object) the block is decoded again,
// sequentially, from where the stitcher stands.
//
// It exists for speed: decoding is most of a read, and one core would do
// all of it. BenchmarkKinetoOpen in package trace (MB/s, run with -cpu
// 1,N), and whole-process `traceql summarize` of a 1 GB generated trace
// against `wc -l`, tell whether it still earns its lines: if a sequential
// read comes within a few percent of the parallel one on the cores users
// have, this package should go. TestBlockSplitsAgree and FuzzBlockSplits
// in package trace hold the records to a sequential read's.
package blocks

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/traceql/traceql/trace/internal/jsonlex"
)

// State is where a read of the array stands.
type State uint8

// States.
const (
	First State = iota // after '[': an element or ']' comes next
	Elem               // after ',': an element comes next
	After              // after an element: ',' or ']' comes next
	End                // after ']'
)

// A Part is what a decoder made of a run of consecutive elements.
type Part interface {
	// Failed reports whether malformed input stopped the run.
	Failed() bool
}

// A Decoder decodes the elements of the array in b, starting in state st,
// into a new part; base is the file offset of b[0]. It stops at the
// closing ']', at the first error (the part then reports Failed), or at
// the end of b; an element that b cuts short is left unread, so that stop
// is where decoding resumes when more bytes are at hand.
type Decoder[P Part] interface {
	Decode(b []byte, base int64, st State) (stop int, _ State, p P)
}

// GuessStart returns the index of the first '{' that follows '}' and ','
// (with optional whitespace), or -1.
func GuessStart(b []byte) int {
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

// A block is a run of the file's bytes and a worker's guessed decoding.
type block[P Part] struct {
	off   int64 // file offset of buf[0]
	buf   []byte
	guess int   // index of the guessed first element, or -1
	stop  int   // where the worker's decoding stopped
	st    State // and in which state
	part  P
	done  chan struct{} // closed when the worker is finished
}

// A reader reads blocks from r and hands them to workers.
type reader[P Part] struct {
	order  chan *block[P] // every block, in file order
	work   chan *block[P] // to the workers
	free   chan []byte    // buffers to reuse (nil: allocate one)
	quit   chan struct{}  // closed to stop reading
	wg     sync.WaitGroup
	err    error // a read error, or the context's; valid once order is closed
	errAt  int64
	budget *Budget
}

// startReader reads blocks of size bytes from r, whose first byte is at
// file offset off, and decodes them with the workers free in budget, at
// least one, and more as other reads end and give theirs back, up to the
// budget's size; each worker adds two blocks in flight.
func startReader[P Part](ctx context.Context, r io.Reader, off, size int64, budget *Budget, newDecoder func() Decoder[P]) *reader[P] {
	most := budget.Size()
	inflight := 2*most + 2
	br := &reader[P]{
		order:  make(chan *block[P], inflight),
		work:   make(chan *block[P], inflight),
		free:   make(chan []byte, inflight),
		quit:   make(chan struct{}),
		budget: budget,
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
				defer budget.Give(1)
				dec := newDecoder()
				for b := range br.work {
					if b.guess = GuessStart(b.buf); b.guess >= 0 {
						b.stop, b.st, b.part = dec.Decode(b.buf[b.guess:], b.off+int64(b.guess), Elem)
						b.stop += b.guess
					}
					close(b.done)
				}
			}()
		}
	}
	addWorkers(budget.Take(most, 1))
	go func() {
		defer close(br.order)
		defer close(br.work)
		for {
			if workers < most {
				addWorkers(budget.Take(most-workers, 0))
			}
			var buf []byte
			select {
			case buf = <-br.free:
			case <-br.quit:
				return
			case <-ctx.Done():
				br.err, br.errAt = ctx.Err(), off
				return
			}
			if buf == nil {
				buf = budget.newBuf(int(size))
			}
			n, err := readFull(r, buf[:size])
			if n > 0 {
				b := &block[P]{off: off, buf: buf[:n], done: make(chan struct{})}
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

func (br *reader[P]) recycle(b *block[P]) {
	br.free <- b.buf[:cap(b.buf)]
}

// newBuf returns a block buffer of size bytes, one that an earlier read
// gave back if it is big enough.
func (b *Budget) newBuf(size int) []byte {
	if p, ok := b.bufs.Get().(*[]byte); ok && cap(*p) >= size {
		return (*p)[:size]
	}
	return make([]byte, size)
}

// release keeps the buffers of a read that has ended (order closed), those
// of rest (blocks returned by stop, whose bytes were copied out) among them.
func (br *reader[P]) release(rest []*block[P]) {
	for _, b := range rest {
		br.budget.bufs.Put(&b.buf)
	}
	for {
		select {
		case buf := <-br.free:
			if buf != nil {
				br.budget.bufs.Put(&buf)
			}
		default:
			return
		}
	}
}

// stop ends reading and returns the blocks read but not yet taken, in
// order, once their workers are done with them.
func (br *reader[P]) stop() []*block[P] {
	close(br.quit)
	var rest []*block[P]
	for b := range br.order {
		<-b.done
		rest = append(rest, b)
	}
	br.wg.Wait()
	return rest
}
