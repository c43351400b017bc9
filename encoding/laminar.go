package encoding

import (
	"errors"
	"fmt"
	"math/bits"
)

// A LAMINAR block (LaminarEncoder.java / LaminarDecoder.java, see descbitpack.go for the
// commit) stores zigzagged values with non-increasing ("laminar") bit widths. Each value's
// width is the largest bit length from it to the end of its array, so the widths only step
// down, and the steps are run-length coded. A page's n values are cut at a point p chosen to
// minimise the estimated size: the first p are stored densely, the non-zero values of the
// rest sparsely, with their positions.
//
//	int32 n                 n >= 0 (0 for a page without values, and nothing follows)
//	int32 p                 0..n
//	array                   the values 0..p-1
//	array                   the non-zero values among p..n-1, in order
//	position bits           their positions minus p, each in bits.Len(n-1) bits, padded to a byte
//
// and an array of k values is
//
//	int32 k
//	int32 w0                present if k > 0: the width of the first value
//	RLE package             present if k > 0: an INT32 RLE stream (see rle.go) of flags, for
//	                        each value after the first a 1 for every bit the width drops
//	                        before it, then a 0
//	value bits              present if k > 0: each value in its width, padded to a byte
//
// For an array of one value the Java encoder still writes the RLE package, empty (the byte
// 0x00), but the Java decoder at that commit reads no flags (its flag loop starts at the
// second value, and IntRleDecoder reads the package on its first readInt) and so takes that
// byte as value bits: it misreads (or fails on) every block with p = 1 or a single sparse
// value, both of which its encoder writes. This package reads the layout its encoder writes,
// package included. Its encoder never writes a one-value array: it picks the best cut p among
// those that leave neither array with exactly one value, which is the Java encoder's p
// wherever that one is safe (so those blocks stay byte for byte the same). Such a cut exists
// for every page but one of a single non-zero value (p = 1 makes the dense array one value,
// p = 0 the sparse one); that page has no layout both decoders read, and the encoder refuses
// it with ErrLaminarSingleValue. An array of one zero value cannot arise: p = 1 is never
// chosen and the sparse array holds only non-zero values.
//
// The reader here is stricter than Java's where Java would not fail but silently misplace
// values: the flags must be exactly those needed, the dense array must hold p values, and
// the sparse positions must rise (the encoder writes them rising; Java lets a repeat win).

// laminarWidths returns the suffix-maximum bit lengths of u.
func laminarWidths(u []uint64) []uint8 {
	w := make([]uint8, len(u))
	m := 0
	for i := len(u) - 1; i >= 0; i-- {
		m = max(m, bits.Len64(u[i]))
		w[i] = uint8(m)
	}
	return w
}

// ErrLaminarSingleValue is wrapped by the error the LAMINAR encoder returns for a page of
// exactly one non-zero value, which no LAMINAR block can hold so that the upstream Java
// decoder reads it (see laminar.go). A writer should store such a chunk in another encoding.
// It is not ErrUnsupported: LAMINAR writes every other page of the integer types.
var ErrLaminarSingleValue = errors.New("encoding: a LAMINAR page of one non-zero value has no layout the upstream Java decoder reads")

// laminarSafeCut reports whether the Java decoder reads a block cut at p: neither array may
// hold exactly one value. nzAfter is the number of non-zero values from p on, which the
// sparse array holds.
func laminarSafeCut(p, nzAfter int) bool { return p != 1 && nzAfter != 1 }

// laminarCut returns the p Java's partition (LaminarEncoder.flush) picks for u among the cuts
// that laminarSafeCut allows: the first of least estimated bits. ok is false if there is none
// (a single non-zero value).
func laminarCut(u []uint64, lw []uint8) (p int, ok bool) {
	iw := int64(bits.Len(uint(len(u) - 1)))
	var cur int64
	nz := 0
	for i, v := range u {
		if v != 0 {
			cur += 1 + int64(lw[i]) + iw
			nz++
		}
	}
	best, bestLen := -1, int64(0)
	if laminarSafeCut(0, nz) {
		best, bestLen = 0, cur
	}
	for i, v := range u {
		if v != 0 {
			cur -= 1 + int64(lw[i]) + iw
			nz--
		}
		cur += 1 + int64(lw[i])
		if laminarSafeCut(i+1, nz) && (best < 0 || cur < bestLen) {
			best, bestLen = i+1, cur
		}
	}
	return best, best >= 0
}

