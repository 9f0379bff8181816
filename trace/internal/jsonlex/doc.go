// Package jsonlex is the Kineto reader's hand-written JSON machinery: a
// lexer over byte slices that may end in the middle of a value (every
// function returns ErrMore when it needs bytes past the end of its slice,
// so that a caller holding a block of a larger file can retry with more),
// a Scanner that cuts the top level of a stream into values, exact decimal
// microseconds to nanoseconds (MicrosToNanos), and SkipNested, which skips
// the rest of a dropped object 64 bytes at a time in AVX2 where it can.
//
// It exists for speed: encoding/json and gjson cannot resume a value cut
// at a block boundary, allocate per value, and check every byte of the
// events the reader drops (flows, python_function, polls), which are most
// of a real trace. BenchmarkKinetoOpen and BenchmarkEventDecoder in
// package trace, and whole-process `traceql summarize` of a 1 GB
// generated trace against `wc -l`, tell whether it still earns its lines:
// if encoding/json/v2's jsontext.Decoder, or gjson over whole blocks,
// comes within a few percent, this package should go.
//
// Positions are indices into the slice. Two kinds of skipping exist.
// Lexer.SkipValue checks the full JSON grammar (and accepts the malformed
// tokens known Kineto versions wrote, setting Lexer.Lenient); SkipNested
// only follows strings and brackets, for the rest of an object that is
// dropped anyway. FuzzLexer checks the lexer against encoding/json.
package jsonlex
