package encoding

import (
	"encoding/binary"
	"math/bits"
)

// A SPRINTZ stream is a sequence of blocks, laid out as the Java SprintzEncoder family
// writes them. Each block starts with one header byte:
//
//	0www_wwww  full block of 9 values: bit width w, then the first value, then w bytes
//	1nnn_nnnn  partial block of n values stored as a nested stream
//
// In a full block the first value is an unsigned VarInt of its 32 bits (INT32, DATE), or its
// big-endian bits: 4 bytes for FLOAT, 8 bytes for INT64, TIMESTAMP and DOUBLE. The w bytes then
// pack, most significant bit first, eight w-bit fields: the residuals of values 2 to 9 against
// the Fire predictor (see fire.go), each mapped to an unsigned number the Java way:
//
//	map(e)   = -2e if e <= 0, else 2e-1       (wrapping)
//	unmap(x) = -x/2 if x is even, else (x+1)/2 (x signed, Java's truncating division)
//
// FLOAT and DOUBLE run the predictor on the values' bit patterns as integers; for the first
// value of a block the decoder uses Java's Float.floatToIntBits, which turns every NaN into the
// canonical one, while the first value itself is stored with its raw bits.
//
// A partial block holds its values unpredicted: INT32 and INT64 as the Java RLE encoder writes
// them (one RLE package: a VarInt byte length, then a bit-width byte and RLE or bit-packed runs,
// with INT32 run values little-endian and INT64 ones big-endian; see rle.go), FLOAT and DOUBLE
// as the Java GORILLA v2 encoder writes them (first value in full, XOR-coded values, a NaN end
// marker, and a last byte that is always written; see gorilla.go).
//
// The Java writer emits one full block per 9 values and a final partial block for the 1 to 8
// left over; flushing after every 16 blocks adds nothing to the stream. The stream carries no
// total count: readers take blocks until the stream ends. The Java reader accepts a partial
// block anywhere, of 1 to 9 values (its buffer holds 9).
//
// The mapping overflows for residuals of magnitude above 2^30 (2^62 for 64-bit values): Java
// writes such a block anyway and reads it back wrong. This package writes a block whose
// residuals do not survive the mapping as a partial block of all 9 values instead, which the
// Java reader decodes correctly; every other block is byte for byte what Java writes. For FLOAT
// and DOUBLE it predicts from raw bits (only the block's first value is canonicalized, as the
// reader does), so NaN payloads survive where the Java writer would canonicalize them.

const (
	sprintzResiduals   = 8                    // packed residuals in a full block
	sprintzBlockLen    = sprintzResiduals + 1 // values in a full block
	sprintzPartialFlag = 0x80
)

// sprintzMap32 maps a residual the way the Java encoder does, overflow included.
func sprintzMap32(e int32) int32 {
	if e <= 0 {
		return -2 * e
	}
	return 2*e - 1
}

// sprintzUnmap32 inverts sprintzMap32 the way the Java decoder does; for residuals of
// magnitude above 2^30 it does not give back the original.
func sprintzUnmap32(x int32) int32 {
	if x%2 == 0 {
		return -x / 2
	}
	return (x + 1) / 2
}

func sprintzMap64(e int64) int64 {
	if e <= 0 {
		return -2 * e
	}
	return 2*e - 1
}

func sprintzUnmap64(x int64) int64 {
	if x%2 == 0 {
		return -x / 2
	}
	return (x + 1) / 2
}

const (
	sprintzNaN32 = 0x7fc00000         // Float.floatToIntBits of every NaN
	sprintzNaN64 = 0x7ff8000000000000 // Double.doubleToLongBits of every NaN
)

// sprintzBase32 is the predictor's starting point for a block whose first value has bits b.
func sprintzBase32(b uint32, float bool) int32 {
	if float && b&0x7fffffff > 0x7f800000 {
		return sprintzNaN32
	}
	return int32(b)
}

