package encoding

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// A TS_2DIFF stream is a sequence of blocks, laid out as the Java DeltaBinaryEncoder writes
// them. All header fields are big-endian, and the value fields are int32 for INT32 and DATE
// and int64 for INT64 and TIMESTAMP:
//
//	int32  packNum   number of deltas in the block
//	int32  packWidth bits per packed delta
//	value  minDelta  smallest delta in the block
//	value  first     first value of the block
//	byte[ceil(packNum*packWidth/8)] packed
//
// packed holds delta[i]-minDelta for each of the packNum deltas as packWidth-bit unsigned
// fields (see bitpack.go). A block decodes to first followed by packNum values, each the
// previous value plus minDelta plus its packed field, all in wrapping arithmetic. The stream
// itself carries no total count; the blocks simply follow each other to the end.

// TS2DiffBlockSize is the maximum number of deltas the encoder puts in one TS_2DIFF block,
// matching the Java writer, so a block holds up to TS2DiffBlockSize+1 values. Readers accept
// blocks of any size.
const TS2DiffBlockSize = 128

// ts2diffHeaderLen is the size of a block header for values of size bytes.
func ts2diffHeaderLen(size int) int { return 8 + 2*size }

// ts2diffBlock is a parsed, bounds-checked TS_2DIFF block.
type ts2diffBlock struct {
	deltas   int    // packNum
	width    uint   // packWidth
	minDelta uint64 // raw field bits; int32 fields are sign-extended
	first    uint64 // raw field bits; int32 fields are sign-extended
	packed   []byte // exactly the packed bytes of this block
	end      int    // offset just past the block
}

// parseTS2DiffBlock parses the block at src[off:] for values of size (4 or 8) bytes, checking
// every field and that the packed bytes lie within src before anything is read from them.
func parseTS2DiffBlock(src []byte, off, size int, typ string) (ts2diffBlock, error) {
	hdr := ts2diffHeaderLen(size)
	if len(src)-off < hdr {
		return ts2diffBlock{}, corruptTS2Diff(typ, off, "header needs %d bytes, %d left", hdr, len(src)-off)
	}
	h := src[off : off+hdr]
	deltas := int32(binary.BigEndian.Uint32(h))
	width := int32(binary.BigEndian.Uint32(h[4:]))
	if deltas < 0 {
		return ts2diffBlock{}, corruptTS2Diff(typ, off, "negative delta count %d", deltas)
	}
	if width < 0 || int(width) > 8*size {
		return ts2diffBlock{}, corruptTS2Diff(typ, off, "bit width %d outside 0..%d", width, 8*size)
	}
	var b ts2diffBlock
	if size == 4 {
		b.minDelta = uint64(int32(binary.BigEndian.Uint32(h[8:])))
		b.first = uint64(int32(binary.BigEndian.Uint32(h[12:])))
	} else {
		b.minDelta = binary.BigEndian.Uint64(h[8:])
		b.first = binary.BigEndian.Uint64(h[16:])
	}
	// At most (2^31-1)*64 bits, so the product cannot overflow int64.
	packedLen := (int64(deltas)*int64(width) + 7) / 8
	start := off + hdr
	if packedLen > int64(len(src)-start) {
		return ts2diffBlock{}, corruptTS2Diff(typ, off, "%d deltas of %d bits need %d packed bytes, %d left",
			deltas, width, packedLen, len(src)-start)
	}
	b.deltas = int(deltas)
	b.width = uint(width)
	b.end = start + int(packedLen)
	b.packed = src[start:b.end]
	return b, nil
}

func corruptTS2Diff(typ string, off int, format string, args ...any) error {
	return corrupt(TS2Diff, typ+" block", off, format, args...)
}

