package blocks

import (
	"context"
	"fmt"
	"io"
)

// Config says how a Stitcher decodes and where its parts go.
type Config[P Part] struct {
	// NewDecoder makes a decoder; each worker has its own.
	NewDecoder func() Decoder[P]
	// Take receives the parts, in file order; its error ends the read. A
	// part that Failed is handed over too, for Take to turn into an error.
	Take func(P) error
	// MaxElemBytes bounds one element: the read fails with a
	// *TooLargeError at one that is longer.
	MaxElemBytes int
	// Workers is the budget of workers that ReadBlocks decodes with.
	Workers *Budget
}

// A TooLargeError is an element longer than Config.MaxElemBytes.
type TooLargeError struct {
	Off   int64 // the file offset of the element
	Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("an element at byte %d longer than %d bytes", e.Off, e.Limit)
}

// A Stitcher decodes, in order, what the workers could not: the elements
// that cross block boundaries, and blocks whose guess was wrong.
type Stitcher[P Part] struct {
	c        Config[P]
	dec      Decoder[P]
	carry    []byte // bytes not decoded yet, starting at file offset carryOff
	carryOff int64
	st       State
	retryAt  int // decode when the carry reaches this length
}

// NewStitcher starts reading an array at file offset off, in state st.
func NewStitcher[P Part](c Config[P], off int64, st State) *Stitcher[P] {
	return &Stitcher[P]{c: c, dec: c.NewDecoder(), carryOff: off, st: st}
}

// State is where the read stands.
func (s *Stitcher[P]) State() State { return s.st }

// Rest returns the bytes not decoded yet (after the closing ']' once the
// state is End) and the file offset of the first.
func (s *Stitcher[P]) Rest() ([]byte, int64) { return s.carry, s.carryOff }

// Decode decodes the bytes not decoded yet with b appended. An element
// that did not fit is decoded again from its start, so when a big one
// (64 KB or more) is cut short the next try waits until the bytes held
// have doubled: reading stays linear.
func (s *Stitcher[P]) Decode(b []byte) error {
	s.carry = append(s.carry, b...)
	if len(s.carry) < s.retryAt {
		return nil
	}
	return s.Flush()
}

// Flush decodes what the stitcher holds.
func (s *Stitcher[P]) Flush() error {
	n, st, p := s.dec.Decode(s.carry, s.carryOff, s.st)
	if err := s.c.Take(p); err != nil {
		return err
	}
	s.consume(n, st)
	limit := s.c.MaxElemBytes
	if len(s.carry) > limit && st != End {
		return &TooLargeError{Off: s.carryOff, Limit: limit}
	}
	s.retryAt = 0
	if len(s.carry) >= 64<<10 {
		s.retryAt = min(2*len(s.carry), limit+1)
	}
	return nil
}

// consume drops the first n bytes held, now decoded.
func (s *Stitcher[P]) consume(n int, st State) {
	s.carry = s.carry[:copy(s.carry, s.carry[n:])]
	s.carryOff += int64(n)
	s.st = st
}

// block adds the next block: the bytes up to the worker's guess are
// decoded here; when they end where the guess begins, the worker's part is
// taken, else the whole block is decoded here.
func (s *Stitcher[P]) block(b *block[P]) error {
	if b.guess >= 0 && len(s.carry)+b.guess >= s.retryAt {
		mark := len(s.carry)
		s.carry = append(s.carry, b.buf[:b.guess]...)
		n, st, p := s.dec.Decode(s.carry, s.carryOff, s.st)
		switch {
		case p.Failed() || st == End:
			if err := s.c.Take(p); err != nil {
				return err
			}
			s.consume(n, st)
			s.carry = append(s.carry, b.buf[b.guess:]...)
			return nil
		case n == len(s.carry) && st == Elem:
			if err := s.c.Take(p); err != nil {
				return err
			}
			if err := s.c.Take(b.part); err != nil {
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
	return s.Decode(b.buf)
}

// ReadBlocks decodes the rest of the array from r, whose first byte is at
// the file offset after the bytes given so far, in blocks of size bytes
// that workers decode in parallel. It stops at the array's end (the bytes
// read past it are then in Rest), at the first error, or at the end of r,
// whose read error, if any, it returns with the offset where it happened.
func (s *Stitcher[P]) ReadBlocks(ctx context.Context, r io.Reader, size int64) (readErr error, readErrAt int64, err error) {
	br := startReader(ctx, r, s.carryOff+int64(len(s.carry)), size, s.c.Workers, s.c.NewDecoder)
	var rest []*block[P]
	defer func() { br.release(rest) }()
	for b := range br.order {
		<-b.done
		err := s.block(b)
		br.recycle(b)
		if err == nil && s.st != End {
			continue
		}
		rest = br.stop()
		for _, b := range rest {
			s.carry = append(s.carry, b.buf...)
		}
		if err != nil {
			return nil, 0, err
		}
		break
	}
	br.wg.Wait()
	return br.err, br.errAt, nil
}
