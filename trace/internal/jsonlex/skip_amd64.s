#include "textflag.h"

// BCAST sets Y to the quadword C repeated, through AX.
#define BCAST(C, X, Y) \
	MOVQ $C, AX; VMOVQ AX, X; VPBROADCASTQ X, Y

// MASK64 sets out to the 64-bit mask of the bytes in lo:hi equal to those
// of Y; it uses Y2, Y3 and DX.
#define MASK64(Y, lo, hi, out) \
	VPCMPEQB lo, Y, Y2; VPMOVMSKB Y2, out; \
	VPCMPEQB hi, Y, Y3; VPMOVMSKB Y3, DX; \
	SHLQ $32, DX; ORQ DX, out

// func skip64AVX2(p *byte, n int, inStr uint64, depth int) (done int, inStrOut uint64, depthOut int)
// See skip64 in bytemask_amd64.go.
TEXT ·skip64AVX2(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ inStr+16(FP), R8
	MOVQ depth+24(FP), R9
	XORQ DI, DI

	BCAST(0x5c5c5c5c5c5c5c5c, X8, Y8)   // '\\'
	BCAST(0x2222222222222222, X9, Y9)   // '"'
	BCAST(0x2020202020202020, X10, Y10) // the bit between '{' and '['
	BCAST(0x7b7b7b7b7b7b7b7b, X11, Y11) // '{' or '[', with that bit set
	BCAST(0x7d7d7d7d7d7d7d7d, X12, Y12) // '}' or ']', the same
	MOVQ $-1, AX
	VMOVQ AX, X13

chunk:
	LEAQ 64(DI), AX
	CMPQ AX, CX
	JGT  stop
	VMOVDQU (SI)(DI*1), Y0
	VMOVDQU 32(SI)(DI*1), Y1

	// A backslash: the caller goes a byte at a time.
	VPCMPEQB Y0, Y8, Y2
	VPCMPEQB Y1, Y8, Y3
	VPOR     Y2, Y3, Y2
	VPTEST   Y2, Y2
	JNZ      stop

	// R10: the bytes inside strings, by a carry-less multiplication of
	// the quote bits by all ones (a prefix XOR), continuing the last
	// chunk's string; R11: the others.
	MASK64(Y9, Y0, Y1, AX)
	VMOVQ      AX, X4
	VPCLMULQDQ $0, X13, X4, X4
	VMOVQ      X4, R10
	XORQ       R8, R10
	MOVQ       R10, R11
	NOTQ       R11

	// AX, BX: opening and closing brackets outside strings.
	VPOR    Y0, Y10, Y0
	VPOR    Y1, Y10, Y1
	MASK64(Y11, Y0, Y1, AX)
	ANDQ    R11, AX
	MASK64(Y12, Y0, Y1, BX)
	ANDQ    R11, BX

	// Fewer closing brackets than the depth: the value goes on.
	POPCNTQ BX, R12
	CMPQ    R12, R9
	JGE     brackets
	POPCNTQ AX, R13
	ADDQ    R13, R9
	SUBQ    R12, R9

next:
	SARQ $63, R10
	MOVQ R10, R8
	ADDQ $64, DI
	JMP  chunk

	// Otherwise follow the brackets in order (R13) to the one that
	// brings the depth to zero, if one does.
brackets:
	MOVQ AX, R13
	ORQ  BX, R13

bracket:
	TESTQ R13, R13
	JZ    next
	BSFQ  R13, R12
	LEAQ  -1(R13), DX
	ANDQ  DX, R13
	BTQ   R12, AX
	JCS   open
	DECQ  R9
	JNZ   bracket
	LEAQ  1(DI)(R12*1), DI
	JMP   stop

open:
	INCQ R9
	JMP  bracket

stop:
	MOVQ DI, done+32(FP)
	MOVQ R8, inStrOut+40(FP)
	MOVQ R9, depthOut+48(FP)
	VZEROUPPER
	RET
