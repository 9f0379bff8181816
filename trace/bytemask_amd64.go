package trace

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveMasks64 says masks64 runs in vector instructions, so that scanning
// 64 bytes at a time pays.
var haveMasks64 = cpu.X86.HasAVX2

// masks64 returns masks64Go of the 64 bytes at p.
func masks64(p *byte) (quote, bslash, open, close uint64) {
	if haveMasks64 {
		return masks64AVX2(p)
	}
	return masks64Go((*[64]byte)(unsafe.Pointer(p)))
}

// masks64AVX2 is masks64Go in AVX2 instructions.
//
//go:noescape
func masks64AVX2(p *byte) (quote, bslash, open, close uint64)
