package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// The Kineto reader parses JSON by hand, on byte slices that may end in the
// middle of a value: every function here returns errMore when it needs
// bytes past the end of its slice, so that a caller holding a block of a
// larger file can retry with more. Positions are indices into the slice.
//
// Two kinds of skipping exist. skipValue checks the full JSON grammar
// (and accepts the malformed tokens known Kineto versions wrote, setting
// lenient); skipNested only follows strings and brackets, for the rest of
// an event that is dropped anyway.

// errMore says a value continues past the end of the slice.
var errMore = errors.New("more input needed")

// A jsonError is malformed JSON at a position in the slice.
type jsonError struct {
	at  int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

func badJSON(b []byte, i int, context string) error {
	return &jsonError{at: i, msg: fmt.Sprintf("invalid character %s %s", quoteByte(b[i]), context)}
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("%#02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

// Byte classes, indexed by byte.
var (
	isSpace    [256]bool // JSON whitespace
	plainStr   [256]bool // bytes a string scan steps over: not '"', '\\' or a control character
	structural [256]bool // bytes that matter to skipNested outside strings
	plainQuick [256]bool // bytes skipNested steps over inside strings: not '"' or '\\'
)

func init() {
	for _, c := range " \t\r\n" {
		isSpace[c] = true
	}
	for c := range 256 {
		plainStr[c] = c >= 0x20 && c != '"' && c != '\\'
		plainQuick[c] = c != '"' && c != '\\'
	}
	for _, c := range `"{}[]` {
		structural[c] = true
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace[b[i]] {
		i++
	}
	return i
}

// A jsonValue is a scalar read from the input. raw aliases the input.
type jsonValue struct {
	kind byte   // 'n' number, 's' string, 'z' null, 'o' anything else
	raw  []byte // a number's text, or a string's content without quotes
	esc  bool   // the string has escapes
}

// text is a string value's content, unescaped when it has escapes. It
// aliases the input unless it had escapes.
func (v jsonValue) text() string {
	if !v.esc {
		return str(v.raw)
	}
	// The content was checked by scanString; the quotes are put back for
	// encoding/json, which also replaces bad surrogates with U+FFFD, and
	// raw control characters, which it refuses, are escaped.
	q := make([]byte, 0, len(v.raw)+2)
	q = append(q, '"')
	for _, c := range v.raw {
		if c < 0x20 {
			q = append(q, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			continue
		}
		q = append(q, c)
	}
	var s string
	if json.Unmarshal(append(q, '"'), &s) != nil {
		return str(v.raw)
	}
	return s
}

// str views b as a string without copying. The string aliases the input:
// anything kept past the current block must be copied (intern).
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// scanString reads the string starting at b[i] == '"' and returns the index
// after its closing quote. Raw control characters, which JSON forbids but
// some Kineto versions wrote in names, are accepted and reported by ctl.
func scanString(b []byte, i int) (end int, esc, ctl bool, err error) {
	for i++; ; {
		for i < len(b) && plainStr[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, esc, ctl, errMore
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, ctl, nil
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, esc, ctl, errMore
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(b) {
						return k, esc, ctl, errMore
					}
					if !isHex(b[k]) {
						return k, esc, ctl, badJSON(b, k, "in \\u escape")
					}
				}
				i += 6
			default:
				return i + 1, esc, ctl, badJSON(b, i+1, "in string escape code")
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
// it. A number that reaches the end of b may continue: errMore.
func scanNumber(b []byte, i int) (int, error) {
	// The digit runs are written out: a closure capturing i kept it in
	// memory, a load and a store a digit (BenchmarkEventDecoder/real 4.9 %
	// slower), and a function of its own was 4.7 % slower on the
	// generated trace (benchstat, n = 8).
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, errMore
	case b[i] == '0':
		i++
	case b[i] < '1' || b[i] > '9':
		return i, badJSON(b, i, "in numeric literal")
	default:
		i = skipDigits(b, i+1)
	}
	if i < len(b) && b[i] == '.' {
		i++
		switch {
		case i >= len(b):
			return i, errMore
		case b[i] < '0' || b[i] > '9':
			return i, badJSON(b, i, "after decimal point in numeric literal")
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
			return i, errMore
		case b[i] < '0' || b[i] > '9':
			return i, badJSON(b, i, "in exponent of numeric literal")
		}
		i = skipDigits(b, i+1)
	}
	if i >= len(b) {
		return i, errMore
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
	kind    byte
	lenient bool
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
			return i, 0, false, errMore
		}
		return i + n, l.kind, l.lenient, nil
	}
	return i, 0, false, badJSON(b, i, "looking for beginning of value")
}

// A lexer holds what parsing an event noticed along the way.
type lexer struct {
	lenient bool     // malformed tokens were accepted
	stack   []byte   // closers of the open containers in skipValue
	arr     [64]byte // stack's first backing array
}

// value reads the value at b[i] into v: scalars are returned, containers
// are skipped and checked (kind 'o'). v may be nil. (Results go through a
// pointer: returning the struct made the compiler copy it through the
// stack with a stalled store on every call.)
func (lx *lexer) value(b []byte, i int, v *jsonValue) (int, error) {
	if i >= len(b) {
		return i, errMore
	}
	var kind byte
	start, end := i, i
	esc := false
	var err error
	switch c := b[i]; {
	case c == '"':
		var ctl bool
		if end, esc, ctl, err = scanString(b, i); err != nil {
			return end, err
		}
		lx.lenient = lx.lenient || ctl
		kind, start, end = 's', i+1, end-1
		i = end + 1
	case c >= '0' && c <= '9' || c == '-' && !(i+1 < len(b) && b[i+1] == 'I'):
		if end, err = scanNumber(b, i); err != nil {
			return end, err
		}
		kind, i = 'n', end
	case c == '{' || c == '[':
		if i, err = lx.skipValue(b, i); err != nil {
			return i, err
		}
		kind, start, end = 'o', i, i
	default:
		var lenient bool
		if end, kind, lenient, err = scanLiteral(b, i); err != nil {
			return end, err
		}
		lx.lenient = lx.lenient || lenient
		if kind != 's' {
			start = end
		}
		i = end
	}
	if v != nil {
		v.kind, v.raw, v.esc = kind, b[start:end], esc
	}
	return i, nil
}

// skipValue checks the value at b[i] and returns the index after it.
// Nesting is tracked on a stack, not by recursion, so any depth is read:
// the bound on an event's size (Options.MaxEventBytes) bounds it.
func (lx *lexer) skipValue(b []byte, i int) (int, error) {
	if lx.stack == nil {
		lx.stack = lx.arr[:0]
	}
	stack := lx.stack[:0]
	defer func() { lx.stack = stack[:0] }()
	var err error
	for {
		// A value starts at b[i].
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errMore
		}
		switch b[i] {
		case '{':
			if i = skipSpace(b, i+1); i >= len(b) {
				return i, errMore
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
			if i = skipSpace(b, i+1); i >= len(b) {
				return i, errMore
			}
			if b[i] != ']' {
				stack = append(stack, ']')
				continue
			}
			i++
		default:
			if i, err = lx.value(b, i, nil); err != nil {
				return i, err
			}
		}
		// A value ended: close containers until one continues.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			if i = skipSpace(b, i); i >= len(b) {
				return i, errMore
			}
			closer := stack[len(stack)-1]
			if b[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, badJSON(b, i, "after "+map[byte]string{'}': "object key:value pair", ']': "array element"}[closer])
			}
			if i = skipSpace(b, i+1); closer == '}' {
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
func objectKey(b []byte, i int, lx *lexer) (key []byte, esc, ctl bool, next int, err error) {
	if i >= len(b) {
		return nil, false, false, i, errMore
	}
	if b[i] != '"' {
		return nil, false, false, i, badJSON(b, i, "looking for beginning of object key string")
	}
	end, esc, ctl, err := scanString(b, i)
	if err != nil {
		return nil, false, false, end, err
	}
	lx.lenient = lx.lenient || ctl
	key = b[i+1 : end-1]
	if i = skipSpace(b, end); i >= len(b) {
		return key, esc, ctl, i, errMore
	}
	if b[i] != ':' {
		return key, esc, ctl, i, badJSON(b, i, "after object key")
	}
	return key, esc, ctl, i + 1, nil
}

// errDropped, returned by a members callback, ends the walk early: the
// callback has skipped the rest of the object.
var errDropped = errors.New("object dropped")

// members reads the object at b[i] == '{', handing each member's key and
// the index of its value to member, which reads the value and returns the
// index after it. It returns the index after the object. memo, which may
// be nil, remembers how objects read before began their members.
func (lx *lexer) members(b []byte, i int, memo *memberMemo, member func(key string, i int) (int, error)) (int, error) {
	i++ // '{'
	for k := 0; ; k++ {
		var key string
		if lead, ok := memo.match(b, i, k); ok {
			key, i = lead.key, i+len(lead.text)
		} else {
			start := i
			if i = skipSpace(b, i); i >= len(b) {
				return i, errMore
			}
			if b[i] == '}' {
				return i + 1, nil
			}
			if k > 0 {
				if b[i] != ',' {
					return i, badJSON(b, i, "after object key:value pair")
				}
				i = skipSpace(b, i+1)
			}
			kb, esc, ctl, j, err := objectKey(b, i, lx)
			if err != nil {
				return j, err
			}
			if i = skipSpace(b, j); i >= len(b) {
				return i, errMore
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

// A memberMemo remembers, for each member position of the objects that
// members reads, the bytes that came before the last value read there:
// whitespace, the comma, the key, the colon. One writer lays out the
// members of like objects alike, so the next object's bytes usually match,
// and bytes that match were read before: they need no reading again. Keys
// with escapes or control characters are not remembered.
type memberMemo struct {
	leads []memberLead          // by member position
	known map[string]memberLead // the leads learned, by text, so that alternating layouts allocate once
}

type memberLead struct {
	text string // the bytes from after '{' or the previous value to the value
	key  string
}

// Bounds on what a memo holds, against input whose every object differs.
const (
	memoPositions = 64
	memoLeads     = 256
)

// match returns the lead of member position k when b[i:] begins with it
// and the value follows at once: a lead ends with all the whitespace
// before its value. (A position not learned yet has an empty lead.)
func (m *memberMemo) match(b []byte, i, k int) (memberLead, bool) {
	if m == nil || k >= len(m.leads) {
		return memberLead{}, false
	}
	l := m.leads[k]
	n := len(l.text)
	return l, n > 0 && len(b)-i > n && str(b[i:i+n]) == l.text && !isSpace[b[i+n]]
}

// learn makes text, which led to key's value, the lead of member position k.
func (m *memberMemo) learn(k int, text []byte, key string) {
	if m == nil || k >= memoPositions {
		return
	}
	l, ok := m.known[string(text)]
	if !ok {
		if m.known == nil || len(m.known) >= memoLeads {
			m.known = map[string]memberLead{}
		}
		l = memberLead{text: string(text), key: strings.Clone(key)}
		m.known[l.text] = l
	}
	for len(m.leads) <= k {
		m.leads = append(m.leads, memberLead{})
	}
	m.leads[k] = l
}

// keyText is a key as a string, unescaped if it has escapes.
func keyText(key []byte, esc bool) string {
	if !esc {
		return str(key)
	}
	return jsonValue{kind: 's', raw: key, esc: true}.text()
}

// skipNested skips to just past the bracket that closes the depth open
// containers b[i] is inside, following only strings and brackets.
func skipNested(b []byte, i, depth int) (int, error) {
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
			return i, errMore
		}
		switch b[i] {
		case '"':
			for i++; ; i += 2 {
				for i < len(b) && plainQuick[b[i]] {
					i++
				}
				if i >= len(b) {
					return i, errMore
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

// intOf reads an integer written as a number or as a numeric string
// ("25738"), as pids and tids are in some traces. A non-integral number is
// truncated, as gjson did.
func intOf(v jsonValue) (int64, bool) {
	switch v.kind {
	case 'n':
		if n, ok := atoi(v.raw); ok {
			return n, true
		}
		f, err := strconv.ParseFloat(str(v.raw), 64)
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
		n, err := strconv.ParseInt(strings.TrimSpace(v.text()), 10, 64)
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
		n, err := strconv.ParseInt(str(b), 10, 64)
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
