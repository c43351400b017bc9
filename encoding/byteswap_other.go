//go:build !amd64 || purego

package encoding

func swapWords64(dst []uint64, src []byte) { swapWords64Generic(dst, src) }

func swapWords32(dst []uint32, src []byte) { swapWords32Generic(dst, src) }

// swapAVX2 exists so that tests can toggle it on every platform.
var swapAVX2 = false
