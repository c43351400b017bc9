package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// A ZIGZAG stream is one or more blocks, laid out as the Java IntZigzagEncoder and
// LongZigzagEncoder write them:
//
//	UVarInt length  bytes taken by the values
//	UVarInt count   number of values
//	values          count UVarInts of the ZigZag-mapped values, exactly length bytes
//
// The varints carry 32 bits for INT32 and DATE and 64 bits for INT64 and TIMESTAMP. The writer
// emits one block per Page and no bytes at all for no values. Java's reader ignores bytes left
// in a block after its values; no writer leaves any, and this reader rejects them.

// zigzagBlock is a parsed, bounds-checked ZIGZAG block header.
type zigzagBlock struct {
	count int // values in the block
	body  int // offset of the first value
	end   int // offset just past the block
}

func parseZigZagBlock(src []byte, off int, typ string) (zigzagBlock, error) {
	length, k := uvarint32(src[off:])
	if k <= 0 {
		return zigzagBlock{}, rleBadVarint(ZigZag, typ, off, k, "block length")
	}
	count, k2 := uvarint32(src[off+k:])
	if k2 <= 0 {
		return zigzagBlock{}, rleBadVarint(ZigZag, typ, off+k, k2, "value count")
	}
	// Java reads both fields into ints.
	switch {
	case length > math.MaxInt32:
		return zigzagBlock{}, corrupt(ZigZag, typ, off, "block length %d exceeds the int32 range", length)
	case count > math.MaxInt32:
		return zigzagBlock{}, corrupt(ZigZag, typ, off+k, "value count %d exceeds the int32 range", count)
	case count == 0:
		return zigzagBlock{}, corrupt(ZigZag, typ, off+k, "block of no values")
	}
	body := off + k + k2
	if int(length) > len(src)-body {
		return zigzagBlock{}, corrupt(ZigZag, typ, off, "block of %d bytes overruns the %d bytes left", length, len(src)-body)
	}
	if count > length {
		return zigzagBlock{}, corrupt(ZigZag, typ, off, "%d values cannot fit in %d bytes", count, length)
	}
	return zigzagBlock{count: int(count), body: body, end: body + int(length)}, nil
}

// rleBadVarint reports a truncated (n == 0) or overflowing (n < 0) UVarInt field at off.
func rleBadVarint(enc Encoding, typ string, off, n int, field string) error {
	if n == 0 {
		return corrupt(enc, typ, off, "truncated %s", field)
	}
	return corrupt(enc, typ, off, "%s VarInt overflows 32 bits", field)
}

// decodeZigZag decodes exactly len(dst) values of size (4 or 8) bytes from the complete stream.
func decodeZigZag[T int32 | int64](dst []T, src []byte, size int, typ string) error {
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corrupt(ZigZag, typ, off, "stream ends after %d of %d values", i, len(dst))
		}
		b, err := parseZigZagBlock(src, off, typ)
		if err != nil {
			return err
		}
		if b.count > len(dst)-i {
			return corrupt(ZigZag, typ, off, "block holds %d values, but only %d of %d remain to be decoded",
				b.count, len(dst)-i, len(dst))
		}
		if err := zigzagValues(dst[i:i+b.count], src[:b.end], b.body, size, typ); err != nil {
			return err
		}
		i += b.count
		off = b.end
	}
	if off != len(src) {
		return corrupt(ZigZag, typ, off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// zigzagValues decodes len(out) varints from block[off:], which they must fill exactly.
func zigzagValues[T int32 | int64](out []T, block []byte, off, size int, typ string) error {
	for j := range out {
		if off == len(block) {
			return corrupt(ZigZag, typ, off, "block ends after %d of its %d values", j, len(out))
		}
		// Small magnitudes, the point of ZigZag, are one byte.
		c := block[off]
		if c < 0x80 {
			out[j] = T(c>>1) ^ -T(c&1)
			off++
			continue
		}
		if off+1 < len(block) && block[off+1] < 0x80 {
			u := T(c&0x7f) | T(block[off+1])<<7
			out[j] = u>>1 ^ -(u & 1)
			off += 2
			continue
		}
		if size == 4 {
			u, n := uvarint32(block[off:])
			if n <= 0 {
				return zigzagBadValue(typ, off, n)
			}
			out[j] = T(unzigzag32(u))
			off += n
		} else {
			u, n := binary.Uvarint(block[off:])
			if n <= 0 {
				return zigzagBadValue(typ, off, n)
			}
			out[j] = T(int64(u>>1) ^ -int64(u&1))
			off += n
		}
	}
	if off != len(block) {
		return corrupt(ZigZag, typ, off, "%d bytes left in the block after its %d values", len(block)-off, len(out))
	}
	return nil
}

func zigzagBadValue(typ string, off, n int) error {
	if n == 0 {
		return corrupt(ZigZag, typ, off, "value VarInt runs past the end of its block")
	}
	return corrupt(ZigZag, typ, off, "value VarInt overflows the value type")
}

// countZigZag64 returns the number of values in a complete INT64 stream, validating every
// block and value as decodeZigZag does.
func countZigZag64(src []byte) (int, error) {
	n := 0
	for off := 0; off < len(src); {
		b, err := parseZigZagBlock(src, off, typeInt64)
		if err != nil {
			return 0, err
		}
		p := b.body
		for j := range b.count {
			if p == b.end {
				return 0, corrupt(ZigZag, typeInt64, p, "block ends after %d of its %d values", j, b.count)
			}
			if src[p] < 0x80 {
				p++
				continue
			}
			_, k := binary.Uvarint(src[p:b.end])
			if k <= 0 {
				return 0, zigzagBadValue(typeInt64, p, k)
			}
			p += k
		}
		if p != b.end {
			return 0, corrupt(ZigZag, typeInt64, p, "%d bytes left in the block after its %d values", b.end-p, b.count)
		}
		// Every value takes a byte, so n stays below len(src).
		n += b.count
		off = b.end
	}
	return n, nil
}

// appendZigZag appends v as one block, byte for byte as a new Java encoder writes it.
func appendZigZag[T int32 | int64](dst []byte, v []T, size int) ([]byte, error) {
	if len(v) == 0 {
		return dst, nil
	}
	length := 0
	for _, x := range v {
		length += (bits.Len64(zigzagBits(x, size)|1) + 6) / 7
	}
	if length > math.MaxInt32 {
		return dst, fmt.Errorf("encoding: ZIGZAG block of %d bytes is longer than its int32 length field can frame: %w", length, ErrUnsupported)
	}
	dst = slices.Grow(dst, 2*maxVarintLen32+length)
	dst = appendUvarint32(dst, uint32(length))
	dst = appendUvarint32(dst, uint32(len(v)))
	for _, x := range v {
		dst = binary.AppendUvarint(dst, zigzagBits(x, size))
	}
	return dst, nil
}

// zigzagBits maps x, a value of size bytes, to its unsigned ZigZag form.
func zigzagBits[T int32 | int64](x T, size int) uint64 {
	if size == 4 {
		return uint64(zigzag32(int32(x)))
	}
	return uint64(int64(x)<<1 ^ int64(x)>>63)
}

func init() {
	register(ZigZag, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error { return decodeZigZag(dst, src, 4, typeInt32) },
		decodeInt64: func(dst []int64, src []byte) error { return decodeZigZag(dst, src, 8, typeInt64) },
		countInt64:  countZigZag64,
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) { return appendZigZag(dst, v, 4) },
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) { return appendZigZag(dst, v, 8) },
	})
}
