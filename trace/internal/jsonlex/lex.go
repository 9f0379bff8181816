package jsonlex

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// ErrMore says a value continues past the end of the slice.
var ErrMore = errors.New("more input needed")

// An Error is malformed JSON at a position in the slice.
type Error struct {
	At  int // the index of the offending byte
	msg string
}

func (e *Error) Error() string { return e.msg }

// Bad returns the Error for the unexpected byte b[i], found in context
// ("after array element").
func Bad(b []byte, i int, context string) error {
	return &Error{At: i, msg: fmt.Sprintf("invalid character %s %s", quoteByte(b[i]), context)}
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("%#02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

// Byte classes, indexed by byte; read-only once built.
var (
	isSpace    = byteClass(func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }) // JSON whitespace
	plainStr   = byteClass(func(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' })              // bytes a string scan steps over: not '"', '\\' or a control character
	structural = byteClass(func(c byte) bool { return strings.IndexByte(`"{}[]`, c) >= 0 })              // bytes that matter to SkipNested outside strings
	plainQuick = byteClass(func(c byte) bool { return c != '"' && c != '\\' })                           // bytes SkipNested steps over inside strings: not '"' or '\\'
)

func byteClass(in func(c byte) bool) (t [256]bool) {
	for c := range 256 {
		t[c] = in(byte(c))
	}
	return t
}

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return isSpace[c] }

// SkipSpace returns the index of the first byte from b[i] that is not
// whitespace, or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace[b[i]] {
		i++
	}
	return i
}

// A Value is a scalar read from the input. raw aliases the input.
type Value struct {
	Kind byte   // 'n' number, 's' string, 'z' null, 'o' anything else
	Raw  []byte // a number's text, or a string's content without quotes
	Esc  bool   // the string has escapes
}