func sprintzBase64(b uint64, float bool) int64 {
	if float && b&(1<<63-1) > 0x7ff0000000000000 {
		return sprintzNaN64
	}
	return int64(b)
}

func corruptSprintz(typ string, off int, format string, args ...any) error {
	return corrupt(Sprintz, typ, off, format, args...)
}

// decodeSprintzBlock32 decodes the 32-bit block at src[off:], off < len(src), into out and
// returns the number of values it holds and the offset just past it.
func decodeSprintzBlock32(src []byte, off int, float bool, typ string, out *[sprintzBlockLen]uint32) (int, int, error) {
	hdr := src[off]
	p := off + 1
	if hdr&sprintzPartialFlag != 0 {
		n := int(hdr &^ sprintzPartialFlag)
		if n == 0 || n > sprintzBlockLen {
			return 0, 0, corruptSprintz(typ, off, "partial block of %d values; the reference holds 1 to %d", n, sprintzBlockLen)
		}
		var end int
		var err error
		if float {
			end, err = decodeSprintzGorilla(src, p, out[:n], gorillaEndFloat32, typ)
		} else {
			end, err = decodeSprintzRLE(src, p, out[:n], 4, typ)
		}
		return n, end, err
	}
	width := int(hdr)
	if width > 32 {
		return 0, 0, corruptSprintz(typ, off, "bit width %d exceeds 32", width)
	}
	var first uint32
	if float {
		if len(src)-p < 4 {
			return 0, 0, corruptSprintz(typ, p, "first value needs 4 bytes, %d left", len(src)-p)
		}
		first = binary.BigEndian.Uint32(src[p:])
		p += 4
	} else {
		u, k := uvarint32(src[p:])
		switch {
		case k == 0:
			return 0, 0, corruptSprintz(typ, p, "truncated first-value VarInt")
		case k < 0:
			return 0, 0, corruptSprintz(typ, p, "first-value VarInt overflows 32 bits")
		}
		first = u
		p += k
	}
	if len(src)-p < width {
		return 0, 0, corruptSprintz(typ, p, "%d residuals of %d bits need %d bytes, %d left", sprintzResiduals, width, width, len(src)-p)
	}
	var fields [sprintzResiduals]uint64
	sprintzFields(src[p:p+width], uint(width), &fields)
	out[0] = first
	prev := sprintzBase32(first, float)
	var f fire32
	for k, field := range fields {
		e := sprintzUnmap32(int32(field))
		cur := f.predict(prev) + e
		f.train(prev, cur, e)
		prev = cur
		out[k+1] = uint32(cur)
	}
	return sprintzBlockLen, p + width, nil
}

// decodeSprintzBlock64 is decodeSprintzBlock32 for INT64, TIMESTAMP and DOUBLE.
func decodeSprintzBlock64(src []byte, off int, float bool, typ string, out *[sprintzBlockLen]uint64) (int, int, error) {
	hdr := src[off]
	p := off + 1
	if hdr&sprintzPartialFlag != 0 {
		n := int(hdr &^ sprintzPartialFlag)
		if n == 0 || n > sprintzBlockLen {
			return 0, 0, corruptSprintz(typ, off, "partial block of %d values; the reference holds 1 to %d", n, sprintzBlockLen)
		}
		var end int
		var err error
		if float {
			end, err = decodeSprintzGorilla(src, p, out[:n], gorillaEndFloat64, typ)
		} else {
			end, err = decodeSprintzRLE(src, p, out[:n], 8, typ)
		}
		return n, end, err
	}
	width := int(hdr)
	if width > 64 {
		return 0, 0, corruptSprintz(typ, off, "bit width %d exceeds 64", width)
	}
	if len(src)-p < 8+width {
		return 0, 0, corruptSprintz(typ, p, "first value and %d residuals of %d bits need %d bytes, %d left",
			sprintzResiduals, width, 8+width, len(src)-p)
	}
	first := binary.BigEndian.Uint64(src[p:])
	p += 8
	var fields [sprintzResiduals]uint64
	sprintzFields(src[p:p+width], uint(width), &fields)
	out[0] = first
	prev := sprintzBase64(first, float)
	var f fire64
	for k, field := range fields {
		e := sprintzUnmap64(int64(field))
		cur := f.predict(prev) + e
		f.train(prev, cur, e)
		prev = cur
		out[k+1] = uint64(cur)
	}
	return sprintzBlockLen, p + width, nil
}

