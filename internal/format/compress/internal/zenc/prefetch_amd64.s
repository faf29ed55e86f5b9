#include "textflag.h"

// func prefetch(p *byte)
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func prefetchRows(rows *row, hs *[8]uint32)
TEXT ·prefetchRows(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ rows+0(FP), AX
	MOVQ hs+8(FP), BX
	MOVQ $8, DX

loop:
	MOVL (BX), CX
	SHRL $8, CX  // the row
	SHLQ $6, CX  // its offset: rows are 64 bytes
	PREFETCHT0 (AX)(CX*1)
	ADDQ $4, BX
	DECQ DX
	JNZ  loop
	RET