// text is a string value's content, unescaped when it has escapes. It
// aliases the input unless it had escapes.
func (v Value) Text() string {
	if !v.Esc {
		return Str(v.Raw)
	}
	// The content was checked by ScanString; the quotes are put back for
	// encoding/json, which also replaces bad surrogates with U+FFFD, and
	// raw control characters, which it refuses, are escaped.
	q := make([]byte, 0, len(v.Raw)+2)
	q = append(q, '"')
	for _, c := range v.Raw {
		if c < 0x20 {
			q = append(q, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			continue
		}
		q = append(q, c)
	}
	var s string
	if json.Unmarshal(append(q, '"'), &s) != nil {
		return Str(v.Raw)
	}
	return s
}

// str views b as a string without copying. The string aliases the input:
// anything kept past the current block must be copied (intern).
func Str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// ScanString reads the string starting at b[i] == '"' and returns the index
// after its closing quote. Raw control characters, which JSON forbids but
// some Kineto versions wrote in names, are accepted and reported by ctl.
func ScanString(b []byte, i int) (end int, esc, ctl bool, err error) {
	for i++; ; {
		if i = plainRun(b, i); i >= len(b) {
			return i, esc, ctl, ErrMore
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, ctl, nil
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, esc, ctl, ErrMore
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(b) {
						return k, esc, ctl, ErrMore
					}
					if !isHex(b[k]) {
						return k, esc, ctl, Bad(b, k, "in \\u escape")
					}
				}
				i += 6
			default:
				return i + 1, esc, ctl, Bad(b, i+1, "in string escape code")
			}
		default:
			ctl = true
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanNumber reads the number starting at b[i] and returns the index after
// it. A number that reaches the end of b may continue: ErrMore.
func scanNumber(b []byte, i int) (int, error) {
	// The digit runs are written out: a closure capturing i kept it in
	// memory, a load and a store a digit, and a function of its own was
	// slower too (BenchmarkEventDecoder tells).
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, ErrMore
	case b[i] == '0':
		i++
	case b[i] < '1' || b[i] > '9':
		return i, Bad(b, i, "in numeric literal")
	default:
		i = skipDigits(b, i+1)
	}
	if i < len(b) && b[i] == '.' {
		i++
		switch {
		case i >= len(b):
			return i, ErrMore
		case b[i] < '0' || b[i] > '9':
			return i, Bad(b, i, "after decimal point in numeric literal")
		}
		i = skipDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		switch {
		case i >= len(b):
			return i, ErrMore
		case b[i] < '0' || b[i] > '9':
			return i, Bad(b, i, "in exponent of numeric literal")
		}
		i = skipDigits(b, i+1)
	}
	if i >= len(b) {
		return i, ErrMore
	}
	return i, nil
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Literals, the malformed ones known Kineto versions wrote included: bare
// N/A reads as the string "N/A", NaN and ±Infinity as null.
var literals = []struct {
	text    string
	Kind    byte
	Lenient bool
}{
	{"true", 'o', false}, {"false", 'o', false}, {"null", 'z', false},
	{"N/A", 's', true}, {"NaN", 'z', true}, {"Infinity", 'z', true}, {"-Infinity", 'z', true},
}

// scanLiteral reads a literal at b[i].
func scanLiteral(b []byte, i int) (end int, kind byte, lenient bool, err error) {
	for _, l := range literals {
		n := min(len(l.text), len(b)-i)
		if string(b[i:i+n]) != l.text[:n] {
			continue
		}
		if n < len(l.text) {
			return i, 0, false, ErrMore
		}
		return i + n, l.Kind, l.Lenient, nil
	}
	return i, 0, false, Bad(b, i, "looking for beginning of value")
}

// A Lexer holds what parsing an event noticed along the way.
type Lexer struct {
	Lenient bool     // malformed tokens were accepted
	stack   []byte   // closers of the open containers in skipValue
	arr     [64]byte // stack's first backing array
}

// value reads the value at b[i] into v: scalars are returned, containers
// are skipped and checked (kind 'o'). v may be nil. (Results go through a
// pointer: returning the struct made the compiler copy it through the
// stack with a stalled store on every call.)
func (lx *Lexer) Value(b []byte, i int, v *Value) (int, error) {
	if i >= len(b) {
		return i, ErrMore
	}
	var kind byte
	start, end := i, i
	esc := false
	var err error
	switch c := b[i]; {
	case c == '"':
		var ctl bool
		if end, esc, ctl, err = ScanString(b, i); err != nil {
			return end, err
		}
		lx.Lenient = lx.Lenient || ctl
		kind, start, end = 's', i+1, end-1
		i = end + 1
	case c >= '0' && c <= '9' || c == '-' && !(i+1 < len(b) && b[i+1] == 'I'):
		if end, err = scanNumber(b, i); err != nil {
			return end, err
		}
		kind, i = 'n', end
	case c == '{' || c == '[':
		if i, err = lx.SkipValue(b, i); err != nil {
			return i, err
		}
		kind, start, end = 'o', i, i
	default:
		var lenient bool
		if end, kind, lenient, err = scanLiteral(b, i); err != nil {
			return end, err
		}
		lx.Lenient = lx.Lenient || lenient
		if kind != 's' {
			start = end
		}
		i = end
	}
	if v != nil {
		v.Kind, v.Raw, v.Esc = kind, b[start:end], esc
	}
	return i, nil
}

// skipValue checks the value at b[i] and returns the index after it.
// Nesting is tracked on a stack, not by recursion, so any depth is read:
// the bound on an event's size (Options.MaxEventBytes) bounds it.
func (lx *Lexer) SkipValue(b []byte, i int) (int, error) {
	if lx.stack == nil {
		lx.stack = lx.arr[:0]
	}
	stack := lx.stack[:0]
	defer func() { lx.stack = stack[:0] }()
	var err error
	for {
		// A value starts at b[i].
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, ErrMore
		}
		switch b[i] {
		case '{':
			if i = SkipSpace(b, i+1); i >= len(b) {
				return i, ErrMore
			}
			if b[i] != '}' {
				stack = append(stack, '}')
				if _, _, _, i, err = objectKey(b, i, lx); err != nil {
					return i, err
				}
				continue
			}
			i++
		case '[':
			if i = SkipSpace(b, i+1); i >= len(b) {
				return i, ErrMore
			}
			if b[i] != ']' {
				stack = append(stack, ']')
				continue
			}
			i++
		default:
			if i, err = lx.Value(b, i, nil); err != nil {
				return i, err
			}
		}
		// A value ended: close containers until one continues.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return i, ErrMore
			}
			closer := stack[len(stack)-1]
			if b[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, Bad(b, i, "after "+map[byte]string{'}': "object key:value pair", ']': "array element"}[closer])
			}
			if i = SkipSpace(b, i+1); closer == '}' {
				if _, _, _, i, err = objectKey(b, i, lx); err != nil {
					return i, err
				}
			}
			break
		}
	}
}