// sprintzFields unpacks the 8 fields of width bits (at most 64) that fill packed, most
// significant bit first. Copying the few bytes into a zero-padded buffer lets every field be
// read with one unaligned load, plus a ninth byte for the widest fields.
func sprintzFields(packed []byte, width uint, out *[sprintzResiduals]uint64) {
	var buf [8*sprintzResiduals + 9]byte
	copy(buf[:], packed)
	for k := range out {
		pos := uint(k) * width
		i, s := pos>>3, pos&7
		v := binary.BigEndian.Uint64(buf[i:]) << s >> (64 - width) // 0 for width 0
		if s+width > 64 {
			v |= uint64(buf[i+8]) >> (72 - s - width)
		}
		out[k] = v
	}
}

// decodeSprintzRLE decodes the Java RLE stream at src[off:] that a partial block of len(out)
// values of size (4 or 8) bytes holds, and returns the offset just past it. The stream must
// hold exactly len(out) values: the Java reader would silently drop extra ones, or read on into
// the next block for missing ones. Its length is read here only to bound the package: the runs
// are the RLE encoding's own (rle.go), errors naming SPRINTZ.
func decodeSprintzRLE[T uint32 | uint64](src []byte, off int, out []T, size int, typ string) (int, error) {
	length, k := uvarint32(src[off:])
	switch {
	case k == 0:
		return 0, corruptSprintz(typ, off, "truncated RLE length VarInt")
	case k < 0:
		return 0, corruptSprintz(typ, off, "RLE length VarInt overflows 32 bits")
	}
	start := off + k
	if uint64(length) > uint64(len(src)-start) {
		return 0, corruptSprintz(typ, off, "RLE stream of %d bytes overruns the %d left", length, len(src)-start)
	}
	end := start + int(length)
	if length == 0 {
		// The RLE reader would take this for the lone empty package of an empty stream.
		return 0, corruptSprintz(typ, start, "empty RLE stream has no bit width")
	}
	c := newRLECursor(src[:end], off, size, typ)
	c.enc = Sprintz
	if err := decodeRLERuns(c, out); err != nil {
		return 0, err
	}
	return end, nil
}

// decodeSprintzGorilla decodes the Java GORILLA v2 stream at src[off:] that a partial block of
// len(out) values holds, checks the end-of-stream value end that follows them and returns the
// offset just past the stream's last byte. The stream carries no length, and the next block
// follows it directly, so unlike decodeGorilla this neither requires src to end there nor
// checks the padding bits, which the Java reader ignores.
func decodeSprintzGorilla[T xorWord](src []byte, off int, out []T, end T, typ string) (int, error) {
	var s gorillaState
	if !s.start(src, off, xorWidth[T]()) {
		return 0, corruptSprintz(typ, off, "GORILLA first value needs %d bytes, %d left", xorWidth[T]()/8, len(src)-off)
	}
	out[0] = T(s.prev)
	if i, fault := gorillaNext(&s, out[1:]); fault.msg != "" {
		return 0, corruptSprintz(typ, fault.off, "GORILLA %s, after %d of %d values", fault.msg, 1+i, len(out))
	}
	var m [1]T
	if _, fault := gorillaNext(&s, m[:]); fault.msg != "" {
		return 0, corruptSprintz(typ, fault.off, "GORILLA %s, reading the end marker after %d values", fault.msg, len(out))
	}
	if m[0] != end {
		return 0, corruptSprintz(typ, s.r.consumed()/8, "GORILLA value after the block's %d is %#x, not the NaN end marker", len(out), uint64(m[0]))
	}
	// The reader fetches the next byte as soon as one is used up, and the writer always ends
	// with the byte holding the marker's last bits or, if that was full, a zero byte.
	last := s.r.consumed()/8 + 1
	if last > len(src) {
		return 0, corruptSprintz(typ, len(src), "GORILLA stream lacks its final byte")
	}
	return last, nil
}

