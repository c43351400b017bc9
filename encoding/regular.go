package encoding

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// A REGULAR stream is a sequence of blocks, laid out as the Java RegularDataEncoder writes
// them. All multi-byte fields are big-endian, and the value fields are int32 for INT32 and
// DATE and int64 for INT64 and TIMESTAMP:
//
//	byte   missing   0x00, or 0x01 when the block has missing points
//	int32  length    only if missing: bytes in bitmap
//	byte[length] bitmap  only if missing: grid point k is present iff bit k is set,
//	                 least significant bit first (java.util.BitSet.toByteArray)
//	int32  packNum   number of grid points
//	value  minDelta  grid step
//	value  first     value of grid point 0
//
// Grid point k holds first + k*minDelta in wrapping arithmetic. Without missing points the
// block decodes to all packNum grid points; with missing points, to the present ones. The
// Java reader returns grid point 0 unconditionally and stops a block at grid point
// packNum-1, so a valid bitmap has both bits set, is exactly ceil(packNum/8) bytes (what
// toByteArray writes, its last bit being set) and leaves the bits past packNum-1 clear;
// packNum is then at least 3, the fewest points a gap can occur in. The stream carries no
// total count; blocks follow each other to its end, and an empty stream holds no values.

// regularBlockSize is the number of values the Java encoder puts in one REGULAR block.
const regularBlockSize = 128

// regularMaxGrid bounds the grid of a block this package's encoder writes with a bitmap. The
// Java encoder writes one bit per grid point whatever the gap, so two values a day apart in
// milliseconds cost it ten megabytes; such a block is split into blocks without gaps here.
const regularMaxGrid = 1 << 20

// regularBlock is a parsed, bounds-checked REGULAR block.
type regularBlock struct {
	count    int    // values the block decodes to
	packNum  int    // grid points
	bitmap   []byte // present grid points; nil without missing points
	minDelta uint64 // raw field bits; int32 fields are sign-extended
	first    uint64 // raw field bits; int32 fields are sign-extended
	end      int    // offset just past the block
}

func corruptRegular(typ string, off int, format string, args ...any) error {
	return corrupt(Regular, typ+" block", off, format, args...)
}

// parseRegularBlock parses the block at src[off:] (off < len(src)) for values of size (4 or
// 8) bytes, checking every field against the bytes present before anything is read.
func parseRegularBlock(src []byte, off, size int, typ string) (regularBlock, error) {
	var b regularBlock
	p := off
	flag := src[p]
	p++
	if flag > 1 {
		return b, corruptRegular(typ, off, "invalid missing-point flag 0x%02x", flag)
	}
	if flag == 1 {
		if len(src)-p < 4 {
			return b, corruptRegular(typ, p, "bitmap length needs 4 bytes, %d left", len(src)-p)
		}
		length := int32(binary.BigEndian.Uint32(src[p:]))
		p += 4
		if length < 0 || int(length) > len(src)-p {
			return b, corruptRegular(typ, p-4, "bitmap of %d bytes, %d left", length, len(src)-p)
		}
		b.bitmap = src[p : p+int(length)]
		p += int(length)
	}
	hdr := 4 + 2*size
	if len(src)-p < hdr {
		return b, corruptRegular(typ, p, "header needs %d bytes, %d left", hdr, len(src)-p)
	}
	packNum := int32(binary.BigEndian.Uint32(src[p:]))
	if size == 4 {
		b.minDelta = uint64(int32(binary.BigEndian.Uint32(src[p+4:])))
		b.first = uint64(int32(binary.BigEndian.Uint32(src[p+8:])))
	} else {
		b.minDelta = binary.BigEndian.Uint64(src[p+4:])
		b.first = binary.BigEndian.Uint64(src[p+12:])
	}
	b.end = p + hdr
	if packNum < 1 {
		return b, corruptRegular(typ, p, "packNum %d is not positive", packNum)
	}
	b.packNum = int(packNum)
	if b.bitmap == nil {
		b.count = b.packNum
		return b, nil
	}
	if packNum < 3 {
		return b, corruptRegular(typ, p, "packNum %d is too small for missing points", packNum)
	}
	bm := b.bitmap
	if want := (b.packNum + 7) / 8; len(bm) != want {
		return b, corruptRegular(typ, off+1, "bitmap of %d bytes for %d grid points, want %d", len(bm), packNum, want)
	}
	last := b.packNum - 1
	if bm[0]&1 == 0 {
		return b, corruptRegular(typ, off+5, "bitmap lacks grid point 0")
	}
	if tail := bm[last/8] >> (last % 8); tail != 1 {
		if tail&1 == 0 {
			return b, corruptRegular(typ, off+5+last/8, "bitmap lacks the last grid point %d", last)
		}
		return b, corruptRegular(typ, off+5+last/8, "bitmap has bits past grid point %d", last)
	}
	n := 0
	for _, c := range bm {
		n += bits.OnesCount8(c)
	}
	b.count = n
	return b, nil
}

