//go:build amd64 && !purego

#include "textflag.h"

// VPSHUFB masks reversing the bytes of each 8-byte (swap64) or 4-byte
// (swap32) word; the shuffle works within 16-byte lanes, so each lane's
// pattern is written twice.
DATA swap64mask<>+0(SB)/8, $0x0001020304050607
DATA swap64mask<>+8(SB)/8, $0x08090a0b0c0d0e0f
DATA swap64mask<>+16(SB)/8, $0x0001020304050607
DATA swap64mask<>+24(SB)/8, $0x08090a0b0c0d0e0f
GLOBL swap64mask<>(SB), RODATA|NOPTR, $32

DATA swap32mask<>+0(SB)/8, $0x0405060700010203
DATA swap32mask<>+8(SB)/8, $0x0c0d0e0f08090a0b
DATA swap32mask<>+16(SB)/8, $0x0405060700010203
DATA swap32mask<>+24(SB)/8, $0x0c0d0e0f08090a0b
GLOBL swap32mask<>(SB), RODATA|NOPTR, $32

// func swap64AVX2(dst, src unsafe.Pointer, n int)
TEXT ·swap64AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX // bytes
	VMOVDQU swap64mask<>(SB), Y0
	JMP  swapLoop<>(SB)

// func swap32AVX2(dst, src unsafe.Pointer, n int)
TEXT ·swap32AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX // bytes
	VMOVDQU swap32mask<>(SB), Y0
	JMP  swapLoop<>(SB)

// swapLoop shuffles CX bytes (a multiple of 64) from SI to DI by the mask
// in Y0, 64 bytes an iteration.
TEXT swapLoop<>(SB), NOSPLIT|NOFRAME, $0
	TESTQ CX, CX
	JZ    done

loop:
	VMOVDQU (SI), Y1
	VMOVDQU 32(SI), Y2
	VPSHUFB Y0, Y1, Y1
	VPSHUFB Y0, Y2, Y2
	VMOVDQU Y1, (DI)
	VMOVDQU Y2, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $64, CX
	JNZ     loop

done:
	VZEROUPPER
	RET
