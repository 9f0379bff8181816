package trace

import (
	"math/big"
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
	}
	for _, tt := range tests {
		got, err := MicrosToNanos(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("MicrosToNanos(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// FuzzMicrosToNanos checks the fast path against exact rational arithmetic.
func FuzzMicrosToNanos(f *testing.F) {
	for _, s := range []string{"1420179485153.755", "12.5", "-3.2345", "1e3", "0.0005", "9223372036854775.807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := MicrosToNanos(s)
		if len(s) > 60 || strings.ContainsAny(s, "eE_xXpPiInN/ ") || err != nil {
			return // exponents and odd syntax: only "no panic" is checked
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("MicrosToNanos(%q) = %d, but it is not a number", s, got)
		}
		r.Mul(r, big.NewRat(1000, 1))
		neg := r.Sign() < 0
		r.Abs(r)
		r.Add(r, big.NewRat(1, 2))
		q := new(big.Int).Quo(r.Num(), r.Denom())
		if neg {
			q.Neg(q)
		}
		if !q.IsInt64() || q.Int64() != got {
			t.Fatalf("MicrosToNanos(%q) = %d, want %s", s, got, q)
		}
	})
}