// appendLaminarArray appends one array as flushEncodeArray writes it.
func appendLaminarArray(dst []byte, v []uint64) ([]byte, error) {
	dst = appendInt32BE(dst, len(v))
	if len(v) == 0 {
		return dst, nil
	}
	lw := laminarWidths(v)
	dst = appendInt32BE(dst, int(lw[0]))
	flags := make([]int32, 0, len(v)-1+int(lw[0]))
	for i := 1; i < len(v); i++ {
		for range int(lw[i-1]) - int(lw[i]) {
			flags = append(flags, 1)
		}
		flags = append(flags, 0)
	}
	dst, err := appendRLE(dst, flags, 4)
	if err != nil {
		return dst, err
	}
	w := bitWriter{buf: dst}
	for i, x := range v {
		w.write(x, uint(lw[i]))
	}
	return w.finish(), nil
}

// appendLaminarBlock appends u, the zigzagged values, as one block, byte for byte as
// LaminarEncoder.flush writes it wherever the Java decoder reads that back (see laminarCut).
func appendLaminarBlock(dst []byte, u []uint64) ([]byte, error) {
	n := len(u)
	if n > dbpMaxValues {
		return dst, unsupportedCount(Laminar, n)
	}
	if n == 0 {
		return appendInt32BE(dst, 0), nil
	}
	p, ok := laminarCut(u, laminarWidths(u))
	if !ok {
		return dst, fmt.Errorf("encoding: LAMINAR page of the one value %d (stored %d): %w", unzigzag64(u[0]), u[0], ErrLaminarSingleValue)
	}
	dst = appendInt32BE(dst, n)
	dst = appendInt32BE(dst, p)
	dst, err := appendLaminarArray(dst, u[:p])
	if err != nil {
		return dst, err
	}
	var sparse []uint64
	var pos []int
	for i := p; i < n; i++ {
		if u[i] != 0 {
			sparse = append(sparse, u[i])
			pos = append(pos, i-p)
		}
	}
	if dst, err = appendLaminarArray(dst, sparse); err != nil {
		return dst, err
	}
	return appendPositions(dst, pos, n), nil
}

// LAMINAR blocks are parsed by a dbpReader whose enc is Laminar: the block count is read as
// for DESCENDING_BIT_PACKING, and errors name offsets within src.

// laminarArray reads the array at off, whose count must lie in lo..hi. Its values go to
// out[:count] when out is not nil (len(out) >= hi); with out == nil they are only validated. It
// returns the count and the offset after the array.
func (r *dbpReader) laminarArray(out []uint64, lo, hi, off int) (int, int, error) {
	k32, ok := int32At(r.src, off)
	if !ok {
		return 0, 0, r.corrupt(off, "array count truncated")
	}
	if int(k32) < lo || int(k32) > hi {
		return 0, 0, r.corrupt(off, "array of %d values where %d..%d belong", k32, lo, hi)
	}
	off += 4
	k := int(k32)
	if k == 0 {
		return 0, off, nil
	}
	w32, ok := int32At(r.src, off)
	if !ok {
		return 0, 0, r.corrupt(off, "first width truncated")
	}
	if w32 < 0 || w32 > 64 {
		return 0, 0, r.corrupt(off, "first width %d is not 0..64", w32)
	}
	off += 4
	// The flags are one RLE package: a VarInt byte length, then its body.
	plen, nb := uvarint32(r.src[off:])
	if nb <= 0 {
		return 0, 0, r.corrupt(off, "width-step package length is not a VarInt")
	}
	if int64(plen) > int64(len(r.src)-off-nb) {
		return 0, 0, r.corrupt(off, "width-step package of %d bytes, %d left", plen, len(r.src)-off-nb)
	}
	pkgEnd := off + nb + int(plen)
	f := rleFlagReader{c: newRLECursor(r.src[:pkgEnd], off, 4, r.typ)}
	f.c.enc = Laminar
	vals := r.src[pkgEnd:]
	limitBits := 8 * uint(len(vals))
	w, pos := uint(w32), uint(0)
	for i := 0; i < k; i++ {
		if i > 0 && out == nil && f.open && f.run.packed < 0 && f.run.value == 0 && f.i < f.run.n {
			// Counting: a repeated run of zero steps gives the next values this width, so
			// they are skipped at once. A run claims up to 2^30 values in a few bytes, and
			// counting has no destination to bound the array by.
			t := min(k-i, f.run.n-f.i)
			if pos+uint(t)*w > limitBits {
				return 0, 0, r.corrupt(pkgEnd+int(pos/8), "values %d to %d of %d bits run past the stream", i, i+t-1, w)
			}
			pos += uint(t) * w
			f.i += t
			i += t - 1
			continue
		}
		if i > 0 {
			for {
				x, err := f.next()
				if err != nil {
					return 0, 0, err
				}
				if x == 0 {
					break
				}
				if x != 1 {
					return 0, 0, r.corrupt(f.at, "width step %d is not 0 or 1", x)
				}
				if w == 0 {
					return 0, 0, r.corrupt(f.at, "width of value %d drops below 0", i)
				}
				w--
			}
		}
		if pos+w > limitBits {
			return 0, 0, r.corrupt(pkgEnd+int(pos/8), "value %d of %d bits runs past the stream", i, w)
		}
		if out != nil {
			out[i] = readBitsW(vals, pos, w)
		}
		pos += w
	}
	if err := f.end(); err != nil {
		return 0, 0, err
	}
	return k, pkgEnd + bitsToBytes(int(pos)), nil
}

