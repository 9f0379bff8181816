package jsonlex

import (
	"errors"
	"strings"
)

var (
	ErrNotNumber = errors.New("not a number")
	ErrRange     = errors.New("out of range for int64 nanoseconds")
)

// MicrosToNanos converts a decimal number of microseconds, as written in a
// JSON trace ("1420179485153.755", "1623142623460111", "12.5", "1e3"), to
// integer nanoseconds exactly, without going through float64. Digits past
// the nanosecond are rounded to the nearest ns, halves away from zero.
func MicrosToNanos(s string) (int64, error) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// Fast path: digits, optionally '.' and digits, no exponent, and an
	// integer part an int64 holds.
	var whole int64
	i := 0
	// Eight digits a step while whole×10⁸ + 99999999 fits: a timestamp's
	// 16 integer digits in two.
	for ; i+8 <= len(s) && whole < 1e10; i += 8 {
		v, ok := eightDigits(s[i : i+8])
		if !ok {
			break
		}
		whole = whole*1e8 + v
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if whole > (1<<63-1-9)/10 {
			return microsToNanosSlow(neg, s)
		}
		whole = whole*10 + int64(s[i]-'0')
	}
	intDigits := i
	var frac int64 // ns, 0..999
	round := false
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			switch d := int64(s[i] - '0'); {
			case fracDigits < 3:
				frac = frac*10 + d
			case fracDigits == 3:
				round = d >= 5
			}
			fracDigits++
		}
		for k := fracDigits; k < 3; k++ {
			frac *= 10
		}
	}
	if i < len(s) || intDigits == 0 && fracDigits == 0 {
		return microsToNanosSlow(neg, s)
	}
	if round {
		frac++
	}
	const maxNS = 1<<63 - 1
	if whole > maxNS/1000 || whole*1000 > maxNS-frac {
		return microsToNanosSlow(neg, s)
	}
	ns := whole*1000 + frac
	if neg {
		ns = -ns
	}
	return ns, nil
}

// microsToNanosSlow converts what the fast path does not: exponents, and
// more digits than an int64 holds. It works on the digits as text, so it
// is exact, and its time is linear in the length of s whatever the
// exponent.
func microsToNanosSlow(neg bool, s string) (int64, error) {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp == "" {
			return 0, ErrNotNumber
		}
	}
	intPart, fracPart, _ := strings.Cut(mant, ".")
	if !isDigits(intPart) || !isDigits(fracPart) || intPart == "" && fracPart == "" {
		return 0, ErrNotNumber
	}
	e := 0 // saturates: beyond ±1e6 every result is 0 or out of range
	expNeg := exp != "" && exp[0] == '-'
	if exp != "" && (exp[0] == '-' || exp[0] == '+') {
		exp = exp[1:]
	}
	if exp != "" && !isDigits(exp) || exp == "" && len(s) > len(mant) {
		return 0, ErrNotNumber
	}
	for _, c := range []byte(exp) {
		e = min(e*10+int(c-'0'), 1e6)
	}
	if expNeg {
		e = -e
	}
	// The value is digits × 10^shift ns, with n digits before the point.
	digits := strings.TrimLeft(intPart+fracPart, "0")
	shift := e + 3 - len(fracPart)
	n := len(digits) + shift
	if digits == "" || n < 0 {
		return 0, nil // below a tenth of a ns
	}
	if n > 19 {
		return 0, ErrRange
	}
	var u uint64 // at most 19 digits: no overflow
	for k := range n {
		d := uint64(0)
		if k < len(digits) {
			d = uint64(digits[k] - '0')
		}
		u = u*10 + d
	}
	if n < len(digits) && digits[n] >= '5' {
		u++ // half away from zero
	}
	switch {
	case !neg && u <= 1<<63-1:
		return int64(u), nil
	case neg && u <= 1<<63:
		return int64(-u), nil
	}
	return 0, ErrRange
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// eightDigits reads s, eight bytes, as a decimal number if all are digits,
// in one word (SWAR): pairs, quads and then the eight are combined by
// multiplications, the first byte the most significant digit.
func eightDigits(s string) (int64, bool) {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	// A digit is 0x30 to 0x39: its high nibble is 3, and still 3 after
	// adding 6 (a carry from a byte that is no digit moves only up).
	d := (x&(ones*0xf0) ^ ones*0x30) | ((x+ones*6)&(ones*0xf0) ^ ones*0x30)
	if (d+ones*0x70|d)&high != 0 {
		return 0, false
	}
	x -= ones * '0'
	x = (x*10 + x>>8) & 0x00ff00ff00ff00ff
	x = (x*100 + x>>16) & 0x0000ffff0000ffff
	x = (x*10000 + x>>32) & 0xffffffff
	return int64(x), true
}
