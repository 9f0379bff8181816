package jsonlex

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// plainRunBytes is plainRun a byte at a time: its definition.
func plainRunBytes(b []byte, i int) int {
	for i < len(b) && plainStr[b[i]] {
		i++
	}
	return i
}

// TestPlainRunEveryByte puts each byte value at each place of a run of
// plain bytes, and after a byte of each value (a borrow into the next
// byte), and requires plainRun to stop where the byte-wise scan does.
func TestPlainRunEveryByte(t *testing.T) {
	for c := range 256 {
		for _, before := range []int{-1, 0, 0x1f, 0x20, 0x21, 0x22, 0x5c, 0x7f, 0x80, 0xff} {
			for at := range 20 {
				b := []byte("abcdefghijklmnopqrstuvwxyz")
				b[at] = byte(c)
				if before >= 0 && at > 0 {
					b[at-1] = byte(before)
				}
				for i := range len(b) + 1 {
					if got, want := plainRun(b, i), plainRunBytes(b, i); got != want {
						t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
					}
				}
			}
		}
	}
}

// TestStringsAgainstJSON checks the lexer against encoding/json
// (checkLexer) on objects whose strings hold escaped quotes, backslashes,
// brackets, control characters and UTF-8 at every alignment, whole and
// cut short anywhere.
func TestStringsAgainstJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{`a`, `\"`, `\\`, `]`, `}`, `{`, `[`, ` `, `µ`, "\xff", `\u00b5`, `\n`, `bcdefghij`, `", "k": "`}
	bad := []string{"\x01", "\x1f", `\`, `"`, `\x`, `\u00`}
	valid := 0
	for range 20000 {
		s := `{"name": "`
		for range r.IntN(30) {
			if r.IntN(20) == 0 {
				s += bad[r.IntN(len(bad))]
			} else {
				s += pieces[r.IntN(len(pieces))]
			}
		}
		b := []byte(s + `", "args": {"x": ["]}", 1]}}`)
		if r.IntN(2) == 0 {
			b = b[:r.IntN(len(b)+1)]
		}
		if json.Valid(b) {
			valid++
		}
		checkLexer(t, b)
	}
	if valid < 4000 {
		t.Fatalf("%d valid texts of 20000: too few to compare decodes", valid)
	}
}

// FuzzPlainRun requires plainRun to stop where the byte-wise scan does.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`abcdefgh\"ijklmnop"`), uint8(0))
	f.Add([]byte("abcdefg\x1fhijklmnop"), uint8(1))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\"\x00"), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, start uint8) {
		i := min(int(start), len(b))
		if got, want := plainRun(b, i), plainRunBytes(b, i); got != want {
			t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}
