package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// PLAIN stores no element count: values follow each other, and the Page context supplies how
// many there are. BOOLEAN is one byte, INT32 and DATE are VarInts, binary values are a VarInt
// length followed by the bytes, and everything else is fixed-width big-endian.

// checkFixedLen verifies that src holds exactly n values of width bytes each.
func checkFixedLen(src []byte, n, width int, typ string) error {
	switch need := n * width; {
	case len(src) < need:
		return corrupt(Plain, typ, len(src), "stream ends after %d of %d values", len(src)/width, n)
	case len(src) > need:
		return corrupt(Plain, typ, need, "%d trailing bytes after %d values", len(src)-need, n)
	}
	return nil
}

// countPlainFixed returns how many width-byte values src holds.
func countPlainFixed(src []byte, width int, typ string) (int, error) {
	if r := len(src) % width; r != 0 {
		return 0, corrupt(Plain, typ, len(src)-r, "%d trailing bytes do not form a value", r)
	}
	return len(src) / width, nil
}

func decodePlainBool(dst []bool, src []byte) error {
	if err := checkFixedLen(src, len(dst), 1, typeBool); err != nil {
		return err
	}
	for i, b := range src {
		// Java reads any non-zero byte as true, but the format defines only 0x00 and 0x01,
		// and accepting more would let two different streams mean the same page.
		if b > 1 {
			return corrupt(Plain, typeBool, i, "invalid value 0x%02x", b)
		}
		dst[i] = b == 1
	}
	return nil
}

// decodePlainBoolBits packs the bytes of src, each 0 or 1, into bits,
// eight at a time: multiplying by the constant below moves the low bit of
// byte k to bit 56+k, and no other product reaches those eight bits.
func decodePlainBoolBits(dst []byte, n int, src []byte) error {
	if err := checkFixedLen(src, n, 1, typeBool); err != nil {
		return err
	}
	dst = dst[:(n+7)/8]
	full := n / 8
	for i := range full {
		x := binary.LittleEndian.Uint64(src[8*i:])
		if x&0xfefefefefefefefe != 0 {
			return invalidBools(src, 8*i)
		}
		dst[i] = byte(x * 0x0102040810204080 >> 56)
	}
	if n%8 != 0 {
		var last byte
		for k, c := range src[8*full:] {
			if c > 1 {
				return invalidBools(src, 8*full)
			}
			last |= c << k
		}
		dst[full] = last
	}
	return nil
}

// invalidBools returns the error for the first byte of src from off on
// that is neither 0 nor 1.
func invalidBools(src []byte, off int) error {
	for off < len(src) && src[off] <= 1 {
		off++
	}
	return corrupt(Plain, typeBool, off, "invalid value 0x%02x", src[off])
}

