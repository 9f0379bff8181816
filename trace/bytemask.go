package trace

import "math/bits"

// Skipping a dropped event 64 bytes at a time, the way simdjson finds
// structure: vector compares give one bit per byte for quotes,
// backslashes and brackets; a prefix XOR of the quote bits gives the bytes
// inside strings; brackets outside strings change the depth, and a chunk
// whose closing brackets cannot bring the depth to zero is skipped whole.
// A chunk holding a backslash goes byte by byte, so that escapes count
// only inside strings, exactly as in skipNestedBytes.

// masks64Go is what masks64 computes, a byte at a time.
func masks64Go(p *[64]byte) (quote, bslash, open, close uint64) {
	for j, c := range p {
		bit := uint64(1) << j
		switch c {
		case '"':
			quote |= bit
		case '\\':
			bslash |= bit
		case '{', '[':
			open |= bit
		case '}', ']':
			close |= bit
		}
	}
	return
}

// prefixXor sets bit j to the XOR of bits 0..j of x.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// skipNestedWide is skipNestedBytes 64 bytes at a time.
func skipNestedWide(b []byte, i, depth int) (int, error) {
	var inStr uint64 // all ones while a string is open
	esc := false     // the chunk's first byte is escaped
	var tail [64]byte
	for ; i < len(b); i += 64 {
		p := b[i:]
		if len(p) < 64 {
			clear(tail[copy(tail[:], p):])
			p = tail[:]
		}
		quote, bslash, open, close := masks64(&p[0])
		if bslash != 0 || esc {
			j, in, e, d, done := nestedBytes(p[:min(64, len(b)-i)], inStr != 0, esc, depth)
			if done {
				return i + j, nil
			}
			inStr, esc, depth = 0, e, d
			if in {
				inStr = ^uint64(0)
			}
			continue
		}
		s := prefixXor(quote) ^ inStr
		inStr = uint64(int64(s) >> 63)
		open &^= s
		close &^= s
		if bits.OnesCount64(close) < depth {
			depth += bits.OnesCount64(open) - bits.OnesCount64(close)
			continue
		}
		for m := open | close; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if open>>j&1 != 0 {
				depth++
			} else if depth--; depth == 0 {
				return i + j + 1, nil
			}
		}
	}
	return len(b), errMore
}

// nestedBytes follows strings and brackets through b from a state: inside
// a string or not, after a backslash in a string or not, at a depth. It
// returns the index past the bracket that brings the depth to zero
// (done), or the state at the end of b.
func nestedBytes(b []byte, in, esc bool, depth int) (j int, _, _ bool, _ int, done bool) {
	for j, c := range b {
		switch {
		case esc:
			esc = false
		case in:
			switch c {
			case '\\':
				esc = true
			case '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return j + 1, false, false, 0, true
			}
		}
	}
	return len(b), in, esc, depth, false
}
