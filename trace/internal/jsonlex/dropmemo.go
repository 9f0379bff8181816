package jsonlex

import "encoding/binary"

// A DropMemo remembers how the objects a reader dropped last began: their
// bytes up to the end of the value that decided the drop (for Kineto
// events, a flow's ph, a category's cat, a poll's name), with a tag the
// reader wants back. When the decision depends on those bytes alone, an
// object that begins with the same bytes is dropped too, and its rest only
// skipped to its end (SkipNested). Writers repeat such prefixes: a real
// trace's flows, polls and python_function events. A nil *DropMemo
// remembers nothing.
type DropMemo[T any] struct {
	prefixes [dropPrefixes]dropPrefix[T] // prefixes[0] met last
	n        int
}

const (
	dropPrefixes  = 4
	maxDropPrefix = 256
)

type dropPrefix[T any] struct {
	text []byte
	tail uint64 // text's last 8 bytes, which tell most prefixes apart, compared first
	tag  T
}

// Len is the number of prefixes remembered.
func (m *DropMemo[T]) Len() int { return m.n }

// Match returns the length of the remembered prefix that b begins with,
// and its tag; ok is false when b begins with none.
func (m *DropMemo[T]) Match(b []byte) (n int, tag T, ok bool) {
	if m == nil {
		return 0, tag, false
	}
	for k := range m.n {
		h := &m.prefixes[k]
		n := len(h.text)
		if len(b) > n && binary.LittleEndian.Uint64(b[n-8:]) == h.tail && Str(b[:n-8]) == Str(h.text[:n-8]) {
			if k > 0 {
				m.prefixes[0], m.prefixes[k] = m.prefixes[k], m.prefixes[0]
				h = &m.prefixes[0]
			}
			return n, h.tag, true
		}
	}
	return 0, tag, false
}

// Learn remembers the prefix of an object just dropped, in place of the
// one met longest ago, unless it is known. Prefixes shorter than 8 bytes
// or longer than 256 are not remembered.
func (m *DropMemo[T]) Learn(prefix []byte, tag T) {
	if m == nil || len(prefix) < 8 || len(prefix) > maxDropPrefix {
		return
	}
	for _, h := range m.prefixes[:m.n] {
		if Str(h.text) == Str(prefix) {
			return
		}
	}
	if m.n < dropPrefixes {
		m.n++
	}
	last := m.prefixes[m.n-1]
	copy(m.prefixes[1:m.n], m.prefixes[:m.n-1])
	m.prefixes[0] = dropPrefix[T]{text: append(last.text[:0], prefix...), tail: binary.LittleEndian.Uint64(prefix[len(prefix)-8:]), tag: tag}
}
