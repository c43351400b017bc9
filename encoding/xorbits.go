package encoding

import (
	"encoding/binary"
	"unsafe"
)

// The XOR encodings (GORILLA_V1, GORILLA and CHIMP) write variable-width fields most
// significant bit first, as the Java GorillaEncoderV1 and GorillaEncoderV2 bit buffers do:
// bit 0 of the stream is the high bit of its first byte. This file holds the bit reader and
// writer they share, the checks of how their streams end, and the views of value slices as
// their IEEE 754 or two's-complement bits.

// xorReader reads an MSB-first bit stream from a 64-bit buffer that is refilled with one
// unaligned load while eight bytes remain. Past the end of src it supplies zero bits instead
// of failing, so that the decoders' hot loops need no bounds check per field; they check for
// an overrun after each value, and a stream that ends early is reported there.
type xorReader struct {
	src []byte
	// acc holds the next unread bit in its most significant bit. Of its 64 bits the top n are
	// valid; every bit below them is either zero or already the stream's next bit, which is
	// what lets xorFill OR a whole 64-bit load into it.
	acc uint64
	n   uint // valid bits in acc, at most 63
	pos int  // bytes moved into acc so far, counting the zero bytes supplied past the end
}

// newXORReader returns a reader of src starting at byte start.
func newXORReader(src []byte, start int) xorReader {
	return xorReader{src: src, pos: start}
}

// The decoders' hot loops copy the reader's fields into local variables, so that they stay in
// registers, and inline xorFill and the fast path of read by hand (the compiler judges them
// too large to inline); the tail and wide cases stay out of line to keep those loops compact.

// xorFill tops acc up to at least 56 valid bits.
func xorFill(src []byte, acc uint64, n uint, pos int) (uint64, uint, int) {
	if pos <= len(src)-8 {
		acc |= binary.BigEndian.Uint64(src[pos:]) >> n
		// Whole bytes now in acc; the part of the eighth byte below n is reloaded next time.
		return acc, n | 56, pos + int(63-n)>>3
	}
	return xorFillTail(src, acc, n, pos)
}

// xorFillTail is xorFill for the last seven bytes of src and beyond, one byte at a time.
//
//go:noinline
func xorFillTail(src []byte, acc uint64, n uint, pos int) (uint64, uint, int) {
	for ; n <= 56; n += 8 {
		var b byte
		if pos < len(src) {
			b = src[pos]
		}
		acc |= uint64(b) << (56 - n)
		pos++
	}
	return acc, n, pos
}

// xorGetSlow reads a field of k > n bits, k <= 64, refilling as needed.
//
//go:noinline
func xorGetSlow(src []byte, acc uint64, n uint, pos int, k uint) (v, acc2 uint64, n2 uint, pos2 int) {
	acc, n, pos = xorFill(src, acc, n, pos)
	if k <= n {
		return acc >> (64 - k), acc << k, n - k, pos
	}
	// 57 to 64 bits: take the n valid ones, then the rest after another refill.
	hi := acc >> (64 - n)
	k -= n
	acc, n, pos = xorFill(src, 0, 0, pos)
	return hi<<k | acc>>(64-k), acc << k, n - k, pos
}

// read returns the next k bits as an unsigned value, for any 0 <= k <= 64.
func (r *xorReader) read(k uint) (v uint64) {
	if k <= r.n {
		v = r.acc >> (64 - k) // a shift by 64 gives the 0 that k == 0 wants
		r.acc <<= k
		r.n -= k
		return v
	}
	v, r.acc, r.n, r.pos = xorGetSlow(r.src, r.acc, r.n, r.pos, k)
	return v
}

// consumed returns the number of bits read so far, counted from the start of src.
func (r *xorReader) consumed() int { return 8*r.pos - int(r.n) }

// overrun reports whether more bits have been read than src holds. Zero bytes are only ever
// supplied once pos has passed the end, which keeps the common case to one comparison.
func (r *xorReader) overrun() bool {
	return r.pos > len(r.src) && r.consumed() > 8*len(r.src)
}

// endAfterFlip checks that the stream ends as the Java GorillaEncoderV2 flush leaves it once
// its end-of-stream value is written: the partial byte, zero padded, is written out, and a
// stream whose bits end on a byte boundary gets a whole zero byte, because the Java reader
// loads the byte after a field's last bit eagerly. It returns the offset of the first
// offending byte and a description, or ok.
func (r *xorReader) endAfterFlip() (off int, what string, ok bool) {
	c := r.consumed()
	return xorCheckPadding(r.src, c, c/8+1)
}

// endAfterPad checks that the stream ends as the Java GorillaEncoderV1 flush leaves it: the
// last partial byte zero padded and nothing after it.
func (r *xorReader) endAfterPad() (off int, what string, ok bool) {
	c := r.consumed()
	return xorCheckPadding(r.src, c, (c+7)/8)
}

// xorCheckPadding checks that src is exactly size bytes long and that every bit from bit c
// onward is zero; c <= 8*size.
func xorCheckPadding(src []byte, c, size int) (off int, what string, ok bool) {
	switch {
	case len(src) < size:
		return len(src), "stream ends inside the padding after the end-of-stream value", false
	case len(src) > size:
		return size, "trailing bytes after the end-of-stream value", false
	}
	if c < 8*size && src[c/8]&(0xff>>(c%8)) != 0 {
		return c / 8, "padding bits after the end-of-stream value are not zero", false
	}
	return 0, "", true
}

// xorWriter appends an MSB-first bit stream to a byte slice, eight bytes at a time.
type xorWriter struct {
	buf []byte
	acc uint64 // pending bits, left aligned: the top n bits
	n   uint   // pending bits, at most 63
}

// write appends the low k bits of v, 0 <= k <= 64; higher bits of v are ignored.
func (w *xorWriter) write(v uint64, k uint) {
	if k == 0 {
		return
	}
	v &= ^uint64(0) >> (64 - k)
	free := 64 - w.n
	if k < free {
		w.acc |= v << (free - k)
		w.n += k
		return
	}
	w.buf = binary.BigEndian.AppendUint64(w.buf, w.acc|v>>(k-free))
	w.n = k - free
	w.acc = v << (64 - w.n) // a shift by 64 clears acc when v is used up
}

// padToByte appends zero bits up to the next byte boundary, as the Java GorillaEncoderV1
// flush does.
func (w *xorWriter) padToByte() { w.write(0, (8-w.n%8)%8) }

// flip appends zero bits up to the next byte boundary, or a whole zero byte when the stream
// already ends on one, as the Java GorillaEncoderV2 flush does.
func (w *xorWriter) flip() { w.write(0, 8-w.n%8) }

// finish returns the buffer with every pending whole byte appended; the caller has padded.
func (w *xorWriter) finish() []byte {
	for ; w.n >= 8; w.n -= 8 {
		w.buf = append(w.buf, byte(w.acc>>56))
		w.acc <<= 8
	}
	return w.buf
}

// The decoders and encoders work on the raw bits of the values, which have the layout of
// the unsigned integers of the same width. These views reinterpret a slice in place, without
// copying, so that one loop serves FLOAT and INT32, or DOUBLE and INT64.

func xorBitsFloat32(s []float32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func xorBitsFloat64(s []float64) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func xorBitsInt32(s []int32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func xorBitsInt64(s []int64) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// xorWord is the raw bits of a 32-bit or 64-bit value.
type xorWord interface{ ~uint32 | ~uint64 }

// xorWidth returns the number of bits of T.
func xorWidth[T xorWord]() uint { return uint(unsafe.Sizeof(T(0))) * 8 }
