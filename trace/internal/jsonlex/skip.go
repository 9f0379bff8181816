package jsonlex

// Skipping a dropped event 64 bytes at a time, the way simdjson finds
// structure (skip64, in vector instructions): compares give one bit per
// byte for quotes and brackets; a prefix XOR of the quote bits gives the
// bytes inside strings; brackets outside strings change the depth, and a
// chunk whose closing brackets cannot bring the depth to zero is passed
// whole. A chunk holding a backslash, and the last one if it is short,
// go a byte at a time, so that escapes count only inside strings,
// exactly as in skipNestedBytes.

// skipNestedWide is skipNestedBytes 64 bytes at a time, where skip64 can.
func skipNestedWide(b []byte, i, depth int) (int, error) {
	var inStr uint64 // all ones while a string is open
	esc := false     // the next byte is escaped
	for i < len(b) {
		if !esc {
			n, s, d := skip64(&b[i], len(b)-i, inStr, depth)
			if i, inStr, depth = i+n, s, d; depth == 0 {
				return i, nil
			}
			if i == len(b) {
				break
			}
		}
		chunk := b[i:min(i+64, len(b))]
		j, in, e, d, done := nestedBytes(chunk, inStr != 0, esc, depth)
		if done {
			return i + j, nil
		}
		i, inStr, esc, depth = i+len(chunk), 0, e, d
		if in {
			inStr = ^uint64(0)
		}
	}
	return len(b), ErrMore
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
