#include "textflag.h"

// MASK sets out to the 64-bit mask of the bytes in lo:hi equal to the byte
// c repeated in the quadword C.
#define MASK(C, lo, hi, out) \
	MOVQ $C, AX; MOVQ AX, X2; VPBROADCASTQ X2, Y2; \
	VPCMPEQB lo, Y2, Y3; VPMOVMSKB Y3, AX; \
	VPCMPEQB hi, Y2, Y3; VPMOVMSKB Y3, BX; \
	SHLQ $32, BX; ORQ BX, AX; MOVQ AX, out

// func masks64AVX2(p *byte) (quote, bslash, open, close uint64)
// Bit j of each result is set when p[j] is '"', '\\', '{' or '[', and
// '}' or ']'. The 64 bytes at p must be readable.
TEXT ·masks64AVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	// '{' and '[' (and '}' and ']') differ only in bit 0x20.
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X2
	VPBROADCASTQ X2, Y2
	VPOR Y0, Y2, Y4
	VPOR Y1, Y2, Y5

	MASK(0x2222222222222222, Y0, Y1, quote+8(FP))
	MASK(0x5c5c5c5c5c5c5c5c, Y0, Y1, bslash+16(FP))
	MASK(0x7b7b7b7b7b7b7b7b, Y4, Y5, open+24(FP))
	MASK(0x7d7d7d7d7d7d7d7d, Y4, Y5, close+32(FP))

	VZEROUPPER
	RET
