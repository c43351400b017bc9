package encoding

import (
	"math/bits"
)

// A SEPARATE_STORAGE block (SeparateStorageEncoder.java / SeparateStorageDecoder.java, see
// descbitpack.go for the commits) splits each stored value u at a bit width b chosen for the
// page: the high part u>>b goes into an unsigned DESCENDING_BIT_PACKING block, the low b bits
// are packed plainly after it.
//
//	int32 n         the block's value count; 0 for a page without values, and nothing follows
//	int32 b         0..64
//	DBP block       of the n high parts, unsigned (not zigzagged again)
//	low bits        present if b > 0: n fields of b bits, padded to a byte
//
// Java shifts by b mod 64, so b = 64 (chosen when every value is 64 bits wide) puts the whole
// value in the high part and zero in the low bits; this package does the same. The Java
// encoder picks the b in 0..64 that minimises the estimated bits (n*b for the low parts plus,
// for each value wider than b, its extra width and a position), the first on ties.
//
// The Java decoder at that commit throws a NullPointerException on every block with b = 0
// (SeparateStorageDecoder.loadNextBlock only fills its boxed low parts when b > 0, then
// unboxes all of them), which its encoder writes for all-zero pages and for sparse ones. This
// package reads those blocks as the layout says, low parts of zero, but never writes one: its
// encoder picks the best b in 1..64 instead, which is the Java encoder's b wherever that is
// not 0 (so those blocks stay byte for byte the same) and, where it is, costs at most one
// bit per value by the encoder's own size estimate. Every block it writes reads back correctly in that Java decoder.

// ssMinWidth is the least split width the encoder writes: the Java decoder fails on 0.
const ssMinWidth = 1

// ssOptimalWidth returns the split width Java's getOptimalBitWidth would pick for n values
// whose bit lengths are counted in wc, among the widths 1..64 that the Java decoder reads
// (see above): the first b >= 1 of least estimated bits. Where Java's own pick is not 0, it is
// the first minimum overall and so also the first one from 1 on: the same b.
func ssOptimalWidth(wc *[65]int64, n int) int {
	var sum, weighted int64
	for i, c := range wc {
		sum += c
		weighted += c * int64(i)
	}
	iw := int64(bits.Len64(uint64(n - 1)))
	curSum, curWeighted := sum, weighted
	best, bestLen := -1, int64(-1)
	for i := range 65 {
		curSum -= wc[i]
		curWeighted -= wc[i] * int64(i)
		l := sum*int64(i) + curSum*iw + (curWeighted - curSum*int64(i))
		if i >= ssMinWidth && (bestLen == -1 || l < bestLen) {
			best, bestLen = i, l
		}
	}
	return best
}

// appendSSBlock appends u, the zigzagged values, as one block, byte for byte as
// SeparateStorageEncoder.flush writes it except that the split width is never 0 (see
// ssOptimalWidth).
func appendSSBlock(dst []byte, u []uint64) ([]byte, error) {
	n := len(u)
	if n > dbpMaxValues {
		return dst, unsupportedCount(SeparateStorage, n)
	}
	dst = appendInt32BE(dst, n)
	if n == 0 {
		return dst, nil
	}
	var wc [65]int64
	for _, v := range u {
		wc[bits.Len64(v)]++
	}
	b := ssOptimalWidth(&wc, n)
	dst = appendInt32BE(dst, b)
	sh := uint(b) & 63 // Java's shift distance
	mask := uint64(1)<<sh - 1
	high := make([]uint64, n)
	for i, v := range u {
		high[i] = v >> sh
	}
	dst, err := appendDBPBlock(dst, high)
	if err != nil {
		return dst, err
	}
	// b >= ssMinWidth: the low bits are always there.
	w := bitWriter{buf: dst}
	for _, v := range u {
		w.write(v&mask, uint(b))
	}
	return w.finish(), nil
}

// ssBlock reads the SEPARATE_STORAGE block at off into out (nil to only validate and skip),
// with room the values left to decode (-1 for no limit), and returns its count and the offset
// after it. r.enc is SeparateStorage, and r.decode reads the high parts.
func (r *dbpReader) ssBlock(out []uint64, room, off int) (int, int, error) {
	n, err := r.blockCount(off, room)
	if err != nil || n == 0 {
		return 0, off + 4, err
	}
	b32, ok := int32At(r.src, off+4)
	if !ok {
		return 0, 0, r.corrupt(off+4, "split width truncated")
	}
	if b32 < 0 || b32 > 64 {
		return 0, 0, r.corrupt(off+4, "split width %d is not 0..64", b32)
	}
	b := uint(b32)
	// The high parts are one unsigned DBP block of exactly n values: Java's reader would
	// otherwise read on into the next block or leave values behind, misaligning the stream.
	hn, err := r.blockCount(off+8, -1)
	if err != nil {
		return 0, 0, err
	}
	if hn != n {
		return 0, 0, r.corrupt(off+8, "high parts hold %d values in a block of %d", hn, n)
	}
	if out != nil {
		out = out[:n]
	}
	next, err := r.decode(out, n, off+12)
	if err != nil {
		return 0, 0, err
	}
	if b == 0 {
		return n, next, nil
	}
	ll := bitsToBytes(int(b) * n)
	if len(r.src)-next < ll {
		return 0, 0, r.corrupt(next, "%d low parts of %d bits need %d bytes, %d left", n, b, ll, len(r.src)-next)
	}
	if out != nil {
		low, sh := r.src[next:next+ll], b&63
		for i := range out {
			out[i] = out[i]<<sh | readBits(low, uint(i)*b, b)
		}
	}
	return n, next + ll, nil
}

func init() {
	registerBlockCodec(SeparateStorage, (*dbpReader).ssBlock, appendSSBlock)
}
