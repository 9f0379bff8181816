package trace

import (
	"math/rand/v2"
	"testing"
)

func TestMasks64(t *testing.T) {
	if !haveMasks64 {
		t.Skip("no AVX2 on this machine: masks64 is masks64Go")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var p [64]byte
	for range 10000 {
		for j := range p {
			p[j] = `"\{}[]a ,:`[r.IntN(10)]
			if r.IntN(8) == 0 {
				p[j] = byte(r.IntN(256))
			}
		}
		q, bs, o, c := masks64(&p[0])
		wq, wbs, wo, wc := masks64Go(&p)
		if q != wq || bs != wbs || o != wo || c != wc {
			t.Fatalf("masks64(%q) = %x %x %x %x, want %x %x %x %x", p, q, bs, o, c, wq, wbs, wo, wc)
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
