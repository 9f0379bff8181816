package jsonlex

import (
	"math/rand/v2"
	"testing"
)

// TestSkipNestedLong compares the wide skip with the byte-wise one over
// long random runs of strings, escapes and brackets, so that skip64
// passes many chunks before it stops.
func TestSkipNestedLong(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, r.IntN(1500))
		alphabet := `"{[}]a ,:`
		if r.IntN(2) == 0 {
			alphabet += `\`
		}
		for j := range b {
			b[j] = 'a'
			if r.IntN(4) == 0 {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
		}
		i, depth := r.IntN(len(b)+1), 1+r.IntN(40)
		want, werr := skipNestedBytes(b, i, depth)
		got, err := skipNestedWide(b, i, depth)
		if err != werr || err == nil && got != want {
			t.Fatalf("skipNestedWide(%q, %d, %d) = %d, %v; skipNestedBytes: %d, %v", b, i, depth, got, err, want, werr)
		}
	}
}

// FuzzSkipNested requires the wide skip to end where the byte-wise one
// does, at any start and depth.
func FuzzSkipNested(f *testing.F) {
	f.Add([]byte(`"name": "a\"}", "args": {"x": [1, {"y": "]"}]}}, {"ph"`), uint16(0), uint8(1))
	f.Add([]byte(`"\\\\\\"}}}"}]`), uint16(0), uint8(2))
	f.Add(make([]byte, 200), uint16(3), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, start uint16, d uint8) {
		i, depth := min(int(start), len(b)), max(1, int(d))
		want, werr := skipNestedBytes(b, i, depth)
		got, err := skipNestedWide(b, i, depth)
		if err != werr || err == nil && got != want {
			t.Fatalf("skipNestedWide(%q, %d, %d) = %d, %v; skipNestedBytes: %d, %v", b, i, depth, got, err, want, werr)
		}
	})
}