// laminarBlock reads the LAMINAR block at off into out (nil to only validate and skip), with
// room the values left to decode (-1 for no limit), and returns its count and the offset after
// it.
func (r *dbpReader) laminarBlock(out []uint64, room, off int) (int, int, error) {
	n, err := r.blockCount(off, room)
	if err != nil || n == 0 {
		return 0, off + 4, err // n == 0: a page without values (see dbpReader.blockCount)
	}
	p32, ok := int32At(r.src, off+4)
	if !ok {
		return 0, 0, r.corrupt(off+4, "cut point truncated")
	}
	if p32 < 0 || int(p32) > n {
		return 0, 0, r.corrupt(off+4, "cut point %d in a block of %d", p32, n)
	}
	p := int(p32)
	var dense, rest []uint64
	if out != nil {
		dense, rest = out[:p], out[p:n]
		clear(rest)
	}
	_, off, err = r.laminarArray(dense, p, p, off+8)
	if err != nil {
		return 0, 0, err
	}
	// The sparse values are read into the front of their region, then moved to their
	// positions from the last one back: positions rise, so no unread value is overwritten.
	s, off, err := r.laminarArray(rest, 0, n-p, off)
	if err != nil {
		return 0, 0, err
	}
	pb, iw, next, err := r.positions(s, n, off)
	if err != nil {
		return 0, 0, err
	}
	prev := uint64(0)
	for i := range s {
		q := readBitsW(pb, uint(i)*iw, iw)
		if q >= uint64(n-p) || (i > 0 && q <= prev) {
			return 0, 0, r.corrupt(off, "sparse position %d is %d (after %d; %d values follow the cut)", i, q, prev, n-p)
		}
		prev = q
	}
	if out != nil {
		for i := s - 1; i >= 0; i-- {
			q := readBitsW(pb, uint(i)*iw, iw)
			v := rest[i]
			rest[i] = 0
			rest[q] = v
		}
	}
	return n, next, nil
}

// rleFlagReader yields the values of one RLE package in order.
type rleFlagReader struct {
	c    rleCursor
	run  rleRun
	i    int  // values of run already yielded
	open bool // run is current
	at   int  // offset of the current run, for errors
}

// next returns the next value, or an error if the package has none left.
func (f *rleFlagReader) next() (uint64, error) {
	for !f.open || f.i == f.run.n {
		r, ok, err := f.c.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, corrupt(Laminar, f.c.typ, f.c.off, "width-step package ends before the last value's steps")
		}
		f.run, f.i, f.open, f.at = r, 0, true, r.at
	}
	var x uint64
	if f.run.packed < 0 {
		x = f.run.value
	} else {
		x = readBitsW(f.c.src, uint(f.run.packed)*8+uint(f.i)*f.c.width, f.c.width)
	}
	f.i++
	return x, nil
}

// end checks that the package holds no values beyond those read.
func (f *rleFlagReader) end() error {
	if f.open && f.i < f.run.n {
		return corrupt(Laminar, f.c.typ, f.at, "width-step package holds %d values more than the widths need", f.run.n-f.i)
	}
	_, ok, err := f.c.next()
	if err != nil {
		return err
	}
	if ok {
		return corrupt(Laminar, f.c.typ, f.c.off, "width-step package holds runs beyond the widths needed")
	}
	return nil
}

func init() {
	registerBlockCodec(Laminar, (*dbpReader).laminarBlock, appendLaminarBlock)
}