// decodeRegular decodes exactly len(dst) values of size bytes from the complete stream src.
func decodeRegular[T int32 | int64](dst []T, src []byte, size int, typ string) error {
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corruptRegular(typ, off, "stream ends after %d of %d values", i, len(dst))
		}
		b, err := parseRegularBlock(src, off, size, typ)
		if err != nil {
			return err
		}
		if b.count > len(dst)-i {
			return corruptRegular(typ, off, "block holds %d values, but only %d of %d remain to be decoded",
				b.count, len(dst)-i, len(dst))
		}
		out := dst[i : i+b.count]
		first, step := T(b.first), T(b.minDelta)
		if b.bitmap == nil {
			v := first
			for k := range out {
				out[k] = v
				v += step
			}
		} else {
			k := 0
			for j, c := range b.bitmap {
				for c != 0 {
					pos := j*8 + bits.TrailingZeros8(c)
					out[k] = first + T(pos)*step
					k++
					c &= c - 1
				}
			}
		}
		i += b.count
		off = b.end
	}
	if off != len(src) {
		return corruptRegular(typ, off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// countRegular returns the number of values in the complete stream src after validating the
// framing of every block.
func countRegular(src []byte, size int, typ string) (int, error) {
	var n int64
	for off := 0; off < len(src); {
		b, err := parseRegularBlock(src, off, size, typ)
		if err != nil {
			return 0, err
		}
		n += int64(b.count)
		if n > math.MaxInt {
			return 0, corruptRegular(typ, off, "value count overflows int")
		}
		off = b.end
	}
	return int(n), nil
}

// regularPlan is how the Java encoder lays out one block.
type regularPlan[T int32 | int64] struct {
	packNum  int
	minDelta T
	missing  bool
}

// planRegular reproduces the Java encoder's choices for block and reports whether its output
// decodes back to block exactly. The Java encoder takes minDelta as the smallest delta and,
// when the deltas differ, a grid of (last-first)/minDelta+1 points in the value type's
// arithmetic; that is faithful only when every delta is a positive multiple of minDelta
// (minDelta zero throws, and anything else rounds values onto the grid).
func planRegular[T int32 | int64](block []T) (regularPlan[T], bool) {
	if len(block) == 1 {
		// Java keeps the type's maximum as minDelta when it sees no delta.
		return regularPlan[T]{packNum: 1, minDelta: T(regularMaxOf[T]())}, true
	}
	d1 := block[1] - block[0]
	minDelta, missing := d1, false
	for j := 2; j < len(block); j++ {
		d := block[j] - block[j-1]
		if d != d1 {
			missing = true
		}
		minDelta = min(minDelta, d)
	}
	if !missing {
		return regularPlan[T]{packNum: len(block), minDelta: d1}, true
	}
	if minDelta <= 0 {
		return regularPlan[T]{}, false
	}
	steps := 0
	for j := 1; j < len(block); j++ {
		d := block[j] - block[j-1]
		if d%minDelta != 0 || d/minDelta > regularMaxGrid {
			return regularPlan[T]{}, false
		}
		steps += int(d / minDelta)
		if steps >= regularMaxGrid {
			return regularPlan[T]{}, false
		}
	}
	// Java computes the grid size with wrapping subtraction and, for int64, an int cast.
	javaGrid := int32((block[len(block)-1]-block[0])/minDelta + 1)
	if int(javaGrid) != steps+1 {
		return regularPlan[T]{}, false
	}
	return regularPlan[T]{packNum: steps + 1, minDelta: minDelta, missing: true}, true
}

func regularMaxOf[T int32 | int64]() int64 {
	var z T
	if _, ok := any(z).(int32); ok {
		return math.MaxInt32
	}
	return math.MaxInt64
}

// appendRegular appends v encoded as REGULAR with values of size bytes. Every block the Java
// encoder writes faithfully comes out byte for byte as it writes it: up to regularBlockSize
// values per block. A block it would corrupt (values off any common grid, or repeated values
// among others) or give an outsized bitmap is written as several shorter blocks instead, so
// that every input round-trips; the Java reader reads those too.
func appendRegular[T int32 | int64](dst []byte, v []T, size int) []byte {
	for len(v) > 0 {
		n := min(len(v), regularBlockSize)
		block := v[:n]
		v = v[n:]
		if p, ok := planRegular(block); ok {
			dst = appendRegularBlock(dst, block, p, size)
			continue
		}
		// Greedily take the longest prefix the layout represents exactly; any one or two
		// values always are.
		for len(block) > 0 {
			end := min(2, len(block))
			p, _ := planRegular(block[:end])
			for end < len(block) {
				q, ok := planRegular(block[:end+1])
				if !ok {
					break
				}
				p = q
				end++
			}
			dst = appendRegularBlock(dst, block[:end], p, size)
			block = block[end:]
		}
	}
	return dst
}

func appendRegularBlock[T int32 | int64](dst []byte, block []T, p regularPlan[T], size int) []byte {
	if !p.missing {
		dst = append(dst, 0)
	} else {
		nbytes := (p.packNum + 7) / 8
		dst = append(dst, 1)
		dst = binary.BigEndian.AppendUint32(dst, uint32(nbytes))
		start := len(dst)
		dst = slices.Grow(dst, nbytes)[:start+nbytes]
		bm := dst[start:]
		clear(bm)
		pos := 0
		bm[0] = 1
		for j := 1; j < len(block); j++ {
			pos += int((block[j] - block[j-1]) / p.minDelta)
			bm[pos/8] |= 1 << (pos % 8)
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(p.packNum))
	if size == 4 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(p.minDelta))
		dst = binary.BigEndian.AppendUint32(dst, uint32(block[0]))
	} else {
		dst = binary.BigEndian.AppendUint64(dst, uint64(p.minDelta))
		dst = binary.BigEndian.AppendUint64(dst, uint64(block[0]))
	}
	return dst
}

func init() {
	register(Regular, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error { return decodeRegular(dst, src, 4, typeInt32) },
		decodeInt64: func(dst []int64, src []byte) error { return decodeRegular(dst, src, 8, typeInt64) },
		countInt64:  func(src []byte) (int, error) { return countRegular(src, 8, typeInt64) },
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) { return appendRegular(dst, v, 4), nil },
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) { return appendRegular(dst, v, 8), nil },
	})
}