// objectKey reads `"key" :` at b[i] and returns the key's content, whether
// it has escapes (see keyText) or control characters, and the index after
// the colon.
func objectKey(b []byte, i int, lx *Lexer) (key []byte, esc, ctl bool, next int, err error) {
	if i >= len(b) {
		return nil, false, false, i, ErrMore
	}
	if b[i] != '"' {
		return nil, false, false, i, Bad(b, i, "looking for beginning of object key string")
	}
	end, esc, ctl, err := ScanString(b, i)
	if err != nil {
		return nil, false, false, end, err
	}
	lx.Lenient = lx.Lenient || ctl
	key = b[i+1 : end-1]
	if i = SkipSpace(b, end); i >= len(b) {
		return key, esc, ctl, i, ErrMore
	}
	if b[i] != ':' {
		return key, esc, ctl, i, Bad(b, i, "after object key")
	}
	return key, esc, ctl, i + 1, nil
}

// ErrDropped, returned by a members callback, ends the walk early: the
// callback has skipped the rest of the object.
var ErrDropped = errors.New("object dropped")

// members reads the object at b[i] == '{', handing each member's key and
// the index of its value to member, which reads the value and returns the
// index after it. It returns the index after the object. memo, which may
// be nil, remembers how objects read before began their members.
func (lx *Lexer) Members(b []byte, i int, memo *MemberMemo, member func(key string, i int) (int, error)) (int, error) {
	i++ // '{'
	for k := 0; ; k++ {
		var key string
		// The memo's test is written out here: as a method it was too
		// big to inline, and a call a member shows in
		// BenchmarkEventDecoder. A prefix ends with all the whitespace
		// before its value, so the value must follow at once.
		if p := memo.at(k); p != nil && len(b)-i > max(len(p.text), 7) &&
			binary.LittleEndian.Uint64(b[i:])&p.mask == p.head && binary.LittleEndian.Uint64(b[i+p.tailAt:])&p.mask == p.tail &&
			!isSpace[b[i+len(p.text)]] && (len(p.text) <= 16 || Str(b[i+8:i+len(p.text)-8]) == p.text[8:len(p.text)-8]) {
			key, i = p.key, i+len(p.text)
		} else {
			start := i
			if i = SkipSpace(b, i); i >= len(b) {
				return i, ErrMore
			}
			if b[i] == '}' {
				return i + 1, nil
			}
			if k > 0 {
				if b[i] != ',' {
					return i, Bad(b, i, "after object key:value pair")
				}
				i = SkipSpace(b, i+1)
			}
			kb, esc, ctl, j, err := objectKey(b, i, lx)
			if err != nil {
				return j, err
			}
			if i = SkipSpace(b, j); i >= len(b) {
				return i, ErrMore
			}
			key = keyText(kb, esc)
			if !esc && !ctl {
				memo.learn(k, b[start:i], key)
			}
		}
		var err error
		if i, err = member(key, i); err != nil {
			return i, err
		}
	}
}

