package encoding

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// DESCENDING_BIT_PACKING (15), SEPARATE_STORAGE (16) and LAMINAR (17) are the integer encodings
// TsFile 2.3 added for INT32, DATE, INT64 and TIMESTAMP. Their layouts come from reading the
// upstream Java classes in apache/tsfile,
// java/tsfile/src/main/java/org/apache/tsfile/encoding/{encoder,decoder}/:
//
//	DescendingBitPackingEncoder.java, DescendingBitPackingDecoder.java (decoder at commit
//	79193137518c35fefd87190315f4f77a08560b92; the encoder's Arrays.sort version, which
//	replaced an Nd4j sort with the same value order; equal values keep their positions' order)
//	SeparateStorageEncoder.java, SeparateStorageDecoder.java (commit 6784f4bfef2a14c1ba5adda963f7773fa37eef4f)
//	LaminarEncoder.java, LaminarDecoder.java (commit 1176ac0e76f63bd9a9fdeaa57a8c5748f57deabc,
//	the byte-aligned form with an RLE stream of width steps; an earlier bit-stream form built
//	on GorillaEncoderV2 was replaced by it, and FleaEncoder sizes LAMINAR output by RLE runs)
//
// and the tsfile TSEncoding enum at commit 1facf4fb9e99531f3e874f94b50724eee2354a75, which
// allows the three for INT32, INT64, TIMESTAMP and DATE only.
//
// All three buffer a page's values and write them as one block when the page is sealed. Every
// integer field named int32 below is a 4-byte big-endian Java int (ReadWriteIOUtils.write).
// Bit fields are packed most significant bit first, as BytesUtils.longToBytes does, and a
// bit field of width 0 holds no bits and reads as 0. A value v is held as the unsigned 64-bit
// number zigzag(v) = v<<1 ^ v>>63 (all of LAMINAR, the signed forms of the others), and an
// INT32 value as the zigzag of the value sign-extended to 64 bits, so an INT32 stream is an
// INT64 stream whose values fit.
//
// A DESCENDING_BIT_PACKING block of n values, m of them non-zero:
//
//	int32 n                       n >= 0 (0 for a page without values, and nothing follows)
//	int32 m                       present if n > 0
//	index bits                    present if m > 0: the positions of the non-zero values in
//	                              descending unsigned order of their values (ties by position),
//	                              each in bits.Len(n-1) bits, padded to a byte
//	int32 len                     bytes of the value bits below
//	int32 w0                      bit length of the largest value
//	value bits                    the m values in that order, the first in w0 bits and each
//	                              later one in the bit length of the one before it; len bytes,
//	                              which Java sizes as (sum of the values' bit lengths + w0 + 7)/8
//
// Positions not listed hold zero. Because the values descend, the previous value's width is
// always enough for the next, and the reader learns each width from the value it just read.

// dbpMaxValues bounds the values an encoder takes into one block: beyond it the Java int
// arithmetic on bit counts (31 bits of index times the count) would overflow.
const dbpMaxValues = 1 << 25

// bitsToBytes is the byte count of a bit string of n bits.
func bitsToBytes(n int) int { return (n + 7) / 8 }

// readBitsW is readBits for widths 0 to 64: a field of no bits reads as 0.
func readBitsW(src []byte, pos, width uint) uint64 {
	if width == 0 {
		return 0
	}
	return readBits(src, pos, width)
}

// zigzag64 maps a signed value to the unsigned form the three encodings store.
func zigzag64(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// unzigzag64 inverts zigzag64.
func unzigzag64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// int32At reads the big-endian Java int at src[off:]; ok is false if fewer than four bytes
// remain.
func int32At(src []byte, off int) (v int32, ok bool) {
	if off < 0 || len(src)-off < 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(src[off:])), true
}

// appendInt32BE appends v as a big-endian Java int.
func appendInt32BE(dst []byte, v int) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(int32(v)))
}

// dbpReader parses DESCENDING_BIT_PACKING blocks from src for the named encoding (the
// SEPARATE_STORAGE high bits are such a block); errors name offsets within src.
type dbpReader struct {
	enc Encoding
	typ string
	src []byte
}

func (r *dbpReader) corrupt(off int, format string, args ...any) error {
	return corrupt(r.enc, r.typ, off, format, args...)
}

// blockCount reads the int32 count that opens a block at off and checks it against the room
// left in the destination (room < 0 means no limit, for counting). A count of 0 is the whole
// block: Java's flush writes it for a page without values, such as an aligned value page
// whose rows are all null, and its reader never asks that block for a value.
func (r *dbpReader) blockCount(off, room int) (int, error) {
	n, ok := int32At(r.src, off)
	switch {
	case !ok:
		return 0, corrupt(r.enc, r.typ, off, "block count truncated: %d bytes left, need 4", len(r.src)-off)
	case n < 0:
		return 0, corrupt(r.enc, r.typ, off, "block of %d values", n)
	case room >= 0 && int(n) > room:
		return 0, corrupt(r.enc, r.typ, off, "block of %d values where %d remain to be decoded", n, room)
	}
	return int(n), nil
}

