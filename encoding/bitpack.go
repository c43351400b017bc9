package encoding

import "encoding/binary"

// TS_2DIFF packs fixed-width fields most significant bit first: field i of width w occupies bits
// [i*w, (i+1)*w) of the byte string, where bit 0 is the high bit of byte 0. The final byte is
// padded with low-order bits that readers ignore.

// readBits returns the width-bit field starting at bit pos of src.
// The caller guarantees 1 <= width <= 64 and pos+width <= 8*len(src).
func readBits(src []byte, pos, width uint) uint64 {
	i, s := pos>>3, pos&7
	if i+8 > uint(len(src)) {
		return readBitsTail(src, pos, width)
	}
	// One unaligned 64-bit load covers the field unless it starts late in its first byte
	// and is wider than 64-s bits; the rest then sits at the top of the ninth byte.
	x := binary.BigEndian.Uint64(src[i:])
	v := x << s >> (64 - width)
	if s+width > 64 {
		v |= uint64(src[i+8]) >> (72 - s - width)
	}
	return v
}

// readBitsTail is readBits for fields within the last eight bytes of src, where a 64-bit load
// would run past the end.
func readBitsTail(src []byte, pos, width uint) uint64 {
	var v uint64
	for width > 0 {
		i, s := pos>>3, pos&7
		take := min(8-s, width)
		b := (uint64(src[i]) << s & 0xff) >> (8 - take)
		v = v<<take | b
		pos += take
		width -= take
	}
	return v
}

// bitWriter appends fixed-width fields to a byte slice most significant bit first.
type bitWriter struct {
	buf []byte
	acc uint64 // pending bits are the low n bits
	n   uint   // always < 8 between calls
}

// write appends the low width bits of v; the caller guarantees v < 1<<width and width <= 64.
func (w *bitWriter) write(v uint64, width uint) {
	// acc holds fewer than 8 pending bits, so at most 56 more fit without losing any.
	if width > 56 {
		w.write(v>>32, width-32)
		v &= 1<<32 - 1
		width = 32
	}
	w.acc = w.acc<<width | v
	w.n += width
	for w.n >= 8 {
		w.n -= 8
		w.buf = append(w.buf, byte(w.acc>>w.n))
	}
}

// finish pads the last partial byte with zero bits and returns the buffer.
func (w *bitWriter) finish() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc<<(8-w.n)))
		w.n = 0
	}
	return w.buf
}