func decodePlainInt32(dst []int32, src []byte) error {
	off, i := 0, 0
	miss := 8 // values to decode one at a time after the eight bytes did not fit
	for i < len(dst) {
		// Values of a column tend to take as many bytes as their
		// neighbours: eight bytes holding eight one-byte or four two-byte
		// VarInts, which their continuation bits show at once, decode
		// together without a branch per value.
		if i <= len(dst)-8 && off <= len(src)-8 {
			x := binary.LittleEndian.Uint64(src[off:])
			switch x & 0x8080808080808080 {
			case 0:
				d := dst[i : i+8 : i+8]
				d[0] = unzigzag32(uint32(x) & 0x7f)
				d[1] = unzigzag32(uint32(x>>8) & 0x7f)
				d[2] = unzigzag32(uint32(x>>16) & 0x7f)
				d[3] = unzigzag32(uint32(x>>24) & 0x7f)
				d[4] = unzigzag32(uint32(x>>32) & 0x7f)
				d[5] = unzigzag32(uint32(x>>40) & 0x7f)
				d[6] = unzigzag32(uint32(x>>48) & 0x7f)
				d[7] = unzigzag32(uint32(x>>56) & 0x7f)
				i, off, miss = i+8, off+8, 8
				continue
			case 0x0080008000800080:
				// Join each 16-bit lane's two groups of seven bits.
				x = x&0x007f007f007f007f | (x>>1)&0x3f803f803f803f80
				d := dst[i : i+4 : i+4]
				d[0] = unzigzag32(uint32(x) & 0x3fff)
				d[1] = unzigzag32(uint32(x>>16) & 0x3fff)
				d[2] = unzigzag32(uint32(x>>32) & 0x3fff)
				d[3] = unzigzag32(uint32(x>>48) & 0x3fff)
				i, off, miss = i+4, off+8, 8
				continue
			}
		}
		// Otherwise the next values go one at a time, more of them after
		// each miss in a row: trying the eight bytes before every value
		// made a stream of random widths a third slower; backing off
		// leaves it 10% faster than without the grouped paths.
		end := min(i+miss, len(dst))
		miss = min(2*miss, 64)
		for ; i < end; i++ {
			if off == len(src) {
				return corrupt(Plain, typeInt32, off, "stream ends after %d of %d values", i, len(dst))
			}
			// Away from the end a varint is decoded unrolled, its five
			// possible bytes bounds-checked at once. This stays here rather
			// than in uvarint32: unrolled, uvarint32 no longer inlines, and the
			// call per value costs most of the gain (2.7 -> 1.5 GB/s measured).
			if off <= len(src)-maxVarintLen32 {
				b := src[off : off+maxVarintLen32]
				c := uint32(b[0])
				if c < 0x80 {
					dst[i] = unzigzag32(c)
					off++
					continue
				}
				u := c & 0x7f
				if c = uint32(b[1]); c < 0x80 {
					dst[i] = unzigzag32(u | c<<7)
					off += 2
					continue
				}
				u |= (c & 0x7f) << 7
				if c = uint32(b[2]); c < 0x80 {
					dst[i] = unzigzag32(u | c<<14)
					off += 3
					continue
				}
				u |= (c & 0x7f) << 14
				if c = uint32(b[3]); c < 0x80 {
					dst[i] = unzigzag32(u | c<<21)
					off += 4
					continue
				}
				u |= (c & 0x7f) << 21
				if c = uint32(b[4]); c <= 0x0f {
					dst[i] = unzigzag32(u | c<<28)
					off += 5
					continue
				}
				// Fall through to the checked decoder for its error.
			}
			u, n := uvarint32(src[off:])
			switch {
			case n == 0:
				return corrupt(Plain, typeInt32, off, "truncated VarInt")
			case n < 0:
				return corrupt(Plain, typeInt32, off, "VarInt overflows 32 bits")
			}
			dst[i] = unzigzag32(u)
			off += n
		}
	}
	if off != len(src) {
		return corrupt(Plain, typeInt32, off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

func decodePlainInt64(dst []int64, src []byte) error {
	if err := checkFixedLen(src, len(dst), 8, typeInt64); err != nil {
		return err
	}
	if len(dst) > 0 {
		swapWords64(unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), len(dst)), src)
	}
	return nil
}

func decodePlainFloat32(dst []float32, src []byte) error {
	if err := checkFixedLen(src, len(dst), 4, typeFloat32); err != nil {
		return err
	}
	if len(dst) > 0 {
		swapWords32(unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), len(dst)), src)
	}
	return nil
}

func decodePlainFloat64(dst []float64, src []byte) error {
	if err := checkFixedLen(src, len(dst), 8, typeFloat64); err != nil {
		return err
	}
	if len(dst) > 0 {
		swapWords64(unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), len(dst)), src)
	}
	return nil
}

func decodePlainBinary(offsets []int32, data []byte, n int, src []byte) ([]int32, []byte, error) {
	// Every value takes at least its one-byte length, which bounds n before anything is
	// allocated on its behalf, and the values' bytes together are shorter than src.
	if n < 0 || n > len(src) {
		return offsets, data, corrupt(Plain, typeBinary, 0, "%d bytes cannot hold %d values", len(src), n)
	}
	// Appending only ever writes past the caller's lengths, so returning the original slices
	// on error leaves the caller's view of them unchanged.
	origOffsets, origData := offsets, data
	offsets = slices.Grow(offsets, n)
	data = slices.Grow(data, len(src)-n)
	// Values are written by index into the grown capacity; most are
	// short, and a call to memmove for a few bytes costs more than the
	// two unaligned 8-byte moves that copy up to 16, spilling into room
	// the next values overwrite.
	ends := offsets[len(offsets) : len(offsets)+n]
	buf := data[:cap(data)]
	d := len(data)
	off := 0
	// The fast path takes a value of at most 16 bytes whose length is one
	// byte, far enough from the ends of src and buf for 16-byte moves:
	// nearly every value of a column of names, states or codes. A one-byte
	// length of a non-negative value is an even zigzag byte (bit 0 clear)
	// below 0x80, which one mask tests, and is that byte halved. Each
	// value's position depends on the byte before it, so what lies on
	// that path from one length byte to the next decides the speed.
	fastSrc := len(src) - 17
	fastBuf := min(len(buf), maxBinaryData) - 16
	for i := range ends {
		if off < fastSrc && d <= fastBuf {
			if c := src[off]; c&0x81 == 0 && c <= 32 {
				start := off + 1
				off = start + int(c>>1)
				move16(buf[d:d+16], src[start:start+16])
				d += int(c >> 1)
				ends[i] = int32(d)
				continue
			}
		}
		if off == len(src) {
			return origOffsets, origData, corrupt(Plain, typeBinary, off, "stream ends before %d values", n)
		}
		var u uint32
		k := 1
		if c := src[off]; c < 0x80 {
			u = uint32(c)
		} else if u, k = uvarint32(src[off:]); k <= 0 {
			if k == 0 {
				return origOffsets, origData, corrupt(Plain, typeBinary, off, "truncated length VarInt")
			}
			return origOffsets, origData, corrupt(Plain, typeBinary, off, "length VarInt overflows 32 bits")
		}
		length := int(unzigzag32(u))
		if length < 0 {
			return origOffsets, origData, corrupt(Plain, typeBinary, off, "negative length %d", length)
		}
		start := off + k
		if length > len(src)-start {
			return origOffsets, origData, corrupt(Plain, typeBinary, off, "value of %d bytes overruns the %d bytes left", length, len(src)-start)
		}
		if length > maxBinaryData-d {
			return origOffsets, origData, fmt.Errorf("encoding: PLAIN BINARY value at byte %d would grow data past %d bytes, which int32 offsets cannot address: %w", off, maxBinaryData, ErrUnsupported)
		}
		off = start + length
		if length > len(buf)-d {
			// Only a stream too short for its n values gets here (each
			// value takes at least its length byte); grow so that the
			// error it ends in is the one appending would give.
			buf = slices.Grow(buf[:d], length)
			buf = buf[:cap(buf)]
		}
		if length <= 16 && start <= len(src)-16 && d <= len(buf)-16 {
			move16(buf[d:d+16], src[start:start+16])
		} else {
			copy(buf[d:], src[start:off])
		}
		d += length
		ends[i] = int32(d)
	}
	offsets, data = offsets[:len(offsets)+n], buf[:d]
	if off != len(src) {
		return origOffsets, origData, corrupt(Plain, typeBinary, off, "%d trailing bytes after %d values", len(src)-off, n)
	}
	return offsets, data, nil
}

