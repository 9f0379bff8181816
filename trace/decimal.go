package trace

import (
	"errors"
	"math/big"
	"strings"
)

var (
	errNotNumber = errors.New("not a number")
	errRange     = errors.New("out of range for int64 nanoseconds")
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
	if s == "" {
		return 0, errNotNumber
	}
	// Fast path: digits, optionally '.' and digits, no exponent.
	var whole int64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if whole > (1<<63-1-9)/10 {
			return 0, errRange
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
	if intDigits == 0 && fracDigits == 0 {
		return 0, errNotNumber
	}
	if i < len(s) {
		if s[i] == 'e' || s[i] == 'E' {
			return microsToNanosSlow(neg, s)
		}
		return 0, errNotNumber
	}
	if round {
		frac++
	}
	const maxNS = 1<<63 - 1
	if whole > maxNS/1000 || whole*1000 > maxNS-frac {
		return 0, errRange
	}
	ns := whole*1000 + frac
	if neg {
		ns = -ns
	}
	return ns, nil
}

// microsToNanosSlow handles exponents with exact rational arithmetic.
func microsToNanosSlow(neg bool, s string) (int64, error) {
	if mant, exp, ok := strings.Cut(strings.ToLower(s), "e"); ok {
		// Bound the exponent before big.Rat sees it: 1e400 would otherwise
		// allocate a 400-digit number, and 1e999999999 far more.
		e := strings.TrimLeft(exp, "+-")
		if len(e) > 3 || mant == "" {
			return 0, errRange
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, errNotNumber
	}
	r.Mul(r, big.NewRat(1000, 1))
	// Round half away from zero: floor(|r| + 1/2).
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() {
		return 0, errRange
	}
	ns := q.Int64()
	if neg {
		ns = -ns
	}
	return ns, nil
}
