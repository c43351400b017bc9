package bitmap

import (
	"encoding/binary"
	"math/bits"
)

// Bytes returns the number of bytes needed to hold n bit positions, ceil(n/8).
// n must not be negative.
func Bytes(n int) int {
	return (n + 7) >> 3
}

// GetLSB reports whether position i of the LSB-first (Arrow) bitmap b is set.
// It panics if i is outside b.
func GetLSB(b []byte, i int) bool {
	return b[i>>3]&(1<<uint(i&7)) != 0
}

// SetLSB sets position i of the LSB-first (Arrow) bitmap b.
// It panics if i is outside b.
func SetLSB(b []byte, i int) {
	b[i>>3] |= 1 << uint(i&7)
}

// ClearLSB clears position i of the LSB-first (Arrow) bitmap b.
// It panics if i is outside b.
func ClearLSB(b []byte, i int) {
	b[i>>3] &^= 1 << uint(i&7)
}

// GetMSB reports whether position i of the MSB-first (TsFile) bitmap b is set.
// It panics if i is outside b.
func GetMSB(b []byte, i int) bool {
	return b[i>>3]&(0x80>>uint(i&7)) != 0
}

// SetMSB sets position i of the MSB-first (TsFile) bitmap b.
// It panics if i is outside b.
func SetMSB(b []byte, i int) {
	b[i>>3] |= 0x80 >> uint(i&7)
}

// CountMSB returns the number of set bits among the first n positions of the
// MSB-first bitmap src. The unused low-order bits of the last byte are
// ignored, so a writer that left garbage there does not inflate the count.
//
// It panics if n is negative or len(src) < Bytes(n).
func CountMSB(src []byte, n int) int {
	checkCount(n)
	if len(src) < Bytes(n) {
		panic("bitmap: CountMSB: src shorter than Bytes(n)")
	}
	full := n >> 3
	c := 0
	// Popcount does not care about bit order, so whole words can be counted
	// as loaded.
	s := src[:full]
	for len(s) >= 8 {
		c += bits.OnesCount64(binary.LittleEndian.Uint64(s))
		s = s[8:]
	}
	for _, b := range s {
		c += bits.OnesCount8(b)
	}
	if r := n & 7; r != 0 {
		c += bits.OnesCount8(src[full] & highMask(r))
	}
	return c
}

// AllSetMSB reports whether all of the first n positions of the MSB-first
// bitmap src are set. A page with no nulls needs no validity bitmap and can
// be decoded straight into place, so callers test this first. AllSetMSB is
// true for n == 0.
//
// It panics if n is negative or len(src) < Bytes(n).
func AllSetMSB(src []byte, n int) bool {
	checkCount(n)
	if len(src) < Bytes(n) {
		panic("bitmap: AllSetMSB: src shorter than Bytes(n)")
	}
	full := n >> 3
	s := src[:full]
	for len(s) >= 8 {
		if binary.LittleEndian.Uint64(s) != ^uint64(0) {
			return false
		}
		s = s[8:]
	}
	for _, b := range s {
		if b != 0xFF {
			return false
		}
	}
	if r := n & 7; r != 0 {
		m := highMask(r)
		return src[full]&m == m
	}
	return true
}

// highMask returns a byte with its r (1..8) most significant bits set: the
// valid positions of a partial MSB-first byte.
func highMask(r int) byte {
	return byte(0xFF << uint(8-r))
}

// lowMask returns a byte with its r (0..8) least significant bits set: the
// valid positions of a partial LSB-first byte.
func lowMask(r uint) byte {
	return byte(1<<r - 1)
}

// reverseEachByte reverses the bit order inside each of the eight bytes of x
// while keeping the bytes where they are. It equals
// bits.ReverseBytes64(bits.Reverse64(x)) but skips the two byte swaps, and a
// shift-and-mask network beats eight table lookups per word.
func reverseEachByte(x uint64) uint64 {
	const (
		m1 = 0x5555555555555555
		m2 = 0x3333333333333333
		m4 = 0x0f0f0f0f0f0f0f0f
	)
	x = x>>1&m1 | x&m1<<1
	x = x>>2&m2 | x&m2<<2
	x = x>>4&m4 | x&m4<<4
	return x
}

func checkCount(n int) {
	if n < 0 {
		panic("bitmap: negative position count")
	}
}
