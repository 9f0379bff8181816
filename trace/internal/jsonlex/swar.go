package jsonlex

import (
	"encoding/binary"
	"math/bits"
)

// A scan of strings eight bytes at a time, in one word (SWAR): most of
// the bytes of a kept event's values are in its strings, and a byte-class
// table costs a load and a branch a byte. The test below sets the high bit
// of a byte that ends the run; a borrow moves only to higher bytes and
// starts only at a byte that ends the run, so the lowest bit set marks the
// first such byte exactly, whatever the bits above it say. The byte-wise
// loop at the end is the definition (FuzzPlainRun holds them equal).

const (
	ones = 0x0101010101010101 // 1 in every byte
	high = 0x8080808080808080 // the high bit of every byte
)

// plainRun returns the index of the first byte from b[i] that a string
// scan stops at ('"', '\\' or a control character), or len(b).
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ ones*'"'
		s := x ^ ones*'\\'
		// (y - ones) &^ y has the high bit of each zero byte of y, and
		// (x - ones*0x20) &^ x that of each byte of x below 0x20.
		if m := ((q-ones)&^q | (s-ones)&^s | (x-ones*0x20)&^x) & high; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && plainStr[b[i]] {
		i++
	}
	return i
}
