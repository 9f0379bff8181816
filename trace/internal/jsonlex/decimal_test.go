package jsonlex

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestMicrosToNanos(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"1420179485153.755", 1420179485153755, false}, // 16 significant digits: float64 cannot hold it
		{"1623142623460111", 1623142623460111000, false},
		{"0", 0, false},
		{"12.345", 12345, false},
		{"12.5", 12500, false},
		{"12.", 12000, false},
		{".5", 500, false},
		{"-3.25", -3250, false},
		{"6520618861901.761", 6520618861901761, false},
		{"1.2344", 1234, false}, // below half a ns: down
		{"1.2345", 1235, false}, // half: away from zero
		{"-1.2345", -1235, false},
		{"1e3", 1000000, false},
		{"1.5E-3", 2, false}, // 1.5 ns rounds to 2
		{"9223372036854775", 9223372036854775000, false},
		{"9223372036854776", 0, true}, // beyond int64 ns
		{"1e400", 0, true},
		{"1e-400", 0, false}, // a valid number: 0 ns
		{"1e9999", 0, true},
		{"", 0, true},
		{"-", 0, true},
		{"abc", 0, true},
		{"1.2.3", 0, true},
		{"N/A", 0, true},
		{"99999999999999999999999", 0, true},
		{"14201794851537550000000e-9", 14201794851537550, false}, // more digits than an int64, then an exponent
		{"1e0003", 1000000, false},
		{"-9223372036854775.808", -1 << 63, false},
		{"9223372036854775.808", 0, true},
		{"0e999999999999", 0, false},
		{"1e-999999999999", 0, false},
		{"1." + strings.Repeat("1", 1<<20) + "e5", 111111111, false}, // linear time: this took 1.7 s
		{"1e", 0, true},
		{"1e+", 0, true},
		{"1.5e3.2", 0, true},
	}
	for _, tt := range tests {
		got, err := MicrosToNanos(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("MicrosToNanos(%.60q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// FuzzMicrosToNanos checks MicrosToNanos against exact rational arithmetic
// on every decimal number, with or without exponent, and that it accepts
// nothing else.
func FuzzMicrosToNanos(f *testing.F) {
	for _, s := range []string{"1420179485153.755", "12.5", "-3.2345", "1e3", "0.0005", "9223372036854775.807",
		"14201794851537550000000e-9", "1e0003", "-9223372036854775.808", "1.5E-3", "00000000000000000000001.5"} {
		f.Add(s)
	}
	decimal := regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?([0-9]+))?$`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := MicrosToNanos(s)
		m := decimal.FindStringSubmatch(s)
		if m == nil {
			if err == nil {
				t.Fatalf("MicrosToNanos(%q) = %d, but it is not a number", s, got)
			}
			return
		}
		if exp, _ := strconv.Atoi(m[3]); len(m[3]) > 6 || exp > 400 {
			return // too large for big.Rat to be quick; TestMicrosToNanos has such
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("big.Rat does not read %q", s)
		}
		r.Mul(r, big.NewRat(1000, 1))
		neg := r.Sign() < 0
		r.Abs(r)
		r.Add(r, big.NewRat(1, 2))
		q := new(big.Int).Quo(r.Num(), r.Denom())
		if neg {
			q.Neg(q)
		}
		if q.IsInt64() != (err == nil) || err == nil && q.Int64() != got {
			t.Fatalf("MicrosToNanos(%q) = %d, %v; want %s", s, got, err, q)
		}
	})
}

// TestEightDigits puts every byte value at every place of eight digits
// and requires eightDigits to agree with strconv.
func TestEightDigits(t *testing.T) {
	for _, base := range []string{"00000000", "12345678", "99999999", "90000009"} {
		for at := range 8 {
			for c := range 256 {
				b := []byte(base)
				b[at] = byte(c)
				got, ok := eightDigits(string(b))
				want, err := strconv.ParseUint(string(b), 10, 64)
				if wok := err == nil && b[0] != '+' && b[0] != '-'; ok != wok || ok && uint64(got) != want {
					t.Fatalf("eightDigits(%q) = %d, %v; strconv: %d, %v", b, got, ok, want, err)
				}
			}
		}
	}
}