// positions reads the positions field at off: m positions within a block of n values (n > 0),
// each in bits.Len(n-1) bits, padded to a byte. It returns the field, the width and the
// offset after the field.
func (r *dbpReader) positions(m, n, off int) ([]byte, uint, int, error) {
	iw := uint(bits.Len(uint(n - 1)))
	l := bitsToBytes(int(iw) * m)
	if len(r.src)-off < l {
		return nil, 0, 0, r.corrupt(off, "%d positions of %d bits need %d bytes, %d left", m, iw, l, len(r.src)-off)
	}
	return r.src[off : off+l], iw, off + l, nil
}

// block reads the DESCENDING_BIT_PACKING block at off into out (nil to only validate and
// skip), with room the values left to decode (-1 for no limit), and returns its count and the
// offset after it.
func (r *dbpReader) block(out []uint64, room, off int) (int, int, error) {
	n, err := r.blockCount(off, room)
	if err != nil || n == 0 {
		return 0, off + 4, err
	}
	if out != nil {
		out = out[:n]
	}
	next, err := r.decode(out, n, off+4)
	return n, next, err
}

// decode reads the body of a block of n values that follows its count at off into out, which
// has length n, and returns the offset after the block. With out == nil it only validates the
// framing and skips the value bits, for counting.
func (r *dbpReader) decode(out []uint64, n, off int) (int, error) {
	m32, ok := int32At(r.src, off)
	if !ok {
		return 0, corrupt(r.enc, r.typ, off, "non-zero count truncated")
	}
	if m32 < 0 || int(m32) > n {
		return 0, corrupt(r.enc, r.typ, off, "%d non-zero values in a block of %d", m32, n)
	}
	off += 4
	m := int(m32)
	clear(out)
	if m == 0 {
		return off, nil
	}
	idxAt := off
	idx, iw, off, err := r.positions(m, n, off)
	if err != nil {
		return 0, err
	}
	vl, ok1 := int32At(r.src, off)
	w0, ok2 := int32At(r.src, off+4)
	if !ok1 || !ok2 {
		return 0, corrupt(r.enc, r.typ, off, "value header truncated")
	}
	if vl < 0 || int(vl) > len(r.src)-off-8 {
		return 0, corrupt(r.enc, r.typ, off, "value bits of %d bytes, %d left", vl, max(len(r.src)-off-8, 0))
	}
	if w0 < 0 || w0 > 64 {
		return 0, corrupt(r.enc, r.typ, off+4, "first value width %d is not 0..64", w0)
	}
	off += 8
	vals := r.src[off : off+int(vl)]
	limit := 8 * uint(len(vals))
	pos, w := uint(0), uint(w0)
	for i := range m {
		if pos+w > limit {
			return 0, corrupt(r.enc, r.typ, off+int(pos/8), "value %d of %d bits runs past the %d value bytes", i, w, len(vals))
		}
		v := readBitsW(vals, pos, w)
		pos += w
		p := readBitsW(idx, uint(i)*iw, iw)
		if p >= uint64(n) {
			return 0, corrupt(r.enc, r.typ, idxAt, "position %d of value %d is outside the block of %d", p, i, n)
		}
		if out != nil {
			// Java stores by position without checking for repeats; the last one wins.
			out[p] = v
		}
		w = uint(bits.Len64(v))
	}
	return off + len(vals), nil
}

// appendDBPBlock appends u, the stored (already zigzagged, where signed) values, as one
// block, byte for byte as DescendingBitPackingEncoder.flush writes it.
func appendDBPBlock(dst []byte, u []uint64) ([]byte, error) {
	n := len(u)
	if n > dbpMaxValues {
		return dst, unsupportedCount(DescendingBitPacking, n)
	}
	dst = appendInt32BE(dst, n)
	if n == 0 {
		return dst, nil
	}
	order := make([]int32, 0, n)
	sumW := 0
	for i, v := range u {
		if v != 0 {
			order = append(order, int32(i))
			sumW += bits.Len64(v)
		}
	}
	m := len(order)
	dst = appendInt32BE(dst, m)
	if m == 0 {
		return dst, nil
	}
	// Java sorts the positions with a stable sort on descending unsigned value, so equal
	// values keep their positions' order; zeros sort last and are not written.
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(u[b], u[a]) })
	dst = appendPositions(dst, order, n)
	w0 := bits.Len64(u[order[0]])
	vl := bitsToBytes(sumW + w0)
	dst = appendInt32BE(dst, vl)
	dst = appendInt32BE(dst, w0)
	start := len(dst)
	w := bitWriter{buf: dst}
	prev := uint(w0)
	for _, p := range order {
		w.write(u[p], prev)
		prev = uint(bits.Len64(u[p]))
	}
	dst = w.finish()
	// Java sizes the buffer for the values' widths plus w0, which is the last value's width
	// more than the fields use; the rest is zeros.
	for len(dst)-start < vl {
		dst = append(dst, 0)
	}
	return dst, nil
}