// move16 copies 16 bytes as two 8-byte moves: for a short value, cheaper
// than a call to memmove, with the bytes past its end overwritten by the
// values that follow.
func move16(dst, src []byte) {
	binary.LittleEndian.PutUint64(dst[:8], binary.LittleEndian.Uint64(src[:8]))
	binary.LittleEndian.PutUint64(dst[8:16], binary.LittleEndian.Uint64(src[8:16]))
}

// maxBinaryData is the most data AppendBinary lets the caller's buffer hold: int32 offsets
// cannot address more. It is a variable only so that tests can lower it.
var maxBinaryData = math.MaxInt32

func appendPlainBool(dst []byte, v []bool) []byte {
	dst = slices.Grow(dst, len(v))
	for _, b := range v {
		var c byte
		if b {
			c = 1
		}
		dst = append(dst, c)
	}
	return dst
}

func appendPlainInt32(dst []byte, v []int32) []byte {
	dst = slices.Grow(dst, len(v))
	for _, x := range v {
		dst = appendUvarint32(dst, zigzag32(x))
	}
	return dst
}

func appendPlainInt64(dst []byte, v []int64) []byte {
	dst = slices.Grow(dst, 8*len(v))
	for _, x := range v {
		dst = binary.BigEndian.AppendUint64(dst, uint64(x))
	}
	return dst
}

func appendPlainFloat32(dst []byte, v []float32) []byte {
	dst = slices.Grow(dst, 4*len(v))
	for _, x := range v {
		dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}

func appendPlainFloat64(dst []byte, v []float64) []byte {
	dst = slices.Grow(dst, 8*len(v))
	for _, x := range v {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(x))
	}
	return dst
}

func appendPlainBinary(dst []byte, v [][]byte) ([]byte, error) {
	total := 0
	for i, b := range v {
		if len(b) > math.MaxInt32 {
			return dst, fmt.Errorf("encoding: PLAIN BINARY value %d is %d bytes, more than a VarInt length can frame: %w", i, len(b), ErrUnsupported)
		}
		total += maxVarintLen32 + len(b)
	}
	dst = slices.Grow(dst, total)
	for _, b := range v {
		dst = appendUvarint32(dst, zigzag32(int32(len(b))))
		dst = append(dst, b...)
	}
	return dst, nil
}

func init() {
	register(Plain, valueCodec{
		decodeBool:     decodePlainBool,
		decodeBoolBits: decodePlainBoolBits,
		decodeInt32:    decodePlainInt32,
		decodeInt64:    decodePlainInt64,
		decodeFloat32:  decodePlainFloat32,
		decodeFloat64:  decodePlainFloat64,
		decodeBinary:   decodePlainBinary,
		countInt64:     func(src []byte) (int, error) { return countPlainFixed(src, 8, typeInt64) },
		encodeBool:     func(dst []byte, v []bool) ([]byte, error) { return appendPlainBool(dst, v), nil },
		encodeInt32:    func(dst []byte, v []int32) ([]byte, error) { return appendPlainInt32(dst, v), nil },
		encodeInt64:    func(dst []byte, v []int64) ([]byte, error) { return appendPlainInt64(dst, v), nil },
		encodeFloat32:  func(dst []byte, v []float32) ([]byte, error) { return appendPlainFloat32(dst, v), nil },
		encodeFloat64:  func(dst []byte, v []float64) ([]byte, error) { return appendPlainFloat64(dst, v), nil },
		encodeBinary:   appendPlainBinary,
	})
}