// A MemberMemo remembers, for each member position of the objects that
// members reads, the bytes that came before the last value read there:
// whitespace, the comma, the key, the colon. One writer lays out the
// members of like objects alike, so the next object's bytes usually match,
// and bytes that match were read before: they need no reading again. Keys
// with escapes or control characters are not remembered.
type MemberMemo struct {
	prefixes []memberPrefix          // by member position
	known    map[string]memberPrefix // the prefixes learned, by text, so that alternating layouts allocate once
}

type memberPrefix struct {
	text       string // the bytes from after '{' or the previous value to the value
	key        string
	head, tail uint64 // text's first and last 8 bytes, compared first and without a call
	mask       uint64 // the bytes of head and tail that text holds: all when it has 8
	tailAt     int    // where tail begins in text
}

// Bounds on what a memo holds, against input whose every object differs.
const (
	memoPositions = 64  // member positions remembered
	memoPrefixes  = 256 // prefixes known at once
)

// at returns the prefix learned for member position k, or nil.
func (m *MemberMemo) at(k int) *memberPrefix {
	if m == nil || k >= len(m.prefixes) || m.prefixes[k].text == "" {
		return nil
	}
	return &m.prefixes[k]
}

// learn makes text, which led to key's value, the prefix of member position k.
func (m *MemberMemo) learn(k int, text []byte, key string) {
	if m == nil || k >= memoPositions {
		return
	}
	p, ok := m.known[string(text)]
	if !ok {
		if m.known == nil || len(m.known) >= memoPrefixes {
			m.known = map[string]memberPrefix{}
		}
		p = memberPrefix{text: string(text), key: strings.Clone(key)}
		var word [8]byte
		copy(word[:], text)
		p.head, p.mask = binary.LittleEndian.Uint64(word[:]), ^uint64(0)>>(64-8*min(len(text), 8))
		p.tailAt = max(len(text)-8, 0)
		copy(word[:], text[p.tailAt:])
		p.tail = binary.LittleEndian.Uint64(word[:])
		m.known[p.text] = p
	}
	for len(m.prefixes) <= k {
		m.prefixes = append(m.prefixes, memberPrefix{})
	}
	m.prefixes[k] = p
}

// keyText is a key as a string, unescaped if it has escapes.
func keyText(key []byte, esc bool) string {
	if !esc {
		return Str(key)
	}
	return Value{Kind: 's', Raw: key, Esc: true}.Text()
}

// skipNested skips to just past the bracket that closes the depth open
// containers b[i] is inside, following only strings and brackets.
func SkipNested(b []byte, i, depth int) (int, error) {
	if haveSkip64 {
		return skipNestedWide(b, i, depth)
	}
	return skipNestedBytes(b, i, depth)
}

// skipNestedBytes is skipNested a byte at a time.
func skipNestedBytes(b []byte, i, depth int) (int, error) {
	for {
		for i < len(b) && !structural[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, ErrMore
		}
		switch b[i] {
		case '"':
			for i++; ; i += 2 {
				for i < len(b) && plainQuick[b[i]] {
					i++
				}
				if i >= len(b) {
					return i, ErrMore
				}
				if b[i] == '"' {
					break
				}
			}
		case '{', '[':
			depth++
		default:
			if depth--; depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
}

// IntOf reads an integer written as a number or as a numeric string
// ("25738"), as pids and tids are in some traces. A non-integral number is
// truncated, as gjson did.
func IntOf(v Value) (int64, bool) {
	switch v.Kind {
	case 'n':
		if n, ok := atoi(v.Raw); ok {
			return n, true
		}
		f, err := strconv.ParseFloat(Str(v.Raw), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		switch {
		case f >= 1<<63:
			return 1<<63 - 1, true
		case f < -1<<63:
			return -1 << 63, true
		}
		return int64(f), true
	case 's':
		n, err := strconv.ParseInt(strings.TrimSpace(v.Text()), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// atoi reads a plain decimal integer that fits int64.
func atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		n, err := strconv.ParseInt(Str(b), 10, 64)
		if neg {
			n = -n
		}
		return n, err == nil && len(b) > 0
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
