package jsonlex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// A Scanner cuts a JSON text read from a stream into complete values
// without decoding them, so that a multi-gigabyte trace is read with memory
// bounded by its largest single event. Values it returns alias its buffer
// and are valid until the next call.
type Scanner struct {
	r    io.Reader
	buf  []byte
	pos  int   // next unread byte in buf
	end  int   // buf[:end] holds data
	base int64 // stream offset of buf[0]
	err  error // sticky read error; io.EOF at the end
	max  int   // largest value accepted, bytes
}

var ErrTruncated = errors.New("unexpected end of input")

// NewScanner reads r, whose size is expected to be about size bytes,
// and refuses a value of more than most bytes.
func NewScanner(r io.Reader, size int64, most int) *Scanner {
	return &Scanner{r: r, buf: make([]byte, min(max(size, 16), 4<<20)), max: most}
}

// offset is the stream offset of the next unread byte.
func (s *Scanner) Offset() int64 { return s.base + int64(s.pos) }

// fill reads more input, first moving buf[s.pos:] to the front. It reports
// whether any new bytes arrived.
func (s *Scanner) fill() (bool, error) {
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.end = n
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.max {
			return false, fmt.Errorf("a single JSON value larger than %s, the most the memory available allows reading (a huge string or deep nesting: a decompression bomb?)", mib(s.max))
		}
		nb := make([]byte, min(2*len(s.buf), s.max))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for s.err == nil {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
		}
		if n > 0 {
			return true, nil
		}
	}
	if s.err == io.EOF {
		return false, nil
	}
	return false, s.err
}

// peek skips whitespace and returns the next byte without consuming it;
// ok is false at the end of the input.
func (s *Scanner) Peek() (c byte, ok bool, err error) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true, nil
			}
		}
		if more, err := s.fill(); !more {
			return 0, false, err
		}
	}
}

// value returns the complete JSON value that starts at the next non-space
// byte and consumes it. Strings and nesting are tracked; the contents are
// not validated here.
func (s *Scanner) Value() ([]byte, error) {
	c, ok, err := s.Peek()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrTruncated
	}
	i := s.pos // scan position; s.pos stays at the value's start
	switch c {
	case '{', '[', '"':
		depth := 0
		inStr, esc := false, false
		for {
			for ; i < s.end; i++ {
				if !inStr {
					// Skip bytes that cannot change the state.
					for i < s.end && !structural[s.buf[i]] {
						i++
					}
					if i == s.end {
						break
					}
				}
				c := s.buf[i]
				if inStr {
					if !esc && c != '\\' && c != '"' {
						// Jump to the next quote; fall back to byte steps
						// when an escape comes first.
						q := bytes.IndexByte(s.buf[i:s.end], '"')
						if q < 0 {
							q = s.end - i
						}
						if bs := bytes.IndexByte(s.buf[i:i+q], '\\'); bs >= 0 {
							q = bs
						}
						i += q - 1
						continue
					}
					switch {
					case esc:
						esc = false
					case c == '\\':
						esc = true
					case c == '"':
						inStr = false
						if depth == 0 {
							return s.take(i + 1), nil
						}
					}
					continue
				}
				switch c {
				case '"':
					inStr = true
				case '{', '[':
					depth++
				case '}', ']':
					depth--
					if depth == 0 {
						return s.take(i + 1), nil
					}
				}
			}
			rel := i - s.pos
			more, err := s.fill()
			if err != nil {
				return nil, err
			}
			if !more {
				return nil, ErrTruncated
			}
			i = s.pos + rel
		}
	default: // number, true, false, null, or garbage up to a delimiter
		for {
			for ; i < s.end; i++ {
				switch s.buf[i] {
				case ',', ']', '}', ' ', '\t', '\n', '\r':
					return s.take(i), nil
				}
			}
			rel := i - s.pos
			more, err := s.fill()
			if err != nil {
				return nil, err
			}
			if !more {
				return s.take(s.pos + rel), nil
			}
			i = s.pos + rel
		}
	}
}

func (s *Scanner) take(stop int) []byte {
	v := s.buf[s.pos:stop]
	s.pos = stop
	return v
}

// resume makes the scanner return pending, whose first byte is at stream
// offset off, before the rest of its reader; err is a read error met
// after pending, if any.
func (s *Scanner) Resume(pending []byte, off int64, err error) {
	s.buf = make([]byte, max(2*len(pending), 64<<10))
	s.end = copy(s.buf, pending)
	s.pos, s.base, s.err = 0, off, err
}

// expect consumes the byte c after optional whitespace.
func (s *Scanner) Expect(c byte) bool {
	got, ok, _ := s.Peek()
	if ok && got == c {
		s.pos++
		return true
	}
	return false
}

// mib writes n bytes in MiB, or KiB below one.
func mib(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// SetBase says that the reader's first byte is at stream offset off: the
// bytes before it were consumed by the caller.
func (s *Scanner) SetBase(off int64) { s.base = off }

// Buffered returns the bytes read but not consumed yet. They alias the
// scanner's buffer.
func (s *Scanner) Buffered() []byte { return s.buf[s.pos:s.end] }

// Skip consumes n bytes of Buffered.
func (s *Scanner) Skip(n int) { s.pos += n }

// BufferedEnd is the stream offset after the bytes read so far.
func (s *Scanner) BufferedEnd() int64 { return s.base + int64(s.end) }

// Err is the read error that ended the input, io.EOF at its end, or nil
// while there is more.
func (s *Scanner) Err() error { return s.err }