// decodeTS2Diff decodes exactly len(dst) values of size bytes each from the complete stream src.
func decodeTS2Diff[T int32 | int64](dst []T, src []byte, size int, typ string) error {
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corruptTS2Diff(typ, off, "stream ends after %d of %d values", i, len(dst))
		}
		b, err := parseTS2DiffBlock(src, off, size, typ)
		if err != nil {
			return err
		}
		// Checked before decoding so that a forged huge packNum costs nothing.
		if b.deltas >= len(dst)-i {
			return corruptTS2Diff(typ, off, "block holds %d values, but only %d of %d remain to be decoded",
				b.deltas+1, len(dst)-i, len(dst))
		}
		unpackTS2Diff(dst[i:i+1+b.deltas], T(b.first), T(b.minDelta), b.packed, b.width)
		i += 1 + b.deltas
		off = b.end
	}
	if off != len(src) {
		return corruptTS2Diff(typ, off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// unpackTS2Diff reconstructs one block into out, whose length is the block's value count.
func unpackTS2Diff[T int32 | int64](out []T, first, minDelta T, packed []byte, width uint) {
	out[0] = first
	prev := first
	rest := out[1:]
	if width == 0 {
		// Every delta equals minDelta, as in regularly sampled timestamps.
		for j := range rest {
			prev += minDelta
			rest[j] = prev
		}
		return
	}
	// While eight bytes remain from a field's first byte, one load holds the whole field for
	// widths up to 56; this loop is readBits inlined for that common case.
	pos, j := uint(0), 0
	if width <= 56 && len(packed) >= 8 {
		last := uint(len(packed)-8)*8 + 7 // largest pos whose byte starts a full 8-byte load
		j = min(len(rest), int(last/width)+1)
		shift := 64 - width
		for k := range rest[:j] {
			x := binary.BigEndian.Uint64(packed[pos>>3:])
			prev += minDelta + T(x<<(pos&7)>>shift)
			rest[k] = prev
			pos += width
		}
	}
	for ; j < len(rest); j++ {
		prev += minDelta + T(readBits(packed, pos, width))
		rest[j] = prev
		pos += width
	}
}

// countTS2Diff returns the number of values in the complete stream src after validating the
// framing of every block.
func countTS2Diff(src []byte, size int, typ string) (int, error) {
	var n int64
	for off := 0; off < len(src); {
		b, err := parseTS2DiffBlock(src, off, size, typ)
		if err != nil {
			return 0, err
		}
		n += 1 + int64(b.deltas)
		if n > math.MaxInt {
			return 0, corruptTS2Diff(typ, off, "value count overflows int")
		}
		off = b.end
	}
	return int(n), nil
}

// appendTS2Diff appends v encoded as TS_2DIFF with values of size bytes, byte for byte as a
// freshly created Java encoder writes it: a block takes the first value plus up to
// TS2DiffBlockSize deltas.
func appendTS2Diff[T int32 | int64](dst []byte, v []T, size int) []byte {
	var stale javaStaleBits
	for len(v) > 0 {
		n := min(len(v), TS2DiffBlockSize+1)
		dst = appendTS2DiffBlock(dst, v[:n], size, &stale)
		v = v[n:]
	}
	return dst
}

// javaStaleBits reproduces a quirk of the Java encoder so that its output can be matched
// exactly. Java packs each block into a reused buffer of 4*TS2DiffBlockSize (int32) or
// 8*TS2DiffBlockSize (int64) bytes, writing only the fields' bits, and clears just the first
// TS2DiffBlockSize bytes between blocks. The padding bits of a block's last packed byte
// therefore repeat whatever an earlier, longer block left at that position. Readers ignore
// padding, so this only matters for byte-exact output; the Java buffer also survives across
// Pages of a Chunk, which a per-stream encoder cannot know about.
type javaStaleBits [7 * TS2DiffBlockSize]byte

// inherit applies the stale padding to packed, the packed bytes of a block of fields
// occupying nbits bits, and records the block's bytes beyond the cleared prefix.
func (s *javaStaleBits) inherit(packed []byte, nbits int) {
	if len(packed) <= TS2DiffBlockSize {
		return
	}
	if pad := 8*len(packed) - nbits; pad > 0 {
		last := len(packed) - 1
		packed[last] |= s[last-TS2DiffBlockSize] & (1<<pad - 1)
	}
	copy(s[:], packed[TS2DiffBlockSize:])
}

// appendTS2DiffHeader appends the header of a TS_2DIFF block: its delta count, the packed
// width, the minimum delta and the first value, the last two at the value's size.
func appendTS2DiffHeader[T int32 | int64](dst []byte, deltas int, width uint, size int, minDelta, first T) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(deltas))
	dst = binary.BigEndian.AppendUint32(dst, uint32(width))
	if size == 4 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(minDelta))
		return binary.BigEndian.AppendUint32(dst, uint32(first))
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(minDelta))
	return binary.BigEndian.AppendUint64(dst, uint64(first))
}

func appendTS2DiffBlock[T int32 | int64](dst []byte, block []T, size int, stale *javaStaleBits) []byte {
	// The packed fields are the deltas' two's-complement bits at the value's own width, so an
	// int32 difference must not be sign-extended into 64 bits.
	mask := ^uint64(0) >> (64 - 8*uint(size))
	// Java seeds the minimum with the type's maximum and keeps it for a block with no deltas,
	// so a lone trailing value is written with minDelta = MaxInt32 or MaxInt64.
	minDelta := T(mask >> 1)
	for j := 1; j < len(block); j++ {
		minDelta = min(minDelta, block[j]-block[j-1])
	}
	var maxField uint64
	for j := 1; j < len(block); j++ {
		maxField = max(maxField, uint64(block[j]-block[j-1]-minDelta)&mask)
	}
	width := uint(bits.Len64(maxField))
	deltas := len(block) - 1

	dst = appendTS2DiffHeader(dst, deltas, width, size, minDelta, block[0])
	if width == 0 {
		return dst
	}
	start := len(dst)
	w := bitWriter{buf: dst}
	for j := 1; j < len(block); j++ {
		w.write(uint64(block[j]-block[j-1]-minDelta)&mask, width)
	}
	dst = w.finish()
	stale.inherit(dst[start:], deltas*int(width))
	return dst
}

func init() {
	register(TS2Diff, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error { return decodeTS2Diff(dst, src, 4, typeInt32) },
		decodeInt64: func(dst []int64, src []byte) error { return decodeTS2Diff(dst, src, 8, typeInt64) },
		countInt64:  func(src []byte) (int, error) { return countTS2Diff(src, 8, typeInt64) },
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) { return appendTS2Diff(dst, v, 4), nil },
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) { return appendTS2Diff(dst, v, 8), nil },
	})
}