// appendPositions appends the positions field of a block of n values (n > 0): each position
// in bits.Len(n-1) bits, padded to a byte, as dbpReader.positions reads it.
func appendPositions[T int32 | int](dst []byte, pos []T, n int) []byte {
	iw := uint(bits.Len(uint(n - 1)))
	w := bitWriter{buf: dst}
	for _, p := range pos {
		w.write(uint64(p), iw)
	}
	return w.finish()
}

// unsupportedCount reports a page too large for the Java int arithmetic of enc.
func unsupportedCount(enc Encoding, n int) error {
	return fmt.Errorf("encoding: %v block of %d values exceeds the %d the Java int arithmetic allows: %w", enc, n, dbpMaxValues, ErrUnsupported)
}

// u64Pool holds the scratch of INT32 decodes, which run the 64-bit decoders and then narrow.
var u64Pool = sync.Pool{New: func() any { return new([]uint64) }}

// decodeBlocks decodes exactly len(u) stored values from src, a sequence of blocks each read
// by block (which returns the offset after it), and requires src to be consumed exactly.
func decodeBlocks(enc Encoding, typ string, u []uint64, src []byte, block func(out []uint64, off int) (int, int, error)) error {
	k, off := 0, 0
	for off < len(src) {
		if k == len(u) {
			// Only empty blocks may follow the last value.
			if c, ok := int32At(src, off); !ok || c != 0 {
				return corrupt(enc, typ, off, "%d bytes after the last of %d values", len(src)-off, len(u))
			}
		}
		n, next, err := block(u[k:], off)
		if err != nil {
			return err
		}
		k += n
		off = next
	}
	if k < len(u) {
		return corrupt(enc, typ, off, "stream ends after %d of %d values", k, len(u))
	}
	return nil
}

// countBlocks returns the number of values in src, a sequence of blocks each skipped by block.
func countBlocks(src []byte, block func(off int) (int, int, error)) (int, error) {
	total, off := 0, 0
	for off < len(src) {
		n, next, err := block(off)
		if err != nil {
			return 0, err
		}
		total += n
		off = next
	}
	return total, nil
}

// registerBlockCodec registers enc, whose streams are sequences of blocks each read by block
// (with a dbpReader for enc) and whose pages encode writes as one block of the stored values.
func registerBlockCodec(
	enc Encoding,
	block func(r *dbpReader, out []uint64, room, off int) (int, int, error),
	encode func(dst []byte, u []uint64) ([]byte, error),
) {
	decode := func(typ string) func(u []uint64, src []byte) error {
		return func(u []uint64, src []byte) error {
			r := dbpReader{enc: enc, typ: typ, src: src}
			return decodeBlocks(enc, typ, u, src, func(out []uint64, off int) (int, int, error) {
				return block(&r, out, len(out), off)
			})
		}
	}
	register(enc, valueCodec{
		decodeInt32: func(dst []int32, src []byte) error { return decodeSigned32(enc, dst, src, decode(typeInt32)) },
		decodeInt64: func(dst []int64, src []byte) error { return decodeSigned64(dst, src, decode(typeInt64)) },
		countInt64: func(src []byte) (int, error) {
			r := dbpReader{enc: enc, typ: typeInt64, src: src}
			return countBlocks(src, func(off int) (int, int, error) { return block(&r, nil, -1, off) })
		},
		encodeInt32: func(dst []byte, v []int32) ([]byte, error) { return encode(dst, zigzagAll(v)) },
		encodeInt64: func(dst []byte, v []int64) ([]byte, error) { return encode(dst, zigzagAll(v)) },
	})
}

// decodeSigned64 runs decode on dst's bits and turns the stored zigzag values into values.
func decodeSigned64(dst []int64, src []byte, decode func(u []uint64, src []byte) error) error {
	u := xorBitsInt64(dst)
	if err := decode(u, src); err != nil {
		return err
	}
	for i, x := range u {
		dst[i] = unzigzag64(x)
	}
	return nil
}

// decodeSigned32 is decodeSigned64 for INT32 and DATE: the Java Int decoders read a long and
// fail (Math.toIntExact) on one outside the int range, and so does this.
func decodeSigned32(enc Encoding, dst []int32, src []byte, decode func(u []uint64, src []byte) error) error {
	sp := u64Pool.Get().(*[]uint64)
	defer u64Pool.Put(sp)
	if cap(*sp) < len(dst) {
		*sp = make([]uint64, len(dst))
	}
	u := (*sp)[:len(dst)]
	if err := decode(u, src); err != nil {
		return err
	}
	for i, x := range u {
		v := unzigzag64(x)
		if v < math.MinInt32 || v > math.MaxInt32 {
			return corrupt(enc, typeInt32, 0, "value %d is %d, outside the INT32 range", i, v)
		}
		dst[i] = int32(v)
	}
	return nil
}

// zigzagAll returns the stored forms of v.
func zigzagAll[T int32 | int64](v []T) []uint64 {
	u := make([]uint64, len(v))
	for i, x := range v {
		u[i] = zigzag64(int64(x))
	}
	return u
}

func init() {
	registerBlockCodec(DescendingBitPacking, (*dbpReader).block, appendDBPBlock)
}