// decodeSprintz32 decodes exactly len(dst) 32-bit words from the complete stream src. INT32
// and FLOAT share it by viewing their destination as words (xorBits*); float selects the
// FLOAT form of the partial blocks. The block decoder is called directly, not through a
// function value, so the block buffer stays on the stack.
func decodeSprintz32(dst []uint32, src []byte, float bool, typ string) error {
	var blk [sprintzBlockLen]uint32
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corruptSprintz(typ, off, "stream ends after %d of %d values", i, len(dst))
		}
		n, end, err := decodeSprintzBlock32(src, off, float, typ, &blk)
		if err != nil {
			return err
		}
		if n > len(dst)-i {
			return corruptSprintz(typ, off, "block holds %d values, but only %d of %d remain to be decoded", n, len(dst)-i, len(dst))
		}
		copy(dst[i:], blk[:n])
		i += n
		off = end
	}
	if off != len(src) {
		return corruptSprintz(typ, off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// decodeSprintz64 is decodeSprintz32 for INT64 and DOUBLE.
func decodeSprintz64(dst []uint64, src []byte, float bool, typ string) error {
	var blk [sprintzBlockLen]uint64
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corruptSprintz(typ, off, "stream ends after %d of %d values", i, len(dst))
		}
		n, end, err := decodeSprintzBlock64(src, off, float, typ, &blk)
		if err != nil {
			return err
		}
		if n > len(dst)-i {
			return corruptSprintz(typ, off, "block holds %d values, but only %d of %d remain to be decoded", n, len(dst)-i, len(dst))
		}
		copy(dst[i:], blk[:n])
		i += n
		off = end
	}
	if off != len(src) {
		return corruptSprintz(typ, off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// countSprintzInt64 returns the number of values in the complete stream src, validating every
// block. The Java reader's hasNext stops one value early when the stream ends with a block of
// 9 values; the count here is what the stream holds.
func countSprintzInt64(src []byte) (int, error) {
	var blk [sprintzBlockLen]uint64
	n := 0
	for off := 0; off < len(src); {
		k, end, err := decodeSprintzBlock64(src, off, false, typeInt64, &blk)
		if err != nil {
			return 0, err
		}
		n += k
		off = end
	}
	return n, nil
}

// appendSprintzFull32 appends blk as a full block, or as a partial block of 9 values when a
// residual would not survive the Java mapping.
func appendSprintzFull32(dst []byte, blk *[sprintzBlockLen]uint32, float bool) []byte {
	var res [sprintzResiduals]uint32
	var f fire32
	prev := sprintzBase32(blk[0], float)
	width := 1 // the Java writer never uses width 0
	for k := range res {
		cur := int32(blk[k+1])
		e := cur - f.predict(prev)
		f.train(prev, cur, e)
		prev = cur
		m := sprintzMap32(e)
		if sprintzUnmap32(m) != e {
			return appendSprintzPartial32(dst, blk[:], float)
		}
		res[k] = uint32(m)
		width = max(width, bits.Len32(uint32(m)))
	}
	dst = append(dst, byte(width))
	if float {
		dst = binary.BigEndian.AppendUint32(dst, blk[0])
	} else {
		dst = appendUvarint32(dst, blk[0])
	}
	w := bitWriter{buf: dst}
	for _, m := range res {
		w.write(uint64(m), uint(width))
	}
	return w.finish() // 8 fields of width bits fill width bytes exactly
}

func appendSprintzPartial32(dst []byte, v []uint32, float bool) []byte {
	dst = append(dst, sprintzPartialFlag|byte(len(v)))
	if float {
		return appendGorilla(dst, v, gorillaEndFloat32)
	}
	// appendRLE fails only for packages too long for an int32 length, never for 9 values.
	dst, _ = appendRLE(dst, v, 4)
	return dst
}

func appendSprintzFull64(dst []byte, blk *[sprintzBlockLen]uint64, float bool) []byte {
	var res [sprintzResiduals]uint64
	var f fire64
	prev := sprintzBase64(blk[0], float)
	width := 1
	for k := range res {
		cur := int64(blk[k+1])
		e := cur - f.predict(prev)
		f.train(prev, cur, e)
		prev = cur
		m := sprintzMap64(e)
		if sprintzUnmap64(m) != e {
			return appendSprintzPartial64(dst, blk[:], float)
		}
		res[k] = uint64(m)
		width = max(width, bits.Len64(uint64(m)))
	}
	dst = append(dst, byte(width))
	dst = binary.BigEndian.AppendUint64(dst, blk[0])
	w := bitWriter{buf: dst}
	for _, m := range res {
		w.write(m, uint(width))
	}
	return w.finish()
}

func appendSprintzPartial64(dst []byte, v []uint64, float bool) []byte {
	dst = append(dst, sprintzPartialFlag|byte(len(v)))
	if float {
		return appendGorilla(dst, v, gorillaEndFloat64)
	}
	dst, _ = appendRLE(dst, v, 8)
	return dst
}

// appendSprintz32 and appendSprintz64 encode values seen as their bit
// patterns (xorBits* views), full blocks then the partial tail; float
// selects the float predictor.
func appendSprintz32(dst []byte, v []uint32, float bool) []byte {
	var blk [sprintzBlockLen]uint32
	for ; len(v) >= sprintzBlockLen; v = v[sprintzBlockLen:] {
		copy(blk[:], v)
		dst = appendSprintzFull32(dst, &blk, float)
	}
	if len(v) == 0 {
		return dst
	}
	return appendSprintzPartial32(dst, blk[:copy(blk[:], v)], float)
}

func appendSprintz64(dst []byte, v []uint64, float bool) []byte {
	var blk [sprintzBlockLen]uint64
	for ; len(v) >= sprintzBlockLen; v = v[sprintzBlockLen:] {
		copy(blk[:], v)
		dst = appendSprintzFull64(dst, &blk, float)
	}
	if len(v) == 0 {
		return dst
	}
	return appendSprintzPartial64(dst, blk[:copy(blk[:], v)], float)
}

func init() {
	register(Sprintz, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error {
			return decodeSprintz32(xorBitsInt32(dst), src, false, typeInt32)
		},
		decodeInt64: func(dst []int64, src []byte) error {
			return decodeSprintz64(xorBitsInt64(dst), src, false, typeInt64)
		},
		decodeFloat32: func(dst []float32, src []byte) error {
			return decodeSprintz32(xorBitsFloat32(dst), src, true, typeFloat32)
		},
		decodeFloat64: func(dst []float64, src []byte) error {
			return decodeSprintz64(xorBitsFloat64(dst), src, true, typeFloat64)
		},
		countInt64:  countSprintzInt64,
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) { return appendSprintz32(dst, xorBitsInt32(v), false), nil },
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) { return appendSprintz64(dst, xorBitsInt64(v), false), nil },
		encodeFloat32: func(dst []byte, v []float32) ([]byte, error) {
			return appendSprintz32(dst, xorBitsFloat32(v), true), nil
		},
		encodeFloat64: func(dst []byte, v []float64) ([]byte, error) {
			return appendSprintz64(dst, xorBitsFloat64(v), true), nil
		},
	})
}
