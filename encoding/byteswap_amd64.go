//go:build amd64 && !purego

package encoding

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// swapAVX2 is whether the AVX2 loops may run; tests turn it off to check
// the generic loops on the same machine.
var swapAVX2 = cpu.X86.HasAVX2

// swap64AVX2 byte-swaps n 8-byte words from src to dst; n is a multiple
// of 8.
//
//go:noescape
func swap64AVX2(dst, src unsafe.Pointer, n int)

// swap32AVX2 byte-swaps n 4-byte words from src to dst; n is a multiple
// of 16.
//
//go:noescape
func swap32AVX2(dst, src unsafe.Pointer, n int)

func swapWords64(dst []uint64, src []byte) {
	_ = src[:8*len(dst)]
	done := 0
	if swapAVX2 && len(dst) >= 8 {
		done = len(dst) &^ 7
		swap64AVX2(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), done)
	}
	swapWords64Generic(dst[done:], src[8*done:])
}

func swapWords32(dst []uint32, src []byte) {
	_ = src[:4*len(dst)]
	done := 0
	if swapAVX2 && len(dst) >= 16 {
		done = len(dst) &^ 15
		swap32AVX2(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), done)
	}
	swapWords32Generic(dst[done:], src[4*done:])
}
