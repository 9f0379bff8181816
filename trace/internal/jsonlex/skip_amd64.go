package jsonlex

import "golang.org/x/sys/cpu"

// haveSkip64 says skip64 runs in vector instructions.
var haveSkip64 = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT

// skip64 follows strings and brackets through the whole 64-byte chunks
// of the n bytes at p, as nestedBytes does, from a state: inStr all ones
// inside a string, and depth. It returns the index past the bracket that
// brings the depth to zero, and depth 0; or, stopping before the first
// chunk that holds a backslash or is not whole, how far it went and the
// state there. Without haveSkip64 it goes nowhere.
func skip64(p *byte, n int, inStr uint64, depth int) (done int, _ uint64, _ int) {
	if !haveSkip64 {
		return 0, inStr, depth
	}
	return skip64AVX2(p, n, inStr, depth)
}

// skip64AVX2 is skip64 in AVX2, PCLMULQDQ and POPCNT instructions.
//
//go:noescape
func skip64AVX2(p *byte, n int, inStr uint64, depth int) (done int, inStrOut uint64, depthOut int)
