package bitmap

import (
	"encoding/binary"
	"math/bits"
)

// MSBToLSB writes the first n positions of the MSB-first (TsFile) bitmap src
// into the LSB-first (Arrow) bitmap dst, starting at bit offset dstOff, and
// returns the number of set bits written. Bits of dst outside
// [dstOff, dstOff+n) are preserved, so pages can be appended one after
// another into a shared validity buffer. Unused low-order bits of the last
// source byte are ignored.
//
// When dstOff is a multiple of 8 each converted word is stored as is;
// otherwise it is shifted so that it straddles two destination words.
//
// It panics if n or dstOff is negative, len(src) < Bytes(n), or
// len(dst) < Bytes(dstOff+n).
func MSBToLSB(dst []byte, dstOff int, src []byte, n int) int {
	checkCount(n)
	if dstOff < 0 {
		panic("bitmap: MSBToLSB: negative dstOff")
	}
	if len(src) < Bytes(n) {
		panic("bitmap: MSBToLSB: src shorter than Bytes(n)")
	}
	if len(dst) < Bytes(dstOff+n) {
		panic("bitmap: MSBToLSB: dst shorter than Bytes(dstOff+n)")
	}
	if n == 0 {
		return 0
	}
	full := n >> 3
	rem := uint(n & 7)
	d := dst[dstOff>>3:]
	sh := uint(dstOff & 7)
	c := 0

	if sh == 0 {
		s, o := src[:full], d[:full]
		for len(s) >= 8 && len(o) >= 8 {
			w := reverseEachByte(binary.LittleEndian.Uint64(s))
			c += bits.OnesCount64(w)
			binary.LittleEndian.PutUint64(o, w)
			s, o = s[8:], o[8:]
		}
		for i, b := range s {
			o[i] = bits.Reverse8(b)
		}
		c += countBytes(s)
		if rem != 0 {
			r := bits.Reverse8(src[full]) & lowMask(rem)
			c += bits.OnesCount8(r)
			d[full] = d[full]&^lowMask(rem) | r
		}
		return c
	}

	// Unaligned: each output byte takes its low sh bits from the previous
	// source byte and its high 8-sh bits from the current one. carry holds
	// the bits still owed to the next output byte; it starts with the dst
	// bits below dstOff so the first store preserves them.
	carry := uint64(d[0] & lowMask(sh))
	s, o := src[:full], d[:full]
	for len(s) >= 8 && len(o) >= 8 {
		w := reverseEachByte(binary.LittleEndian.Uint64(s))
		c += bits.OnesCount64(w)
		binary.LittleEndian.PutUint64(o, carry|w<<sh)
		carry = w >> (64 - sh)
		s, o = s[8:], o[8:]
	}
	for i, b := range s {
		r := uint64(bits.Reverse8(b))
		o[i] = byte(carry | r<<sh)
		carry = r >> (8 - sh)
	}
	c += countBytes(s)

	// Flush carry plus the partial last byte: sh+rem bits (at most 14)
	// starting at bit 0 of d[full], preserving whatever lies beyond.
	p, pb := carry, sh
	if rem != 0 {
		r := uint64(bits.Reverse8(src[full]) & lowMask(rem))
		c += bits.OnesCount64(r)
		p |= r << sh
		pb += rem
	}
	j := full
	if pb > 8 {
		d[j] = byte(p)
		j++
		p >>= 8
		pb -= 8
	}
	m := lowMask(pb)
	d[j] = d[j]&^m | byte(p)&m
	return c
}

// LSBToMSB is the inverse of MSBToLSB, for writers: it reads n positions of
// the LSB-first (Arrow) bitmap src starting at bit offset srcOff and writes
// them as an MSB-first (TsFile) bitmap into dst[:Bytes(n)], with the unused
// trailing bits of the last byte zero as the format expects. dst beyond
// Bytes(n) is not touched. It returns the number of set bits.
//
// It panics if n or srcOff is negative, len(dst) < Bytes(n), or
// len(src) < Bytes(srcOff+n).
func LSBToMSB(dst []byte, src []byte, srcOff, n int) int {
	checkCount(n)
	if srcOff < 0 {
		panic("bitmap: LSBToMSB: negative srcOff")
	}
	if len(dst) < Bytes(n) {
		panic("bitmap: LSBToMSB: dst shorter than Bytes(n)")
	}
	if len(src) < Bytes(srcOff+n) {
		panic("bitmap: LSBToMSB: src shorter than Bytes(srcOff+n)")
	}
	if n == 0 {
		return 0
	}
	full := n >> 3
	rem := uint(n & 7)
	s := src[srcOff>>3:]
	sh := uint(srcOff & 7)
	c := 0

	if sh == 0 {
		in, o := s[:full], dst[:full]
		for len(in) >= 8 && len(o) >= 8 {
			w := reverseEachByte(binary.LittleEndian.Uint64(in))
			c += bits.OnesCount64(w)
			binary.LittleEndian.PutUint64(o, w)
			in, o = in[8:], o[8:]
		}
		c += countBytes(in)
		for i, b := range in {
			o[i] = bits.Reverse8(b)
		}
		if rem != 0 {
			r := s[full] & lowMask(rem)
			c += bits.OnesCount8(r)
			dst[full] = bits.Reverse8(r)
		}
		return c
	}

	// Unaligned: output byte i gathers the high 8-sh bits of s[i] and the low
	// sh bits of s[i+1]. Whenever a whole output byte is due, s[i+1] holds
	// positions below n, so it is within Bytes(srcOff+n).
	i := 0
	for ; i+8 <= full; i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])>>sh | uint64(s[i+8])<<(64-sh)
		c += bits.OnesCount64(w)
		binary.LittleEndian.PutUint64(dst[i:], reverseEachByte(w))
	}
	for ; i < full; i++ {
		b := s[i]>>sh | s[i+1]<<(8-sh)
		c += bits.OnesCount8(b)
		dst[i] = bits.Reverse8(b)
	}
	if rem != 0 {
		v := s[full] >> sh
		// Only touch the next source byte if the tail actually reaches it:
		// it may lie past the end of src.
		if sh+rem > 8 {
			v |= s[full+1] << (8 - sh)
		}
		v &= lowMask(rem)
		c += bits.OnesCount8(v)
		dst[full] = bits.Reverse8(v)
	}
	return c
}

func countBytes(s []byte) int {
	c := 0
	for _, b := range s {
		c += bits.OnesCount8(b)
	}
	return c
}
