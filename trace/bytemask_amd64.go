package trace

import "golang.org/x/sys/cpu"

// haveMasks64 says masks64 runs in vector instructions, so that scanning
// 64 bytes at a time pays.
var haveMasks64 = cpu.X86.HasAVX2

// masks64 is masks64Go in AVX2; call it only when haveMasks64.
//
//go:noescape
func masks64(p *byte) (quote, bslash, open, close uint64)
